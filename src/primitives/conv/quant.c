/* lg_conv_create for other data types and quantisation attributes: the
 * checks, the kernel object and the conversion path (quant.h). */
#include "primitives/conv/quant.h"

#include "memory/convert.h"
#include "primitives/cache.h"
#include "primitives/layout.h"
#include "primitives/simd/cvt.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define CQ_ERR(status, ...) lg__error((status), where, __VA_ARGS__)

/* Largest sum of |products| an f32 accumulation keeps exact. */
#define EXACT_F32 16777216.0

static bool is_float(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

bool lg__convq_wanted(const lg_md *src, const lg_md *weights, const lg_md *bias, const lg_md *dst,
                      const lg_attr *attr) {
    if (src->dtype != LG_F32 || weights->dtype != LG_F32 || dst->dtype != LG_F32 ||
        (bias && bias->dtype != LG_F32))
        return true;
    if (!attr) return false;
    if (attr->scale_mask[0] >= 0 || attr->scale_mask[1] >= 0 || attr->scale_mask_wei >= 0 ||
        attr->zp_mask[0] >= 0 || attr->zp_mask[1] >= 0 || attr->zp_mask_wei >= 0)
        return true;
    for (int i = 0; i < attr->npost && i < LG_MAX_POST_OPS; i++)
        if (attr->post[i].kind == LG_POST_SUM_DT || lg__post_reads_tensor(attr->post[i].kind))
            return true;
    return false;
}

/* md with its type replaced by f32 ("any" stays "any"). */
static lg_md as_f32(const lg_md *md) {
    lg_md r = *md;
    r.dtype = LG_F32;
    return r;
}

static lg_md with_type(const lg_md *md, lg_dtype dt) {
    lg_md r = *md;
    r.dtype = dt;
    return r;
}

static lg_status check_types(const lg_md *src, const lg_md *wei, const lg_md *bias,
                             const lg_md *dst, const char *where, bool *int8) {
    lg_dtype s = src->dtype, w = wei->dtype, d = dst->dtype;
    *int8 = (s == LG_U8 || s == LG_S8) && w == LG_S8;
    if (!*int8 && !(is_float(s) && is_float(w)))
        return CQ_ERR(LG_UNIMPLEMENTED,
                      "src %s with weights %s: conv takes f32 / bf16 / f16 src and weights, or "
                      "u8 / s8 src with s8 weights",
                      lg_dtype_str(s), lg_dtype_str(w));
    if (!is_float(d) && d != LG_S32 && d != LG_S8 && d != LG_U8)
        return CQ_ERR(LG_UNIMPLEMENTED,
                      "dst data type %s: conv writes f32, bf16, f16, s32, s8 or u8",
                      lg_dtype_str(d));
    if (bias && !is_float(bias->dtype))
        return CQ_ERR(LG_UNIMPLEMENTED, "bias data type %s: conv takes an f32, bf16 or f16 bias",
                      lg_dtype_str(bias->dtype));
    return LG_OK;
}

/* The masks attr gives on the three slots, checked against oneDNN's
 * conv rules: src and dst scales common; weights scales common or per output
 * channel (1, or 3 with groups); zero points common, or per channel (2) on
 * src and dst; weights zero points common; zero points need int8. */
static lg_status check_quant(const lg_attr *attr, const lg_conv_params *p, bool int8,
                             const char *where, int32_t smask[3], int32_t zmask[3]) {
    for (int i = 0; i < 3; i++) smask[i] = zmask[i] = -1;
    if (!attr) return LG_OK;
    smask[LG_CQ_SRC] = attr->scale_mask[0];
    smask[LG_CQ_DST] = attr->scale_mask[1];
    smask[LG_CQ_WEI] = attr->scale_mask_wei;
    zmask[LG_CQ_SRC] = attr->zp_mask[0];
    zmask[LG_CQ_DST] = attr->zp_mask[1];
    zmask[LG_CQ_WEI] = attr->zp_mask_wei;
    static const char *const names[3] = {"src", "weights", "dst"};
    int per_oc = p->groups > 1 ? 3 : 1;
    for (int i = 0; i < 3; i++) {
        int m = smask[i];
        if (m > 0 && !(i == LG_CQ_WEI && m == per_oc))
            return CQ_ERR(
                LG_UNIMPLEMENTED, "%s scale mask 0x%x: conv takes common scales (0)%s", names[i], m,
                i == LG_CQ_WEI
                    ? (p->groups > 1 ? " or per output channel (3)" : " or per output channel (1)")
                    : "");
        m = zmask[i];
        if (m >= 0 && !int8)
            return CQ_ERR(LG_UNIMPLEMENTED, "%s zero points: conv takes them with u8 / s8 src only",
                          names[i]);
        if (m > 0 && !(i != LG_CQ_WEI && m == 2))
            return CQ_ERR(LG_UNIMPLEMENTED, "%s zero-point mask 0x%x: conv takes common (0)%s",
                          names[i], m, i != LG_CQ_WEI ? " or per channel (2) zero points" : "");
    }
    return LG_OK;
}

/* The chain: a sum with a type becomes a plain sum (its type and zero point
 * kept in q), binary post-ops checked against dst. */
static lg_status check_chain(const lg_attr *attr, const lg_md *dst, const char *where,
                             lg__convq_pd *q) {
    q->sum_dt = dst->dtype;
    if (!attr) return LG_OK;
    lg_attr a = *attr;
    a.scale_mask[0] = a.scale_mask[1] = a.scale_mask_wei = -1;
    a.zp_mask[0] = a.zp_mask[1] = a.zp_mask_wei = -1;
    int nsum = 0;
    for (int i = 0; i < a.npost && i < LG_MAX_POST_OPS; i++) {
        lg__post_op *op = &a.post[i];
        if (op->kind != LG_POST_SUM && op->kind != LG_POST_SUM_DT) continue;
        if (++nsum > 1)
            return CQ_ERR(LG_UNIMPLEMENTED, "attr has more than one sum: a typed conv takes one");
        if (op->kind == LG_POST_SUM_DT) {
            lg_dtype dt = op->alg == LG_DT_UNDEF ? dst->dtype : (lg_dtype)op->alg;
            if (lg_dtype_size(dt) != lg_dtype_size(dst->dtype) ||
                (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16 && dt != LG_S32 && dt != LG_S8 &&
                 dt != LG_U8))
                return CQ_ERR(LG_INVALID_ARGUMENT,
                              "attr post-op %d: a sum reading %s over a %s dst (sizes differ, or "
                              "not one of the six types)",
                              i, lg_dtype_str(dt), lg_dtype_str(dst->dtype));
            q->sum_dt = dt;
            q->sum_zp = op->zp;
            float beta = op->scale;
            memset(op, 0, sizeof *op);
            op->kind = LG_POST_SUM;
            op->scale = beta;
        }
    }
    return lg__po_spec_init(&q->po, &a, dst, where);
}

lg_status lg__convq_query(const lg_conv_params *p, const lg_md *src, const lg_md *weights,
                          const lg_md *bias, const lg_md *dst, const lg_attr *attr,
                          const char *where, lg__convq_pd *out) {
    LG_CHECK(lg__md_check(src, where, "src md"));
    LG_CHECK(lg__md_check(weights, where, "weights md"));
    LG_CHECK(lg__md_check(dst, where, "dst md"));
    if (bias) LG_CHECK(lg__md_check(bias, where, "bias md"));
    /* Typed or grouped scales / zero points and stochastic rounding are
     * the reorder's alone. */
    LG_CHECK(lg__attr_check_quant_plain(attr, "conv", where));
    lg__convq_pd q;
    memset(&q, 0, sizeof q);
    bool int8 = false;
    LG_CHECK(check_types(src, weights, bias, dst, where, &int8));
    if (p && p->alg == LG_CONV_WINOGRAD) /* exact int8 sums need the direct algorithm */
        return CQ_ERR(LG_UNIMPLEMENTED, "params alg winograd: Winograd convs are f32 only (this "
                                        "conv has other types or quantisation attributes)");
    /* Shapes, geometry and "any" as the f32 problem has them. */
    lg_md sf = as_f32(src), wf = as_f32(weights), df = as_f32(dst), bf;
    if (bias) bf = as_f32(bias);
    LG_CHECK(lg__conv_query(p, &sf, &wf, bias ? &bf : NULL, &df, NULL, where, &q.f));
    q.src = with_type(&q.f.src, src->dtype);
    q.wei = with_type(&q.f.wei, weights->dtype);
    q.dst = with_type(&q.f.dst, dst->dtype);
    if (bias) {
        q.has_bias = 1;
        q.bias = with_type(&q.f.bias, bias->dtype);
        memset(&q.f.bias, 0, sizeof q.f.bias);
        q.f.has_bias = 0;
    }
    q.int8 = int8;
    LG_CHECK(check_quant(attr, p, int8, where, q.smask, q.zmask));
    if (attr && attr->scale_mask_src1 >= 0)
        return CQ_ERR(LG_UNIMPLEMENTED, "attr has src1 scales: conv takes none");
    if (attr && (attr->comp_mask[0] >= 0 || attr->comp_mask[1] >= 0))
        return CQ_ERR(LG_UNIMPLEMENTED, "attr asks for a compensation: only reorders write one");
    LG_CHECK(check_chain(attr, &q.dst, where, &q));
    *out = q;
    return LG_OK;
}

/* ------------------------------------------------------------------------ */
/* Kernel                                                                   */
/* ------------------------------------------------------------------------ */

/* The f32 scratch of one execution, allocated and zeroed at creation (the
 * conversions write only logical elements, so padding stays zero): src,
 * weights and dst in f32, and for the split int8 mode the high parts of src
 * and dst (NULL when the problem can never take that mode). */
typedef struct convq_scratch {
    float *sf, *wf, *df, *sh, *dh;
} convq_scratch;

/* Scratch sets: an execution claims a free one with an atomic exchange;
 * when every set is taken (more concurrent executions of this kernel than
 * sets), it runs the scalar reference, which needs no buffer and gives the
 * same int8 results (float results: the reference's summation order). One
 * set: the memory one execution used to allocate, now held by the kernel. */
#define CQ_NSETS 1

typedef struct convq_kernel {
    lg__convq_pd q;
    lg__conv_tabs tabs;
    lg_kernel *inner; /* the f32 conv; NULL for an empty dst */
    int slot_scale[3], slot_zp[3], slot_src1[LG_MAX_POST_OPS];
    int slot_bias, slot_dst;
    int nsets; /* sets allocated (0 for an empty dst) */
    convq_scratch set[CQ_NSETS];
    atomic_int busy[CQ_NSETS];
} convq_kernel;

/* Convert the logical elements of md's buffer `in` (type md->dtype) into
 * out (f32, same layout, zeroed beforehand): v - zp[channel] (zp NULL: 0);
 * with split, out gets v's low 4 bits (v - 16 * floor(v / 16)) and hi
 * floor(v / 16). tab: md's tables over its dims. */
static void to_f32(const lg_md *md, const int64_t *tab, const void *in, float *out,
                   const int32_t *zp, bool zp_per_c, bool split, float *hi) {
    int nd = md->ndims;
    int64_t n = lg__md_nelems(md);
    if (n == 0) return;
    const int64_t *t[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) t[d] = lg__offtab_dim(tab, d);
    int64_t inner = md->dims[nd - 1], outer = n / inner;
    lg_dtype dt = md->dtype;
    size_t es = lg_dtype_size(dt);
    int nthr = outer > 1 && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1)
    for (int64_t r = 0; r < outer; r++) {
        int64_t rem = r, base = md->offset0, c = 0;
        for (int d = nd - 2; d >= 0; d--) {
            int64_t i = rem % md->dims[d];
            rem /= md->dims[d];
            base += t[d][i];
            if (d == 1) c = i;
        }
        float z = zp ? (float)zp[zp_per_c ? c : 0] : 0.0f;
        for (int64_t i = 0; i < inner; i++) {
            int64_t off = base + t[nd - 1][i];
            float v;
            if (dt == LG_U8)
                v = (float)((const uint8_t *)in)[off];
            else if (dt == LG_S8)
                v = (float)((const int8_t *)in)[off];
            else if (dt == LG_BF16)
                v = lg__bf16_to_f32(((const uint16_t *)in)[off]);
            else
                lg__cvt_scalar(dt, (const char *)in + off * (int64_t)es, LG_F32, &v, 1);
            v = v - z;
            if (split) {
                float h = floorf(v / 16.0f);
                out[off] = v - 16.0f * h;
                hi[off] = h;
            } else {
                out[off] = v;
            }
        }
    }
}

