/* Fuzz target: hand-filled lg_md structs (issue 23) given to every public
 * function that takes one, with the kernels' numeric parameters drawn from
 * the sweep's extreme values. A valid small md (fz_md) has 1 to 4 of its
 * fields overwritten with extreme values or raw bytes, then goes to
 * lg_md_size / lg_md_offset / lg_md_equal / lg_md_is_any / lg_md_tag, the
 * five kernel creators and lg_graph_add_input / add_constant / add_reorder.
 * Properties:
 *  - an md lg__md_ok refuses is refused by every function (LG_INVALID_ARGUMENT,
 *    a message naming the public function), with size 0 and offset -1;
 *  - every refusal is a real status whose message begins "<function>:";
 *  - a created kernel runs on buffers of exactly the sizes lg_md_size
 *    reports (ASan catches any access past them). */
#include "fuzz/fuzz.h"

#include "memory/md.h"

#include <stdlib.h>
#include <string.h>

#define T "md_hand"

static lg_status named(lg_status s, const char *fn) {
    if (s > LG_OK || s < LG_RUNTIME_ERROR) fz_fail(T, "%s returned %d", fn, (int)s);
    if (s == LG_RUNTIME_ERROR) fz_fail(T, "%s: LG_RUNTIME_ERROR (%s)", fn, lg_last_error());
    size_t n = strlen(fn);
    if (s != LG_OK && (strncmp(lg_last_error(), fn, n) || lg_last_error()[n] != ':'))
        fz_fail(T, "%s: message '%s' does not name it", fn, lg_last_error());
    return s;
}

static void refused(lg_status s, const char *fn, bool valid) {
    if (named(s, fn) == LG_OK && !valid) fz_fail(T, "%s accepted an invalid md", fn);
}

/* Execute k on zeroed buffers of the sizes its mds report. */
static void run(lg_kernel *k) {
    static const int ids[] = {LG_ARG_SRC, LG_ARG_SRC + 1, LG_ARG_WEIGHTS, LG_ARG_DST};
    lg_arg args[4];
    int n = 0;
    for (int i = 0; i < 4; i++) {
        lg_md md;
        if (lg_kernel_query_md(k, ids[i], &md) != LG_OK) continue;
        size_t bytes = lg_md_size(&md);
        if (bytes > 4 * FZ_MAX_BYTES) goto out;
        args[n].arg = ids[i];
        args[n].data = calloc(1, bytes ? bytes : 1);
        if (!args[n].data) abort();
        n++;
    }
    named(lg_kernel_execute(k, n, args), "lg_kernel_execute");
out:
    for (int i = 0; i < n; i++) free(args[i].data);
    lg_kernel_destroy(k);
}

/* Whether md's offset tables over its padded dims stay within 32 MB (the
 * sum checked before each addition: a valid md's padded dims may be near
 * INT64_MAX). */
static bool tables_fit(const lg_md *md) {
    const int64_t max = (int64_t)1 << 22;
    int64_t n = 0;
    for (int d = 0; d < md->ndims; d++) {
        int64_t p = md->padded_dims[d];
        if (p < 0 || p > max - n) return false;
        n += p;
    }
    return true;
}

