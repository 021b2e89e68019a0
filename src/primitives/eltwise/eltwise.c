/* lg_eltwise_create: validate, canonicalise into the cache key, choose the
 * path, and the execution driver.
 *
 * Paths (impl "eltwise:<isa>:<path>"):
 *  - dense: the md is dense (blocked or plain, padding allowed): one stretch
 *    over the whole physical buffer, split across threads in 64-byte pieces.
 *    The padding of src holds zeros, so dst's padding gets f(0); where
 *    f(+0) is not +0 in the data type the padding is zeroed again afterwards
 *    (lg__zero_padding, cost proportional to the padding).
 *  - strided: a plain md with gaps or an offset: rows along the dim of
 *    smallest stride, split across threads by rows; a row of stride 1 in f32
 *    runs the kernel directly, others go through a small f32 stack buffer.
 *  - "eltwise:ref": a blocked md with gaps (only hand-made mds): the
 *    reference itself.
 * f16 and bf16 runs of stride 1 go through the ISA's half kernel, which
 * converts in registers. Other cases of types other than f32 go through a
 * stack buffer of CHUNK elements, the kernel running on f32: contiguous runs
 * (integer types) with the ISA's vector conversions (reorder/cvt.h),
 * strided ones element by element. All are convert.h's, bit for bit. The ISA's f32 kernel is
 * chosen at creation from lg__cpu_isa(); the cache keys on the ISA too.
 *
 * With a post-op chain (lg_eltwise_create_attr): a dense md runs the dense
 * path a chunk at a time through an f32 buffer, f then the chain
 * (binary/postops.h) on the ISA's kernels, then one conversion into dst,
 * and dst's padding zeroed afterwards; other layouts run the reference with
 * the chain ("eltwise:ref"). */
#include "primitives/eltwise/eltwise.h"

#include "memory/convert.h"
#include "primitives/attr.h"
#include "primitives/postops.h"
#include "primitives/cache.h"
#include "primitives/layout.h"
#include "primitives/simd/cvt.h"

#include <omp.h>
#include <string.h>
#include <xmmintrin.h>

/* Bytes touched (src + dst) from which out-of-place f32 stretches use
 * non-temporal stores: about the size of a server last-level cache (35.75
 * MiB on the development machine), where a later reader would find little
 * of dst in cache anyway and the stores' read-for-ownership is pure cost. */
#define STREAM_FOOTPRINT (32ll * 1024 * 1024)
/* Work (elements times the algorithm's cost) from which all threads run. */
#define PAR_WORK 24576
/* Elements converted per step for non-f32 types and strided rows. */
#define CHUNK 512

enum { MODE_DENSE, MODE_STRIDED, MODE_REF };

/* The cache key: the problem and its post-op chain (empty without one). */
typedef struct eltwise_key {
    lg__eltwise_pd pd;
    lg__po_spec po;
} eltwise_key;

typedef struct eltwise_data {
    lg__eltwise_pd pd;
    lg__eltwise_f32_fn f32;
    lg__cvt_fn cvt;           /* the ISA's row conversions (integer types) */
    lg__eltwise_half_fn half; /* the ISA's f16 / bf16 kernel (NULL: scalar) */
    int mode;
    int cost;      /* relative cost per element: 1 cheap, 12 transcendental */
    bool vector;   /* an AVX2 / AVX-512 kernel (non-temporal stores possible) */
    bool zero_pad; /* dense with padding and f(+0) is not +0 */
    int64_t n;     /* dense: elements of the buffer */
    /* strided: rows of rlen elements (stride rstride) over the outer dims */
    int nouter;
    int64_t oext[LG_MAX_NDIMS], ost[LG_MAX_NDIMS];
    int64_t rows, rlen, rstride;
    int64_t *padtab; /* offset tables over the padded dims, for zero_pad */
    /* the post-op chain: spec, the dense path's plan, each binary op's slot */
    lg__po_spec po;
    lg__po_plan *pp;
    int po_slot[LG_MAX_POST_OPS];
} eltwise_data;