/* max |v - zp| over the values of type dt and the zero points given. */
static double max_abs(lg_dtype dt, const int32_t *zp, int64_t nzp) {
    double lo = dt == LG_U8 ? 0 : -128, hi = dt == LG_U8 ? 255 : 127, m = 0;
    for (int64_t i = 0; i < (zp ? nzp : 1); i++) {
        double z = zp ? zp[i] : 0;
        m = fmax(m, fmax(fabs(lo - z), fabs(hi - z)));
    }
    return m;
}

static lg_status run_inner(const convq_kernel *c, float *src, float *wei, float *dst) {
    lg_arg args[3] = {{LG_ARG_SRC, src}, {LG_ARG_WEIGHTS, wei}, {LG_ARG_DST, dst}};
    return lg_kernel_execute(c->inner, 3, args);
}

static void *scratch(const lg_md *md) {
    size_t n = lg_md_size(md);
    void *p = lg__aligned_alloc(64, n ? (n + 63) / 64 * 64 : 64);
    if (p) memset(p, 0, n);
    return p;
}

/* K = IC/G * kernel size: the products one output sums. */
static double reduction(const lg__convq_pd *q) {
    lg__conv_shape s;
    lg__conv_shape_of(&q->f, &s);
    return (double)s.icg * (double)s.kd * (double)s.kh * (double)s.kw;
}