/* Overwrite one field of md with an extreme value or raw bytes. */
static void mutate(fz *f, lg_md *md) {
    uint8_t c = fz_u8(f);
    int d = fz_u8(f) % LG_MAX_NDIMS;
    int64_t v = c & 0x80 ? (int64_t)fz_u64(f) : fz_x64(f);
    int vi = c & 0x80 ? (int)v : fz_xint(f);
    switch (c % 11) {
    case 0:
        md->ndims = vi;
        break;
    case 1:
        md->dims[d] = v;
        break;
    case 2:
        md->dtype = (lg_dtype)vi;
        break;
    case 3:
        md->format_kind = (lg_format_kind)vi;
        break;
    case 4:
        md->padded_dims[d] = v;
        break;
    case 5:
        md->offset0 = v;
        break;
    case 6:
        md->blocking.strides[d] = v;
        break;
    case 7:
        md->blocking.inner_nblks = vi;
        break;
    case 8:
        md->blocking.inner_blks[d] = v;
        break;
    case 9:
        md->blocking.inner_idxs[d] = vi;
        break;
    default:
        md->dims[d] = md->padded_dims[d] = v;
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    int nd;
    int64_t dims[LG_MAX_NDIMS];
    lg_md md, good, anyd;
    fz_dims(&f, 5, &nd, dims);
    lg_dtype dt = fz_dtype(&f, 0x3f);
    if (!fz_md(&f, nd, dims, dt, &md)) goto out;
    good = md;
    lg_md_init_tag(&anyd, nd, dims, dt, "any");
    int nmut = 1 + fz_u8(&f) % 4;
    for (int i = 0; i < nmut; i++) mutate(&f, &md);
    bool valid = lg__md_ok(&md);
    char tag[256];
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (!valid) {
        if (lg_md_size(&md) != 0) fz_fail(T, "invalid md has size %zu", lg_md_size(&md));
        if (lg_md_offset(&md, idx) != -1) fz_fail(T, "invalid md has an offset");
        if (lg_md_equal(&md, &md)) fz_fail(T, "invalid md equals itself");
    } else {
        (void)lg_md_offset(&md, idx);
        (void)lg_md_equal(&md, &good);
    }
    (void)lg_md_is_any(&md);
    refused(lg_md_tag(&md, tag, sizeof tag), "lg_md_tag", valid);
    lg_kernel *k;
    /* Kernel creators may allocate per-index offset tables (8 bytes for each
     * index of each padded dim, layout.h): for a valid md with a dim of 3e9
     * that is 24 GB, in proportion to its tensor of 3 GB or more but over the
     * fuzzer's RSS limit. Such mds still reach every validator below. */
    if (valid && !tables_fit(&md)) goto graph;
    if (named(lg_reorder_create(&k, &md, &good, NULL), "lg_reorder_create") == LG_OK) {
        if (!valid) fz_fail(T, "lg_reorder_create accepted an invalid src");
        run(k);
    }
    if (named(lg_reorder_create(&k, &good, &md, NULL), "lg_reorder_create") == LG_OK) {
        if (!valid) fz_fail(T, "lg_reorder_create accepted an invalid dst");
        run(k);
    }
    int axis = fz_u8(&f) & 1 ? fz_xint(&f) : fz_u8(&f) % LG_MAX_NDIMS;
    int64_t group = fz_u8(&f) & 1 ? fz_x64(&f) : 1;
    if (named(lg_shuffle_create(&k, LG_FORWARD, &md, axis, group), "lg_shuffle_create") == LG_OK) {
        if (!valid) fz_fail(T, "lg_shuffle_create accepted an invalid md");
        run(k);
    }
    lg_eltwise_alg alg = (lg_eltwise_alg)(fz_u8(&f) & 1 ? fz_xint(&f) : fz_u8(&f) % 16);
    float alpha = lg_xfloat_at(fz_u8(&f));
    if (named(lg_eltwise_create(&k, alg, alpha, 0.5f, &md, NULL), "lg_eltwise_create") == LG_OK) {
        if (!valid) fz_fail(T, "lg_eltwise_create accepted an invalid md");
        run(k);
    }
    lg_binary_alg balg = (lg_binary_alg)(fz_u8(&f) & 1 ? fz_xint(&f) : fz_u8(&f) % 6);
    if (named(lg_binary_create(&k, balg, &md, &good, &anyd), "lg_binary_create") == LG_OK) {
        if (!valid) fz_fail(T, "lg_binary_create accepted an invalid src0");
        run(k);
    }
    /* Conv: md as src, "any" weights and dst of a 1x1 (or extreme) geometry.
     * Not for a valid md above the buffer limit: the typed (s8/u8/bf16/f16)
     * path allocates f32 copies of its tensors at creation, as execution
     * may not allocate, and a valid 2 GB s8 view makes that 8 GB. */
    if (nd >= 3 && nd <= 5 && (!valid || lg_md_size(&md) <= 4 * FZ_MAX_BYTES)) {
        lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
        int64_t *fields[5] = {p.strides, p.dilates, p.pad_l, p.pad_r, &p.groups};
        if (fz_u8(&f) & 1) fields[fz_u8(&f) % 5][0] = fz_x64(&f);
        int64_t wd[LG_MAX_NDIMS], od[LG_MAX_NDIMS];
        wd[0] = 4;
        wd[1] = dims[1];
        od[0] = dims[0];
        od[1] = 4;
        for (int d = 2; d < nd; d++) {
            wd[d] = 1;
            od[d] = dims[d];
        }
        lg_md wei, dst;
        if (lg_md_init_tag(&wei, nd, wd, LG_F32, "any") == LG_OK &&
            lg_md_init_tag(&dst, nd, od, LG_F32, "any") == LG_OK &&
            named(lg_conv_create(&k, &p, &md, &wei, NULL, &dst, NULL), "lg_conv_create") == LG_OK) {
            if (!valid) fz_fail(T, "lg_conv_create accepted an invalid src");
            run(k);
        }
    }
graph:;
    lg_graph *g;
    if (lg_graph_create(&g) != LG_OK) goto out;
    lg_value v, x;
    refused(lg_graph_add_input(g, "in", &md, &v), "lg_graph_add_input", valid);
    size_t bytes = lg_md_size(&md);
    if (valid && bytes <= 4 * FZ_MAX_BYTES) {
        void *buf = calloc(1, bytes ? bytes : 1);
        if (!buf) abort();
        named(lg_graph_add_constant(g, "c", &md, buf, &v), "lg_graph_add_constant");
        free(buf);
    }
    if (lg_graph_add_input(g, "x", &good, &x) == LG_OK)
        refused(lg_graph_add_reorder(g, x, &md, NULL, &v), "lg_graph_add_reorder", valid);
    lg_graph_destroy(g);
out:
    fz_end();
    return 0;
}