static const char *alg_name(int alg) {
    static const char *const names[] = {
        "relu",      "elu",         "tanh", "logistic", "gelu_tanh", "gelu_erf", "swish",
        "exp",       "log",         "abs",  "sqrt",     "square",    "linear",   "clip",
        "hardswish", "hardsigmoid", "pow",  "clip_v2",  "round",     "mish",     "soft_relu"};
    return alg >= 0 && alg < (int)(sizeof names / sizeof names[0]) ? names[alg] : "unknown";
}

const char *lg__eltwise_alg_str(int alg) {
    return alg_name(alg);
}

/* Which of alpha (bit 0) and beta (bit 1) the algorithm reads. */
static int alg_params(int alg) {
    switch ((lg_eltwise_alg)alg) {
    case LG_ELTWISE_RELU:
    case LG_ELTWISE_ELU:
    case LG_ELTWISE_SWISH:
    case LG_ELTWISE_SOFT_RELU:
        return 1;
    case LG_ELTWISE_LINEAR:
    case LG_ELTWISE_CLIP:
    case LG_ELTWISE_CLIP_V2:
    case LG_ELTWISE_POW:
    case LG_ELTWISE_HARDSWISH:
    case LG_ELTWISE_HARDSIGMOID:
        return 3;
    default:
        return 0;
    }
}

static int alg_cost(int alg) {
    switch ((lg_eltwise_alg)alg) {
    case LG_ELTWISE_ELU:
    case LG_ELTWISE_TANH:
    case LG_ELTWISE_LOGISTIC:
    case LG_ELTWISE_GELU_TANH:
    case LG_ELTWISE_GELU_ERF:
    case LG_ELTWISE_SWISH:
    case LG_ELTWISE_EXP:
    case LG_ELTWISE_LOG:
        return 12;
    case LG_ELTWISE_POW:
    case LG_ELTWISE_MISH:
    case LG_ELTWISE_SOFT_RELU:
        return 40; /* libm in double, lane by lane */
    default:
        return 1;
    }
}

/* f over len elements at element offset off (stride apart) of src / dst. */
static void run_stretch(const eltwise_data *e, const void *src, void *dst, int64_t off,
                        int64_t stride, int64_t len, bool stream) {
    lg_dtype dt = e->pd.md.dtype;
    if (dt == LG_F32 && stride == 1) {
        const float *s = (const float *)src + off;
        float *d = (float *)dst + off;
        if (stream && ((uintptr_t)d & 3) == 0) {
            int64_t head = (int64_t)((64 - ((uintptr_t)d & 63)) & 63) / 4;
            head = head < len ? head : len;
            e->f32(&e->pd, s, d, head, false);
            e->f32(&e->pd, s + head, d + head, len - head, true);
        } else {
            e->f32(&e->pd, s, d, len, false);
        }
        return;
    }
    const int64_t esz = (int64_t)lg_dtype_size(dt);
    if ((dt == LG_F16 || dt == LG_BF16) && stride == 1 && e->half) {
        e->half(&e->pd, (const char *)src + off * esz, (char *)dst + off * esz, len);
        return;
    }
    float buf[CHUNK];
    for (int64_t i = 0; i < len; i += CHUNK) {
        int64_t m = len - i < CHUNK ? len - i : CHUNK;
        int64_t o = off + i * stride;
        if (stride == 1) { /* the ISA's vector conversions */
            e->cvt(dt, (const char *)src + o * esz, LG_F32, buf, m);
            e->f32(&e->pd, buf, buf, m, false);
            e->cvt(LG_F32, buf, dt, (char *)dst + o * esz, m);
            continue;
        }
        for (int64_t j = 0; j < m; j++) buf[j] = lg__load_f32(src, dt, o + j * stride);
        e->f32(&e->pd, buf, buf, m, false);
        for (int64_t j = 0; j < m; j++) lg__store_f32(dst, dt, o + j * stride, buf[j]);
    }
}

/* Rows [r0, r1) of the strided path. */
static void run_rows(const eltwise_data *e, const void *src, void *dst, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        int64_t off = e->pd.md.offset0, q = r;
        for (int i = e->nouter - 1; i >= 0; i--) {
            off += (q % e->oext[i]) * e->ost[i];
            q /= e->oext[i];
        }
        run_stretch(e, src, dst, off, e->rstride, e->rlen, false);
    }
}