/* Whether an execution of q may take the split int8 mode: its smallest
 * high part (15) times the smallest weight bound (128) fits f32, and no
 * zero points given at creation make the one-convolution mode certain. */
static bool may_split(const lg__convq_pd *q) {
    if (!q->int8) return false;
    double k = reduction(q), mw = 128.0;
    if (k * 15.0 * mw > EXACT_F32) return false;
    bool fixed = q->zmask[LG_CQ_SRC] < 0 && q->zmask[LG_CQ_WEI] < 0;
    return !(fixed && k * max_abs(q->src.dtype, NULL, 0) * mw <= EXACT_F32);
}

static void scratch_free(convq_scratch *x) {
    lg__free(x->sf);
    lg__free(x->wf);
    lg__free(x->df);
    lg__free(x->sh);
    lg__free(x->dh);
    memset(x, 0, sizeof *x);
}

static lg_status scratch_init(const lg__convq_pd *q, convq_scratch *x) {
    bool split = may_split(q);
    x->sf = scratch(&q->f.src);
    x->wf = scratch(&q->f.wei);
    x->df = scratch(&q->f.dst);
    if (split) {
        x->sh = scratch(&q->f.src);
        x->dh = scratch(&q->f.dst);
    }
    if (!x->sf || !x->wf || !x->df || (split && (!x->sh || !x->dh))) {
        scratch_free(x);
        return LG_OUT_OF_MEMORY;
    }
    return LG_OK;
}

