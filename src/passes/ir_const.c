/* Constants with a pending per-channel scale (see lg__cvalue.scale): written
 * once, scaled in the same reorder that gives them their layout. */
#include "passes/ir.h"

#include <omp.h>

lg_status lg__ir_const_writer(const lg__graph *ir, lg_value v, const lg_md *md, lg_kernel **k,
                              int *nargs) {
    const lg__cvalue *val = &ir->vals[v];
    lg_attr *attr = NULL;
    lg_status s = LG_OK;
    *k = NULL;
    if (val->scale) {
        s = lg_attr_create(&attr);
        if (s == LG_OK) s = lg_attr_set_scales(attr, LG_ARG_SRC, val->scale_mask);
    }
    if (s == LG_OK) s = lg_reorder_create(k, &val->md, md, attr);
    lg_attr_destroy(attr);
    *nargs = val->scale ? 3 : 2;
    return s;
}

void lg__ir_const_args(const lg__graph *ir, lg_value v, void *buf, lg_arg args[3]) {
    const lg__cvalue *val = &ir->vals[v];
    args[0] = (lg_arg){LG_ARG_SRC, (void *)val->data};
    args[1] = (lg_arg){LG_ARG_DST, buf};
    args[2] = (lg_arg){LG_ARG_ATTR_SCALES | LG_ARG_SRC, (void *)val->scale};
}

lg_status lg__ir_const_write(const lg__graph *ir, lg_value v, const lg_md *md, void *buf,
                             int threads) {
    lg_kernel *k = NULL;
    int nargs;
    lg_status s = lg__ir_const_writer(ir, v, md, &k, &nargs);
    if (s != LG_OK) return s;
    lg_arg args[3];
    lg__ir_const_args(ir, v, buf, args);
    int saved = omp_get_max_threads();
    if (threads > 0) omp_set_num_threads(threads);
    s = lg_kernel_execute(k, nargs, args);
    if (threads > 0) omp_set_num_threads(saved);
    lg_kernel_destroy(k);
    return s;
}

lg_status lg__ir_const_apply(lg__graph *ir, lg_value v) {
    lg__cvalue *val = &ir->vals[v];
    if (!val->scale) return LG_OK;
    size_t bytes = lg_md_size(&val->md);
    void *buf = lg__alloc_big(bytes + 1);
    if (!buf || !lg__ir_own(ir, buf))
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate a scaled constant of %zu bytes",
                                bytes);
    lg_md md = val->md;
    LG_CHECK(lg__ir_const_write(ir, v, &md, buf, 0));
    val = &ir->vals[v];
    val->data = buf;
    val->scale = NULL;
    return LG_OK;
}