/* Dense positions [lo, hi) with the chain: f, the chain, one store, a
 * chunk at a time. */
static void run_stretch_po(const eltwise_data *e, const void *src, void *dst, int64_t lo,
                           int64_t hi, const void *const *s1) {
    float acc[LG_PO_CHUNK];
    for (int64_t x = lo; x < hi; x += LG_PO_CHUNK) {
        int64_t m = hi - x < LG_PO_CHUNK ? hi - x : LG_PO_CHUNK;
        lg__po_load(e->pp, e->pd.md.dtype, src, x, m, acc);
        e->f32(&e->pd, acc, acc, m, false);
        lg__po_run(e->pp, acc, x, m, dst, s1);
        lg__po_store(e->pp, acc, dst, x, m);
    }
}

static lg_status eltwise_execute(const lg_kernel *k, void *const *bufs) {
    const eltwise_data *e = k->data;
    const void *src = bufs[0];
    void *dst = bufs[1];
    const void *s1[LG_MAX_POST_OPS] = {NULL};
    for (int i = 0; i < e->po.npost; i++)
        if (e->po_slot[i] >= 0) s1[i] = bufs[e->po_slot[i]];
    if (e->mode == MODE_REF) {
        lg__eltwise_ref_po(&e->pd, &e->po, src, dst, s1);
        return LG_OK;
    }
    int64_t total = e->mode == MODE_DENSE ? e->n : e->rows * e->rlen;
    if (total == 0) return LG_OK;
    bool stream = e->mode == MODE_DENSE && e->vector && e->pd.md.dtype == LG_F32 && src != dst &&
                  2 * e->n * 4 >= STREAM_FOOTPRINT && !e->pp;
    int nthr = total * e->cost >= PAR_WORK && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (e->mode == MODE_DENSE) {
            /* Pieces of 16 elements: whole cache lines for f32. */
            int64_t blocks = (e->n + 15) / 16;
            int64_t lo = blocks * t / nt * 16, hi = blocks * (t + 1) / nt * 16;
            hi = hi < e->n ? hi : e->n;
            if (lo < hi && e->pp)
                run_stretch_po(e, src, dst, lo, hi, s1);
            else if (lo < hi)
                run_stretch(e, src, dst, lo, 1, hi - lo, stream);
            if (stream) _mm_sfence();
        } else {
            run_rows(e, src, dst, e->rows * t / nt, e->rows * (t + 1) / nt);
        }
    }
    if (e->zero_pad) lg__zero_padding(&e->pd.md, e->padtab, dst);
    return LG_OK;
}

static void eltwise_destroy(lg_kernel *k) {
    eltwise_data *e = k->data;
    if (e) {
        lg__free(e->padtab);
        if (e->pp) lg__po_plan_free(e->pp);
        lg__free(e->pp);
    }
    lg__free(e);
}

static const lg__kernel_ops eltwise_ops = {eltwise_execute, eltwise_destroy};

/* True if f(+0) stored in the md's type is not all zero bits. */
static bool f0_nonzero(const lg__eltwise_pd *pd) {
    unsigned char b[4] = {0};
    lg__store_f32(b, pd->md.dtype, 0, lg__eltwise_fwd(pd->alg, pd->alpha, pd->beta, 0.0f));
    return b[0] | b[1] | b[2] | b[3];
}