/* The conversion path on scratch set x (see quant.h), or the reference when
 * the sums would not be exact even split. */
static lg_status fast(const convq_kernel *c, const lg__convq_args *a, const convq_scratch *x) {
    const lg__convq_pd *q = &c->q;
    lg__conv_shape s;
    lg__conv_shape_of(&q->f, &s);
    int mode = 0; /* 0: one f32 conv, 1: split, 2: reference */
    if (q->int8) {
        double k = reduction(q);
        double ms = max_abs(q->src.dtype, a->zp[LG_CQ_SRC], lg__convq_count(q, LG_CQ_SRC, true));
        double mw = max_abs(LG_S8, a->zp[LG_CQ_WEI], 1);
        double mh = fmax(15.0, ceil(ms / 16.0));
        mode = k * ms * mw <= EXACT_F32 ? 0 : k * mh * mw <= EXACT_F32 && x->sh ? 1 : 2;
    }
    if (mode == 2) {
        lg__convq_ref(q, &c->tabs, a);
        return LG_OK;
    }
    float *sf = x->sf, *wf = x->wf, *df = x->df, *sh = x->sh, *dh = x->dh;
    lg_status st;
    to_f32(&q->src, c->tabs.raw[0], a->src, sf, a->zp[LG_CQ_SRC], q->zmask[LG_CQ_SRC] > 0, mode,
           sh);
    to_f32(&q->wei, c->tabs.raw[1], a->wei, wf, a->zp[LG_CQ_WEI], false, false, NULL);
    st = run_inner(c, sf, wf, df);
    if (st == LG_OK && mode) st = run_inner(c, sh, wf, dh);
    if (st != LG_OK) return st;
    const int64_t *const *td = c->tabs.dst;
    int nsp = q->f.nsp;
    int64_t rows = s.n * s.oc * s.od * s.oh, o0 = q->f.dst.offset0;
    int nthr = rows > 1 && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1)
    for (int64_t r = 0; r < rows; r++) {
        int64_t n, oc, od, oh;
        lg__convq_row(&s, r, &n, &oc, &od, &oh);
        int64_t base = td[0][n] + td[1][oc] + td[2][od] + td[3][oh];
        int64_t idx[5] = {n, oc, 0, 0, 0};
        for (int64_t ow = 0; ow < s.ow; ow++) {
            const int64_t sp[3] = {od, oh, ow};
            for (int i = 0; i < nsp; i++) idx[2 + i] = sp[3 - nsp + i];
            int64_t off = base + td[4][ow];
            float acc = df[o0 + off];
            if (mode) acc = (float)(16 * (int64_t)dh[o0 + off] + (int64_t)acc);
            lg__convq_store(q, a, acc, idx, off);
        }
    }
    if (lg__md_has_padding(&q->dst)) lg__zero_padding(&q->dst, c->tabs.raw[2], a->dst);
    return LG_OK;
}

static lg_status convq_execute(const lg_kernel *k, void *const *bufs) {
    convq_kernel *c = k->data; /* only the busy flags change */
    lg__convq_args a;
    memset(&a, 0, sizeof a);
    a.src = bufs[0];
    a.wei = bufs[1];
    a.bias = c->slot_bias >= 0 ? bufs[c->slot_bias] : NULL;
    a.dst = bufs[c->slot_dst];
    for (int i = 0; i < 3; i++) {
        if (c->slot_scale[i] >= 0) a.scale[i] = bufs[c->slot_scale[i]];
        if (c->slot_zp[i] >= 0) a.zp[i] = bufs[c->slot_zp[i]];
    }
    for (int i = 0; i < LG_MAX_POST_OPS; i++)
        if (c->slot_src1[i] >= 0) a.src1[i] = bufs[c->slot_src1[i]];
    if (!c->inner) return LG_OK; /* empty dst */
    for (int i = 0; i < c->nsets; i++)
        if (!atomic_exchange(&c->busy[i], 1)) {
            lg_status st = fast(c, &a, &c->set[i]);
            atomic_store(&c->busy[i], 0);
            return st;
        }
    lg__convq_ref(&c->q, &c->tabs, &a); /* every set taken */
    return LG_OK;
}

static void convq_destroy(lg_kernel *k) {
    convq_kernel *c = k->data;
    if (!c) return;
    lg__conv_tabs_free(&c->tabs);
    for (int i = 0; i < c->nsets; i++) scratch_free(&c->set[i]);
    lg_kernel_destroy(c->inner);
    lg__free(c);
}

static const lg__kernel_ops convq_ops = {convq_execute, convq_destroy};