/* Choose the path and fill its fields; impl gets the path's name. */
static lg_status plan(eltwise_data *e, const char **path) {
    const lg_md *md = &e->pd.md;
    if (lg__md_nelems(md) == 0) {
        e->mode = MODE_DENSE;
        *path = "dense";
        return LG_OK;
    }
    if (e->po.npost && !lg__md_is_dense(md)) {
        e->mode = MODE_REF;
        *path = NULL;
        return LG_OK;
    }
    if (lg__md_is_dense(md)) {
        e->mode = MODE_DENSE;
        e->n = lg__md_nelems_padded(md);
        *path = "dense";
        if (e->po.npost) {
            e->pp = lg__malloc(sizeof *e->pp);
            if (!e->pp) return LG_OUT_OF_MEMORY;
            lg_status st = lg__po_plan_init(e->pp, &e->po, md, lg__cpu_isa());
            if (st != LG_OK) return st;
            *path = "dense_po";
        }
        if (lg__md_has_padding(md) && (e->po.npost || f0_nonzero(&e->pd))) {
            e->zero_pad = true;
            e->padtab = lg__offtab_new(md, md->padded_dims, false);
            if (!e->padtab) return LG_OUT_OF_MEMORY;
        }
        return LG_OK;
    }
    if (md->blocking.inner_nblks != 0) {
        e->mode = MODE_REF;
        *path = NULL;
        return LG_OK;
    }
    /* Plain with gaps: rows along the smallest stride, outer dims by
     * decreasing stride. */
    e->mode = MODE_STRIDED;
    *path = "strided";
    int nd = md->ndims, rd = -1;
    for (int d = 0; d < nd; d++)
        if (md->dims[d] > 1 && (rd < 0 || md->blocking.strides[d] < md->blocking.strides[rd]))
            rd = d;
    e->rlen = rd >= 0 ? md->dims[rd] : 1;
    e->rstride = rd >= 0 ? md->blocking.strides[rd] : 1;
    e->rows = 1;
    bool used[LG_MAX_NDIMS] = {false};
    for (;;) {
        int best = -1;
        for (int d = 0; d < nd; d++)
            if (d != rd && !used[d] && md->dims[d] > 1 &&
                (best < 0 || md->blocking.strides[d] > md->blocking.strides[best]))
                best = d;
        if (best < 0) break;
        used[best] = true;
        e->oext[e->nouter] = md->dims[best];
        e->ost[e->nouter++] = md->blocking.strides[best];
        e->rows *= md->dims[best];
    }
    return LG_OK;
}

static lg_status build_eltwise(const void *problem, lg_kernel **out) {
    const eltwise_key *key = problem;
    const lg__eltwise_pd *pd = &key->pd;
    int nbin = lg__po_ntensors(&key->po);
    lg_kernel *k =
        lg__kernel_new_slots(LG_KIND_ELTWISE, &eltwise_ops, sizeof(eltwise_data), 2 + nbin);
    if (!k)
        return lg__error(LG_OUT_OF_MEMORY, "lg_eltwise_create",
                         "cannot allocate an eltwise kernel");
    eltwise_data *e = k->data;
    e->pd = *pd;
    e->po = key->po;
    e->cost = alg_cost(pd->alg) + 2 * key->po.npost;
    lg__isa isa = lg__cpu_isa();
    e->f32 = isa == LG_ISA_AVX512 ? lg__eltwise_f32_avx512
             : isa == LG_ISA_AVX2 ? lg__eltwise_f32_avx2
                                  : lg__eltwise_f32_scalar;
    e->vector = isa != LG_ISA_SCALAR;
    e->cvt = lg__cvt_for_isa(isa);
    e->half = isa == LG_ISA_AVX512 ? lg__eltwise_half_avx512
              : isa == LG_ISA_AVX2 ? lg__eltwise_half_avx2
                                   : NULL;
    const char *path = NULL;
    if (plan(e, &path) != LG_OK) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_eltwise_create",
                         "cannot allocate an eltwise padding table or post-op plan");
    }
    if (path)
        snprintf(k->impl, sizeof k->impl, "eltwise:%s:%s", lg__isa_name(isa), path);
    else
        snprintf(k->impl, sizeof k->impl, "eltwise:ref");
    char md[96];
    lg__md_describe(&pd->md, md, sizeof md);
    int n = snprintf(k->desc, sizeof k->desc, "alg:%s alpha:%g beta:%g src:%s dst:%s",
                     alg_name(pd->alg), (double)pd->alpha, (double)pd->beta, md, md);
    if (key->po.npost && n > 0 && n < (int)sizeof k->desc)
        snprintf(k->desc + n, sizeof k->desc - (size_t)n, " post-ops:%d", (int)key->po.npost);
    k->inplace_src = lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->md, 0);
    k->inplace_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->md, 0);
    lg__po_add_slots(k, &e->po, e->po_slot);
    *out = k;
    return LG_OK;
}

/* The creator behind lg_eltwise_create and lg_eltwise_create_attr; errors
 * name `fn`, the public function the caller called. */
static lg_status create(lg_kernel **k, lg_eltwise_alg alg, float alpha, float beta,
                        const lg_md *src, const lg_md *dst, const lg_attr *attr, const char *fn) {
    if (!k) return lg__error(LG_INVALID_ARGUMENT, fn, "kernel pointer is NULL");
    LG_CHECK(lg__md_check(src, fn, "src md"));
    if (lg_md_is_any(src)) return lg__error(LG_INVALID_ARGUMENT, fn, "src md is 'any'");
    bool ints;
    if (!lg__eltwise_alg_known((int)alg, &ints))
        return lg__error(LG_INVALID_ARGUMENT, fn, "alg %d is not an lg_eltwise_alg", (int)alg);
    if (dst) {
        LG_CHECK(lg__md_check(dst, fn, "dst md"));
        if (lg_md_is_any(dst)) {
            bool same = dst->ndims == src->ndims && dst->dtype == src->dtype;
            for (int d = 0; same && d < src->ndims; d++) same = dst->dims[d] == src->dims[d];
            if (!same)
                return lg__error(LG_INVALID_ARGUMENT, fn,
                                 "dst md ('any') differs from src md in dims or data type");
        } else if (!lg_md_equal(src, dst)) {
            return lg__error(LG_INVALID_ARGUMENT, fn,
                             "dst md differs from src md (eltwise keeps dims, type and layout)");
        }
    }
    if (alg == LG_ELTWISE_SOFT_RELU && !(alpha != 0.0f))
        return lg__error(LG_INVALID_ARGUMENT, fn, "alg soft_relu divides by alpha, which is %g",
                         (double)alpha);
    lg_dtype dt = src->dtype;
    if (dt == LG_F8_E4M3 || dt == LG_F8_E5M2)
        return lg__error(LG_UNIMPLEMENTED, fn,
                         "src data type %s: eltwise takes f32, bf16, f16, s32, s8 and u8 (reorder "
                         "f8 to f16 or f32 first)",
                         lg_dtype_str(dt));
    if (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16 && !ints)
        return lg__error(LG_UNIMPLEMENTED, fn,
                         "alg %s on %s src: integer types take relu, linear, clip, clip_v2, abs "
                         "and round only",
                         alg_name((int)alg), lg_dtype_str(dt));
    if (attr) {
        const char *what = NULL;
        for (int i = 0; i < 2 && !what; i++)
            what = attr->scale_mask[i] >= 0 ? "scales"
                   : attr->zp_mask[i] >= 0  ? "zero points"
                                            : NULL;
        if (!what && attr->scale_mask_src1 >= 0) what = "src1 scales";
        if (what)
            return lg__error(LG_UNIMPLEMENTED, fn, "attr has %s: eltwise takes post-ops only",
                             what);
        LG_CHECK(lg__attr_check_quant_plain(attr, "eltwise", fn));
    }
    eltwise_key key;
    memset(&key, 0, sizeof key);
    LG_CHECK(lg__po_spec_init(&key.po, attr, src, fn));
    lg__eltwise_pd *pd = &key.pd;
    lg__md_canon(src, &pd->md);
    pd->alg = (int32_t)alg;
    int used = alg_params((int)alg);
    pd->alpha = used & 1 ? alpha : 0.0f;
    pd->beta = used & 2 ? beta : 0.0f;
    return lg__cache_get(LG_KIND_ELTWISE, &key, sizeof key, build_eltwise, k);
}

lg_status lg_eltwise_create(lg_kernel **k, lg_eltwise_alg alg, float alpha, float beta,
                            const lg_md *src, const lg_md *dst) {
    return create(k, alg, alpha, beta, src, dst, NULL, __func__);
}

lg_status lg_eltwise_create_attr(lg_kernel **k, lg_eltwise_alg alg, float alpha, float beta,
                                 const lg_md *src, const lg_md *dst, const lg_attr *attr) {
    return create(k, alg, alpha, beta, src, dst, attr, __func__);
}