static lg_status build_convq(const void *problem, lg_kernel **out) {
    static const char where[] = "lg_conv_create";
    const lg__convq_pd *q = problem;
    int nbin = lg__po_ntensors(&q->po);
    lg_kernel *k = lg__kernel_new_slots(LG_KIND_CONV, &convq_ops, sizeof(convq_kernel), 10 + nbin);
    if (!k) return CQ_ERR(LG_OUT_OF_MEMORY, "cannot allocate a conv kernel");
    convq_kernel *c = k->data;
    c->q = *q;
    bool empty = lg__md_nelems(&q->dst) == 0;
    if (!empty) {
        lg_conv_params p;
        memset(&p, 0, sizeof p);
        p.groups = q->f.groups;
        for (int i = 0; i < q->f.nsp; i++) {
            p.strides[i] = q->f.strides[i];
            p.dilates[i] = q->f.dilates[i];
            p.pad_l[i] = q->f.pad_l[i];
            p.pad_r[i] = q->f.pad_r[i];
        }
        lg_status st = lg_conv_create(&c->inner, &p, &q->f.src, &q->f.wei, NULL, &q->f.dst, NULL);
        if (st == LG_OK && lg__conv_tabs_init(&q->f, &c->tabs) != LG_OK) st = LG_OUT_OF_MEMORY;
        for (int i = 0; st == LG_OK && i < CQ_NSETS; i++) {
            atomic_init(&c->busy[i], 0);
            st = scratch_init(q, &c->set[i]);
            if (st == LG_OK) c->nsets = i + 1;
        }
        if (st != LG_OK) {
            lg_kernel_destroy(k);
            return CQ_ERR(st, "cannot build the conv's f32 kernel or tables");
        }
    }
    const char *inner = c->inner ? lg_kernel_impl(c->inner) : "conv:empty";
    snprintf(k->impl, sizeof k->impl, "%s:%s", inner, q->int8 ? "int8" : "cvt");
    char sd[96], wd[96], dd[96];
    lg__md_describe(&q->src, sd, sizeof sd);
    lg__md_describe(&q->wei, wd, sizeof wd);
    lg__md_describe(&q->dst, dd, sizeof dd);
    snprintf(k->desc, sizeof k->desc, "src:%.70s wei:%.70s dst:%.70s g%lld%s post:%d", sd, wd, dd,
             (long long)q->f.groups, q->has_bias ? " bias" : "", q->po.npost);
    lg__kernel_add_slot(k, LG_ARG_SRC, true, &q->src, 0);
    lg__kernel_add_slot(k, LG_ARG_WEIGHTS, true, &q->wei, 0);
    c->slot_bias = q->has_bias ? lg__kernel_add_slot(k, LG_ARG_BIAS, true, &q->bias, 0) : -1;
    c->slot_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &q->dst, 0);
    static const int args[3] = {LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_DST};
    for (int i = 0; i < 3; i++) {
        int64_t n = lg__convq_count(q, i, false);
        c->slot_scale[i] = q->smask[i] >= 0 ? lg__kernel_add_slot(k, LG_ARG_ATTR_SCALES | args[i],
                                                                  true, NULL, (size_t)n * 4)
                                            : -1;
        n = lg__convq_count(q, i, true);
        c->slot_zp[i] = q->zmask[i] >= 0 ? lg__kernel_add_slot(k, LG_ARG_ATTR_ZERO_POINTS | args[i],
                                                               true, NULL, (size_t)n * 4)
                                         : -1;
    }
    for (int i = 0; i < LG_MAX_POST_OPS; i++) c->slot_src1[i] = -1;
    lg__po_add_slots(k, &q->po, c->slot_src1);
    *out = k;
    return LG_OK;
}

lg_status lg__convq_create(lg_kernel **k, const lg_conv_params *p, const lg_md *src,
                           const lg_md *weights, const lg_md *bias, const lg_md *dst,
                           const lg_attr *attr) {
    lg__convq_pd q;
    LG_CHECK(lg__convq_query(p, src, weights, bias, dst, attr, "lg_conv_create", &q));
    return lg__cache_get(LG_KIND_CONV, &q, sizeof q, build_convq, k);
}
