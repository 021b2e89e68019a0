/* lg_binary_create: validate, canonicalise into the cache key, choose the
 * path, and the execution driver.
 *
 * Paths (impl "binary:<isa>:<path>" or "binary:generic"), for f32, bf16 and
 * f16 alike, each operand in its own type: the AVX2 / AVX-512 kernels have
 * typed forms that convert in registers; the scalar ones run on f32 through
 * stack buffers of CHUNK elements (reorder/cvt.h). All convert as convert.h,
 * bit for bit:
 *  - same_layout: src0, src1 and dst with one layout and the same dims,
 *    dense: one vector loop over the physical buffers, split across threads
 *    in 64-byte pieces. Padding holds zeros in both sources and 0 op 0 = +0
 *    for every algorithm but div, ge, le and eq, whose padding is zeroed
 *    again afterwards.
 *  - bcast_channel: src0 and dst in one layout, "abx" (nchw-like) or
 *    "aBx<k>b" (nChw16c-like); src1 of dims 1 x C x 1 ... (per-channel)
 *    or all 1 (scalar), any layout. Each (n, channel block) row of S * k
 *    elements runs against a pattern of k src1 values; lanes of padded
 *    channels give +0.
 *  - bcast_last: src0 and dst channels-last ("axb", or "ab" in 2D), src1
 *    per-channel: the C values of src1 (gathered once per call into a tile
 *    of whole repeats, or read in place when f32 and contiguous) against
 *    each pixel's C contiguous elements.
 *  - bcast_scalar: src1 a single value, src0 and dst one dense layout that
 *    bcast_channel does not take: a tile of that value against the whole
 *    buffer; the padding is zeroed again afterwards.
 *  - generic: anything else (other layouts, other broadcasts, s8 / u8
 *    operands): per-dim
 *    offset tables (layout.h), scalar, split across threads by rows of the
 *    last dim, then dst's padding zeroed.
 * With scales or post-ops (lg_binary_create_attr):
 *  - attr: dst dense and src0 in dst's layout: chunks of dst's physical
 *    order through an f32 buffer: src0 (scaled), src1 read as a post-op
 *    operand (binary/postops.h: one value, in place, or gathered; scaled),
 *    the operation and the chain on the ISA's kernels, one store; dst's
 *    padding zeroed afterwards.
 *  - "binary:ref": any other layout: the reference with scales and chain. */
#include "primitives/binary/binary.h"

#include "memory/convert.h"
#include "primitives/postops.h"
#include "primitives/cache.h"
#include "primitives/layout.h"
#include "primitives/simd/cvt.h"

#include <omp.h>
#include <string.h>
#include <xmmintrin.h>

/* Bytes touched (src0 + src1 + dst for same_layout, src0 + dst for
 * bcast_channel) from which those paths use non-temporal stores (see
 * eltwise.c): the f32 nchw per-channel add of 8x256x56x56 went from 0.97 to
 * 1.17 of memcpy with them (0.99x -> 1.05x oneDNN). */
#define STREAM_FOOTPRINT (32ll * 1024 * 1024)
/* Elements from which all threads run. */
#define PAR_ELEMS 16384
/* Elements per conversion step: a multiple of every pattern length. */
#define CHUNK 512
/* Floats of the bcast_last / bcast_scalar tile (on the stack). */
#define TILE 2048

enum { MODE_SAME, MODE_CHANNEL, MODE_LAST, MODE_GENERIC, MODE_ATTR, MODE_REF };

/* The cache key: the problem, the scale masks of src0 and src1 (-1: none)
 * and the post-op chain (all unset without an attribute). */
typedef struct binary_key {
    lg__binary_pd pd;
    int32_t scale_mask[2];
    lg__po_spec po;
    int32_t select; /* lg_binary_create_select: cond is src2 */
    lg_md src2;
} binary_key;

typedef struct binary_data {
    lg__binary_pd pd;
    int mode;
    bool vector;
    bool f32; /* all three operands f32: no conversions */
    int vl;   /* lanes of the pattern kernel's vectors (1 for scalar) */
    lg__binary_vv_fn vv;
    lg__binary_pat_fn pat;
    lg__cvt_fn cvt;
    lg__binary_vv_dt_fn vv_dt; /* typed kernels (NULL: scalar ISA, through cvt) */
    lg__binary_pat_dt_fn pat_dt;
    int64_t n; /* same_layout: buffer elements */
    /* bcast_channel: rows (n, channel block) of len = S * k elements */
    int64_t k, cblocks, rows, len;
    /* bcast_last / bcast_scalar: pixels of `period` elements (C, or 1 for a
     * scalar), src1's values at s1off[c] (element offsets) */
    int64_t period, pixels;
    int64_t *s1off;
    bool s1_direct; /* src1 f32 with its C values contiguous: read in place */
    /* generic: tables over dst's dims (src1's broadcast), rows of the last dim */
    int64_t *t0, *t1, *td;
    int64_t *padtab; /* dst's tables over its padded dims, when zeroing padding */
    /* attr / ref: scales (slots, -1 for none), the chain and its plan, src1
     * as an operand of the plan, each binary post-op's slot */
    int scale_slot[2];
    bool select;
    lg_md src2;
    int src2_slot;
    lg__po_spec po;
    lg__po_plan *pp;
    lg__po_operand s1op;
    int po_slot[LG_MAX_POST_OPS];
} binary_data;

enum { SLOT_SRC0, SLOT_SRC1, SLOT_DST };

static const char *alg_name(int alg) {
    static const char *const names[] = {"add", "sub", "mul", "div", "min", "max",
                                        "ge",  "gt",  "le",  "lt",  "eq",  "ne"};
    return alg >= 0 && alg < (int)(sizeof names / sizeof names[0]) ? names[alg] : "unknown";
}

const char *lg__binary_alg_str(int alg) {
    return alg_name(alg);
}

/* f32 view of n elements of src (type dt) at element offset off: src itself
 * when f32, else buf after the conversion. */
static const float *in_f32(const binary_data *b, lg_dtype dt, const void *src, int64_t off,
                           int64_t n, float *buf) {
    if (dt == LG_F32) return (const float *)src + off;
    b->cvt(dt, (const char *)src + off * (int64_t)lg_dtype_size(dt), LG_F32, buf, n);
    return buf;
}

/* Where n f32 results for dst at off go (dst itself when f32), and their
 * conversion into dst afterwards. */
static float *out_f32(lg_dtype dt, void *dst, int64_t off, float *buf) {
    return dt == LG_F32 ? (float *)dst + off : buf;
}
static void flush(const binary_data *b, lg_dtype dt, const float *r, void *dst, int64_t off,
                  int64_t n) {
    if (dt != LG_F32) b->cvt(LG_F32, r, dt, (char *)dst + off * (int64_t)lg_dtype_size(dt), n);
}

/* d[o + i] = s0[o + i] op s1[o1 + i] for i < n, s1 of type t1 (src0's and
 * dst's types from the problem). All f32: one kernel call, with streaming
 * from the first 64-byte boundary; else CHUNK steps through conversions. */
static void run_vv(const binary_data *b, const void *s0, lg_dtype t1, const void *s1, int64_t o1,
                   void *d, int64_t o, int64_t n, bool stream) {
    const lg__binary_pd *pd = &b->pd;
    lg_dtype t0 = pd->src0.dtype, td = pd->dst.dtype;
    if (t0 == LG_F32 && t1 == LG_F32 && td == LG_F32) {
        const float *a = (const float *)s0 + o, *c = (const float *)s1 + o1;
        float *r = (float *)d + o;
        if (stream && ((uintptr_t)r & 3) == 0) {
            int64_t head = (int64_t)((64 - ((uintptr_t)r & 63)) & 63) / 4;
            head = head < n ? head : n;
            b->vv(pd->alg, a, c, r, head, false);
            a += head, c += head, r += head, n -= head;
        } else {
            stream = false;
        }
        b->vv(pd->alg, a, c, r, n, stream);
        return;
    }
    if (b->vv_dt) {
        const size_t z0 = lg_dtype_size(t0), z1 = lg_dtype_size(t1), zd = lg_dtype_size(td);
        b->vv_dt(pd->alg, t0, (const char *)s0 + o * (int64_t)z0, t1,
                 (const char *)s1 + o1 * (int64_t)z1, td, (char *)d + o * (int64_t)zd, n);
        return;
    }
    float ba[CHUNK], bb[CHUNK], bd[CHUNK];
    for (int64_t x = 0; x < n; x += CHUNK) {
        int64_t m = n - x < CHUNK ? n - x : CHUNK;
        const float *a = in_f32(b, t0, s0, o + x, m, ba);
        const float *c = in_f32(b, t1, s1, o1 + x, m, bb);
        float *r = out_f32(td, d, o + x, bd);
        b->vv(pd->alg, a, c, r, m, false);
        flush(b, td, r, d, o + x, m);
    }
}

/* Flat element range [lo, hi) of the bcast_channel rows (lo, hi multiples
 * of k, so every call starts at a pattern boundary). stream: all f32, dst
 * large; rows whose dst starts 64-byte aligned are stored non-temporally. */
static void run_channel(const binary_data *b, const void *s0, const void *s1, void *d, int64_t lo,
                        int64_t hi, bool stream) {
    const lg__binary_pd *pd = &b->pd;
    const lg_md *m1 = &pd->src1;
    int64_t C = pd->dst.dims[1], k = b->k;
    int plen = (int)(k > b->vl ? k : b->vl);
    float pat[64], ba[CHUNK], bd[CHUNK];
    int32_t valid[64];
    for (int64_t r = lo / b->len; r < b->rows && r * b->len < hi; r++) {
        int64_t cb = r % b->cblocks;
        for (int j = 0; j < plen; j++) {
            int64_t c = cb * k + j;
            if (j >= k) {
                valid[j] = valid[j - k], pat[j] = pat[j - k]; /* tiled */
                continue;
            }
            valid[j] = c < C ? -1 : 0;
            int64_t idx[LG_MAX_NDIMS] = {0};
            idx[1] = m1->dims[1] == 1 ? 0 : c;
            pat[j] = c < C ? lg__load_f32(s1, m1->dtype, lg__md_off(m1, idx)) : 0.0f;
        }
        int64_t a = r * b->len > lo ? r * b->len : lo;
        int64_t e = (r + 1) * b->len < hi ? (r + 1) * b->len : hi;
        if (b->f32) {
            float *out = (float *)d + a;
            b->pat(pd->alg, (const float *)s0 + a, pat, valid, plen, out, e - a,
                   stream && ((uintptr_t)out & 63) == 0);
            continue;
        }
        if (b->pat_dt) {
            lg_dtype t0 = pd->src0.dtype, td = pd->dst.dtype;
            b->pat_dt(pd->alg, t0, (const char *)s0 + a * (int64_t)lg_dtype_size(t0), pat, valid,
                      plen, td, (char *)d + a * (int64_t)lg_dtype_size(td), e - a);
            continue;
        }
        for (int64_t x = a; x < e; x += CHUNK) { /* CHUNK keeps x on a pattern boundary */
            int64_t m = e - x < CHUNK ? e - x : CHUNK;
            const float *in = in_f32(b, pd->src0.dtype, s0, x, m, ba);
            float *out = out_f32(pd->dst.dtype, d, x, bd);
            b->pat(pd->alg, in, pat, valid, plen, out, m, false);
            flush(b, pd->dst.dtype, out, d, x, m);
        }
    }
}

/* Pixels [p0, p1) of bcast_last / bcast_scalar: src1's period of values
 * gathered into a tile of as many whole repeats as fit (or read in place),
 * then whole groups of pixels against the tile. */
static void run_last(const binary_data *b, const void *s0, const void *s1, void *d, int64_t p0,
                     int64_t p1) {
    const lg__binary_pd *pd = &b->pd;
    const int64_t P = b->period, base = pd->src0.offset0;
    if (P > TILE) { /* s1_direct: each pixel against src1 in place */
        const float *chan = (const float *)s1 + pd->src1.offset0 + b->s1off[0];
        for (int64_t p = p0; p < p1; p++) run_vv(b, s0, LG_F32, chan, 0, d, base + p * P, P, false);
        return;
    }
    float tile[TILE];
    int64_t reps = TILE / P;
    for (int64_t c = 0; c < P; c++)
        tile[c] = lg__load_f32(s1, pd->src1.dtype, pd->src1.offset0 + b->s1off[c]);
    for (int64_t i = P; i < reps * P; i++) tile[i] = tile[i - P];
    for (int64_t p = p0; p < p1; p += reps) {
        int64_t g = p1 - p < reps ? p1 - p : reps;
        run_vv(b, s0, LG_F32, tile, 0, d, base + p * P, g * P, false);
    }
}

/* Rows [r0, r1) of the generic path (a row: the last dim). */
static void run_generic(const binary_data *b, const void *s0, const void *s1, void *d, int64_t r0,
                        int64_t r1) {
    const lg__binary_pd *pd = &b->pd;
    int nd = pd->dst.ndims, last = nd - 1;
    int64_t len = pd->dst.dims[last];
    const int64_t *l0 = lg__offtab_dim(b->t0, last), *l1 = lg__offtab_dim(b->t1, last),
                  *ld = lg__offtab_dim(b->td, last);
    for (int64_t r = r0; r < r1; r++) {
        int64_t o0 = pd->src0.offset0, o1 = pd->src1.offset0, od = pd->dst.offset0, q = r;
        for (int dd = last - 1; dd >= 0; dd--) {
            int64_t i = q % pd->dst.dims[dd];
            q /= pd->dst.dims[dd];
            o0 += lg__offtab_dim(b->t0, dd)[i];
            o1 += lg__offtab_dim(b->t1, dd)[i];
            od += lg__offtab_dim(b->td, dd)[i];
        }
        for (int64_t i = 0; i < len; i++) {
            float x = lg__load_f32(s0, pd->src0.dtype, o0 + l0[i]);
            float y = lg__load_f32(s1, pd->src1.dtype, o1 + l1[i]);
            lg__store_f32(d, pd->dst.dtype, od + ld[i], lg__binary_fwd(pd->alg, x, y));
        }
    }
}

/* Dense positions [lo, hi) of the attr path. */
static void run_attr(const binary_data *b, const void *s0, const void *s1, void *d, int64_t lo,
                     int64_t hi, const float *sc0, const float *sc1, const void *const *ps1) {
    const lg__po_plan *p = b->pp;
    float acc[LG_PO_CHUNK], vbuf[LG_PO_CHUNK];
    for (int64_t x = lo; x < hi; x += LG_PO_CHUNK) {
        int64_t m = hi - x < LG_PO_CHUNK ? hi - x : LG_PO_CHUNK;
        lg__po_load(p, b->pd.src0.dtype, s0, x, m, acc);
        if (sc0) {
            const float f = *sc0;
            for (int64_t j = 0; j < m; j++) acc[j] = acc[j] * f;
        }
        bool scalar;
        const float *v = lg__po_values(p, &b->s1op, s1, x, m, vbuf, &scalar);
        if (sc1) {
            const float f = *sc1;
            int64_t n = scalar ? 1 : m;
            for (int64_t j = 0; j < n; j++) vbuf[j] = v[j] * f;
            v = vbuf;
        }
        lg__po_binary(p, b->pd.alg, acc, v, scalar, m);
        lg__po_run(p, acc, x, m, d, ps1);
        lg__po_store(p, acc, d, x, m);
    }
}

static lg_status binary_execute(const lg_kernel *k, void *const *bufs) {
    const binary_data *b = k->data;
    const void *s0 = bufs[SLOT_SRC0], *s1 = bufs[SLOT_SRC1];
    void *d = bufs[SLOT_DST];
    const lg_md *md = &b->pd.dst;
    int64_t total = lg__md_nelems(md);
    if (total == 0) return LG_OK;
    if (b->mode == MODE_ATTR || b->mode == MODE_REF) {
        const float *sc[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++)
            if (b->scale_slot[i] >= 0) sc[i] = bufs[b->scale_slot[i]];
        const void *ps1[LG_MAX_POST_OPS] = {NULL};
        for (int i = 0; i < b->po.npost; i++)
            if (b->po_slot[i] >= 0) ps1[i] = bufs[b->po_slot[i]];
        if (b->mode == MODE_REF) {
            lg__binary_ref_select(&b->pd, &b->src2, b->select ? bufs[b->src2_slot] : NULL, sc[0],
                                  sc[1], &b->po, s0, s1, d, ps1);
            return LG_OK;
        }
        int64_t n = lg__md_nelems_padded(md);
        int nthr = n >= PAR_ELEMS && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t units = (n + 15) / 16;
            int64_t lo = units * t / nt * 16, hi = units * (t + 1) / nt * 16;
            hi = hi < n ? hi : n;
            if (lo < hi) run_attr(b, s0, s1, d, lo, hi, sc[0], sc[1], ps1);
        }
        if (b->padtab) lg__zero_padding(md, b->padtab, d);
        return LG_OK;
    }
    if (b->mode == MODE_GENERIC) {
        int64_t rows = total / md->dims[md->ndims - 1];
        int nthr = total >= PAR_ELEMS / 4 && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            run_generic(b, s0, s1, d, rows * t / nt, rows * (t + 1) / nt);
        }
    } else {
        /* Units: 16 elements (whole lines of f32), k-element pattern rows, or
         * pixels. */
        int64_t unit = b->mode == MODE_SAME   ? 16
                       : b->mode == MODE_LAST ? 1
                                              : (b->k > 16 ? b->k : 16);
        int64_t n = b->mode == MODE_SAME   ? b->n
                    : b->mode == MODE_LAST ? b->pixels
                                           : b->rows * b->len;
        int64_t elems = b->mode == MODE_LAST ? n * b->period : n;
        /* Non-temporal stores when the operands are far larger than the
         * caches (f32, dst not a source): same_layout reads two tensors,
         * bcast_channel one. */
        bool stream = (b->mode == MODE_SAME || b->mode == MODE_CHANNEL) && b->vector && b->f32 &&
                      d != s0 && d != s1 &&
                      (b->mode == MODE_SAME ? 3 : 2) * n * 4 >= STREAM_FOOTPRINT;
        int nthr = elems >= PAR_ELEMS && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t units = (n + unit - 1) / unit;
            int64_t lo = units * t / nt * unit, hi = units * (t + 1) / nt * unit;
            hi = hi < n ? hi : n;
            if (lo < hi) {
                if (b->mode == MODE_SAME)
                    run_vv(b, s0, b->pd.src1.dtype, s1, lo, d, lo, hi - lo, stream);
                else if (b->mode == MODE_LAST)
                    run_last(b, s0, s1, d, lo, hi);
                else
                    run_channel(b, s0, s1, d, lo, hi, stream);
            }
            if (stream) _mm_sfence();
        }
    }
    if (b->padtab) lg__zero_padding(md, b->padtab, d);
    return LG_OK;
}

static void binary_destroy(lg_kernel *k) {
    binary_data *b = k->data;
    if (b) {
        lg__free(b->t0);
        lg__free(b->t1);
        lg__free(b->td);
        lg__free(b->padtab);
        lg__free(b->s1off);
        if (b->pp) lg__po_plan_free(b->pp);
        lg__free(b->pp);
        lg__po_operand_free(&b->s1op);
    }
    lg__free(b);
}

static const lg__kernel_ops binary_ops = {binary_execute, binary_destroy};

/* The channel block of src0's layout: 1 for "abx", k for "aBx<k>b"; 0 if
 * the layout is neither. */
static int64_t channel_block(const lg_md *md) {
    if (md->ndims < 2) return 0;
    static const char *const tags[] = {"abx",    "aBx2b",  "aBx4b", "aBx8b",
                                       "aBx16b", "aBx32b", "aBx64b"};
    static const char *const tags2[] = {"ab", "aB2b", "aB4b", "aB8b", "aB16b", "aB32b", "aB64b"};
    for (int i = 0; i < 7; i++) {
        lg_md t;
        if (lg_md_init_tag(&t, md->ndims, md->dims, md->dtype,
                           md->ndims == 2 ? tags2[i] : tags[i]) == LG_OK &&
            lg_md_equal(&t, md))
            return (int64_t)1 << i;
    }
    return 0;
}

/* True if a and b have one layout (dims, blocking, offset), whatever their
 * data types. */
static bool same_layout(const lg_md *a, const lg_md *b) {
    lg_md t = *b;
    t.dtype = a->dtype;
    return lg_md_equal(a, &t);
}

/* True if md is channels-last: "ab" in 2D, "axb" from 3D on. */
static bool channels_last(const lg_md *md) {
    lg_md t;
    return md->ndims >= 2 &&
           lg_md_init_tag(&t, md->ndims, md->dims, md->dtype, md->ndims == 2 ? "ab" : "axb") ==
               LG_OK &&
           lg_md_equal(&t, md);
}

/* bcast_last / bcast_scalar: src1's element offsets of its period of
 * values (without offset0), and whether an f32 src1 can be read in place. */
static lg_status plan_last(binary_data *b, int64_t period, int64_t pixels) {
    const lg_md *m1 = &b->pd.src1;
    b->mode = MODE_LAST;
    b->period = period;
    b->pixels = pixels;
    b->s1off = lg__malloc(sizeof(int64_t) * (size_t)period);
    if (!b->s1off) return LG_OUT_OF_MEMORY;
    bool contiguous = true;
    for (int64_t c = 0; c < period; c++) {
        int64_t idx[LG_MAX_NDIMS] = {0};
        idx[1] = period > 1 ? c : 0;
        b->s1off[c] = lg__md_off(m1, idx) - m1->offset0;
        contiguous = contiguous && b->s1off[c] == b->s1off[0] + c;
    }
    b->s1_direct = m1->dtype == LG_F32 && contiguous;
    return LG_OK;
}

/* Choose the path; *path names it (NULL: generic). */
static bool is_float(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

/* The attr / ref modes (scales or post-ops); *path NULL for ref. */
static lg_status plan_attr(binary_data *b, lg__isa isa, const char **path) {
    const lg__binary_pd *pd = &b->pd;
    const lg_md *md = &pd->dst;
    bool pad = lg__md_has_padding(md) && lg__md_nelems(md) > 0;
    if (b->select || !lg__md_is_dense(md) || !same_layout(&pd->src0, md)) {
        b->mode = MODE_REF;
        *path = NULL;
        return LG_OK;
    }
    b->mode = MODE_ATTR;
    *path = "attr";
    b->pp = lg__malloc(sizeof *b->pp);
    if (!b->pp) return LG_OUT_OF_MEMORY;
    LG_CHECK(lg__po_plan_init(b->pp, &b->po, md, isa));
    LG_CHECK(lg__po_operand_init(b->pp, &b->s1op, &pd->src1));
    if (pad) {
        b->padtab = lg__offtab_new(md, md->padded_dims, false);
        if (!b->padtab) return LG_OUT_OF_MEMORY;
    }
    return LG_OK;
}

static lg_status plan(binary_data *b, lg__isa isa, const char **path) {
    const lg__binary_pd *pd = &b->pd;
    const lg_md *m0 = &pd->src0, *m1 = &pd->src1, *md = &pd->dst;
    int nd = md->ndims;
    b->f32 = m0->dtype == LG_F32 && m1->dtype == LG_F32 && md->dtype == LG_F32;
    bool s0_is_dst = same_layout(m0, md);
    b->vl = isa == LG_ISA_AVX512 ? 16 : isa == LG_ISA_AVX2 ? 8 : 1;
    bool pad = lg__md_has_padding(md) && lg__md_nelems(md) > 0;
    bool per_channel = nd >= 2, scalar = true;
    for (int d = 0; d < nd; d++) {
        if (d != 1 && m1->dims[d] != 1) per_channel = false;
        if (m1->dims[d] != 1) scalar = false;
    }
    int64_t C = nd >= 2 ? md->dims[1] : 1;
    /* s8 / u8 operands take the generic path (convert.h's saturating
     * conversions, element by element). */
    bool fast = is_float(m0->dtype) && is_float(m1->dtype) && is_float(md->dtype);
    int64_t k = s0_is_dst && per_channel && !channels_last(md) ? channel_block(md) : 0;
    if (fast && s0_is_dst && same_layout(m1, md) && lg__md_is_dense(md)) {
        b->mode = MODE_SAME;
        b->n = lg__md_nelems_padded(md);
        *path = "same_layout";
        pad = pad && lg__binary_fwd(pd->alg, 0.0f, 0.0f) != 0.0f; /* div (NaN), ge, le, eq */
    } else if (fast && k > 0) {
        b->mode = MODE_CHANNEL;
        b->k = k;
        b->cblocks = md->padded_dims[1] / k;
        b->rows = md->dims[0] * b->cblocks;
        b->len = k;
        for (int d = 2; d < nd; d++) b->len *= md->dims[d];
        *path = "bcast_channel";
        pad = false; /* the kernel writes the padded channels as +0 */
    } else if (fast && s0_is_dst && per_channel && !scalar && channels_last(md) && C > 0 &&
               (C <= TILE || (m1->dtype == LG_F32 && m1->blocking.strides[1] == 1 &&
                              m1->blocking.inner_nblks == 0))) {
        LG_CHECK(plan_last(b, C, lg__md_nelems(md) / C));
        *path = "bcast_last";
    } else if (fast && s0_is_dst && scalar && lg__md_is_dense(md)) {
        LG_CHECK(plan_last(b, 1, lg__md_nelems_padded(md)));
        *path = "bcast_scalar"; /* the padding is zeroed below */
    } else {
        b->mode = MODE_GENERIC;
        *path = NULL;
        b->t0 = lg__offtab_new(m0, md->dims, true); /* src0 may broadcast too */
        b->t1 = lg__offtab_new(m1, md->dims, true);
        b->td = lg__offtab_new(md, md->dims, false);
        if (!b->t0 || !b->t1 || !b->td) return LG_OUT_OF_MEMORY;
    }
    if (pad) {
        b->padtab = lg__offtab_new(md, md->padded_dims, false);
        if (!b->padtab) return LG_OUT_OF_MEMORY;
    }
    return LG_OK;
}

static lg_status build_binary(const void *problem, lg_kernel **out) {
    const binary_key *key = problem;
    const lg__binary_pd *pd = &key->pd;
    int nbin = lg__po_ntensors(&key->po);
    lg_kernel *k = lg__kernel_new_slots(LG_KIND_BINARY, &binary_ops, sizeof(binary_data), 5 + nbin);
    if (!k)
        return lg__error(LG_OUT_OF_MEMORY, "lg_binary_create", "cannot allocate a binary kernel");
    binary_data *b = k->data;
    b->pd = *pd;
    b->po = key->po;
    bool attr = key->po.npost || key->scale_mask[0] >= 0 || key->scale_mask[1] >= 0 || key->select;
    b->select = key->select;
    b->src2 = key->src2;
    lg__isa isa = lg__cpu_isa();
    b->vector = isa != LG_ISA_SCALAR;
    b->vv = isa == LG_ISA_AVX512 ? lg__binary_vv_avx512
            : isa == LG_ISA_AVX2 ? lg__binary_vv_avx2
                                 : lg__binary_vv_scalar;
    b->pat = isa == LG_ISA_AVX512 ? lg__binary_pat_avx512
             : isa == LG_ISA_AVX2 ? lg__binary_pat_avx2
                                  : lg__binary_pat_scalar;
    b->cvt = lg__cvt_for_isa(isa);
    b->vv_dt = isa == LG_ISA_AVX512 ? lg__binary_vv_dt_avx512
               : isa == LG_ISA_AVX2 ? lg__binary_vv_dt_avx2
                                    : NULL;
    b->pat_dt = isa == LG_ISA_AVX512 ? lg__binary_pat_dt_avx512
                : isa == LG_ISA_AVX2 ? lg__binary_pat_dt_avx2
                                     : NULL;
    const char *path = NULL;
    if ((attr ? plan_attr(b, isa, &path) : plan(b, isa, &path)) != LG_OK) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_binary_create",
                         "cannot allocate binary offset tables");
    }
    if (path)
        snprintf(k->impl, sizeof k->impl, "binary:%s:%s", lg__isa_name(isa), path);
    else
        snprintf(k->impl, sizeof k->impl, attr ? "binary:ref" : "binary:generic");
    char s0[72], s1[72], dd[72];
    lg__md_describe(&pd->src0, s0, sizeof s0);
    lg__md_describe(&pd->src1, s1, sizeof s1);
    lg__md_describe(&pd->dst, dd, sizeof dd);
    int n = snprintf(k->desc, sizeof k->desc, "alg:%s src0:%s src1:%s dst:%s", alg_name(pd->alg),
                     s0, s1, dd);
    if (attr && n > 0 && n < (int)sizeof k->desc)
        snprintf(k->desc + n, sizeof k->desc - (size_t)n, " attr");
    k->inplace_src = lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src0, 0);
    lg__kernel_add_slot(k, LG_ARG_SRC + 1, true, &pd->src1, 0);
    k->inplace_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    static const int sarg[2] = {LG_ARG_SRC, LG_ARG_SRC + 1};
    for (int i = 0; i < 2; i++)
        b->scale_slot[i] =
            key->scale_mask[i] >= 0
                ? lg__kernel_add_slot(k, LG_ARG_ATTR_SCALES | sarg[i], true, NULL, sizeof(float))
                : -1;
    b->src2_slot = b->select ? lg__kernel_add_slot(k, LG_ARG_SRC + 2, true, &b->src2, 0) : -1;
    lg__po_add_slots(k, &b->po, b->po_slot);
    *out = k;
    return LG_OK;
}

static bool dtype_ok(lg_dtype dt) {
    return is_float(dt) || dt == LG_S8 || dt == LG_U8;
}

/* The creator behind lg_binary_create, lg_binary_create_attr and
 * lg_binary_create_select (cond non-NULL); errors name `fn`, the public
 * function the caller called. */
static lg_status create(lg_kernel **k, lg_binary_alg alg, const lg_md *src0, const lg_md *src1,
                        const lg_md *cond, const lg_md *dst, const lg_attr *attr, const char *fn);

lg_status lg_binary_create(lg_kernel **k, lg_binary_alg alg, const lg_md *src0, const lg_md *src1,
                           const lg_md *dst) {
    return create(k, alg, src0, src1, NULL, dst, NULL, __func__);
}

lg_status lg_binary_create_attr(lg_kernel **k, lg_binary_alg alg, const lg_md *src0,
                                const lg_md *src1, const lg_md *dst, const lg_attr *attr) {
    return create(k, alg, src0, src1, NULL, dst, attr, __func__);
}

lg_status lg_binary_create_select(lg_kernel **k, const lg_md *src0, const lg_md *src1,
                                  const lg_md *cond, const lg_md *dst, const lg_attr *attr) {
    LG_CHECK(lg__md_check(cond, __func__, "cond md"));
    if (lg_md_is_any(cond)) return LG_ERROR(LG_INVALID_ARGUMENT, "cond md is 'any'");
    if (dst && cond->ndims != dst->ndims)
        return LG_ERROR(LG_INVALID_ARGUMENT, "cond has %d dims, dst %d", cond->ndims, dst->ndims);
    if (dst)
        for (int d = 0; d < cond->ndims; d++)
            if (cond->dims[d] != dst->dims[d] && cond->dims[d] != 1)
                return LG_ERROR(LG_INVALID_ARGUMENT,
                                "cond dims[%d] = %lld is neither dst's %lld nor 1 (no broadcast)",
                                d, (long long)cond->dims[d], (long long)dst->dims[d]);
    lg_dtype dt = cond->dtype;
    if (dt != LG_S8 && dt != LG_U8 && dt != LG_S32 && dt != LG_F32 && dt != LG_BF16 && dt != LG_F16)
        return LG_ERROR(LG_UNIMPLEMENTED, "cond data type %s: select takes s8, u8, s32 and f32",
                        lg_dtype_str(dt));
    return create(k, LG_BINARY_ADD, src0, src1, cond, dst, attr, __func__);
}

static lg_status create(lg_kernel **k, lg_binary_alg alg, const lg_md *src0, const lg_md *src1,
                        const lg_md *cond, const lg_md *dst, const lg_attr *attr, const char *fn) {
    if (!k) return lg__error(LG_INVALID_ARGUMENT, fn, "kernel pointer is NULL");
    const lg_md *mds[3] = {src0, src1, dst};
    static const char *const names[3] = {"src0", "src1", "dst"};
    for (int i = 0; i < 3; i++) {
        char what[16];
        snprintf(what, sizeof what, "%s md", names[i]);
        LG_CHECK(lg__md_check(mds[i], fn, what));
        if (i == 0 && lg_md_is_any(mds[i]))
            return lg__error(LG_INVALID_ARGUMENT, fn, "%s md is 'any'", names[i]);
    }
    if ((int)alg < LG_BINARY_ADD || (int)alg > LG_BINARY_NE)
        return lg__error(LG_INVALID_ARGUMENT, fn, "alg %d is not an lg_binary_alg", (int)alg);
    if (src1->ndims != src0->ndims || dst->ndims != src0->ndims)
        return lg__error(LG_INVALID_ARGUMENT, fn, "%s has %d dims, src0 %d",
                         src1->ndims != src0->ndims ? "src1" : "dst",
                         src1->ndims != src0->ndims ? src1->ndims : dst->ndims, src0->ndims);
    /* Each source broadcasts against dst: its dims equal dst's or are 1, and
     * dst's are the broadcast of the two. */
    for (int d = 0; d < src0->ndims; d++) {
        for (int i = 0; i < 2; i++)
            if (mds[i]->dims[d] != dst->dims[d] && mds[i]->dims[d] != 1)
                return lg__error(LG_INVALID_ARGUMENT, fn,
                                 "%s dims[%d] = %lld is neither dst's %lld nor 1 (no broadcast)",
                                 names[i], d, (long long)mds[i]->dims[d], (long long)dst->dims[d]);
        if (dst->dims[d] != src0->dims[d] && dst->dims[d] != src1->dims[d])
            return LG_ERROR(
                LG_INVALID_ARGUMENT, "dst dims[%d] = %lld is neither src0's %lld nor src1's %lld",
                d, (long long)dst->dims[d], (long long)src0->dims[d], (long long)src1->dims[d]);
    }
    for (int i = 0; i < 3; i++)
        if (!dtype_ok(mds[i]->dtype))
            return lg__error(LG_UNIMPLEMENTED, fn,
                             "%s data type %s: binary takes f32, bf16, f16, s8 and u8", names[i],
                             lg_dtype_str(mds[i]->dtype));
    binary_key key;
    memset(&key, 0, sizeof key);
    key.scale_mask[0] = key.scale_mask[1] = -1;
    if (attr) {
        LG_CHECK(lg__attr_check_quant_plain(attr, "binary", fn));
        for (int i = 0; i < 2; i++)
            if (attr->zp_mask[i] >= 0)
                return lg__error(LG_UNIMPLEMENTED, fn, "attr has %s zero points: binary takes none",
                                 i ? "dst" : "src");
        if (attr->scale_mask[1] >= 0)
            return lg__error(LG_UNIMPLEMENTED, fn,
                             "attr has dst scales: binary takes src0 and src1 "
                             "scales only");
        const int32_t masks[2] = {attr->scale_mask[0], attr->scale_mask_src1};
        for (int i = 0; i < 2; i++) {
            if (masks[i] > 0)
                return lg__error(LG_UNIMPLEMENTED, fn,
                                 "attr's src%d scale mask 0x%x: binary takes mask 0 (one scale) "
                                 "only",
                                 i, (unsigned)masks[i]);
            key.scale_mask[i] = masks[i];
        }
    }
    lg__md_canon(src0, &key.pd.src0);
    if (lg_md_is_any(src1)) {
        /* src0's tag on src1's dims (oneDNN's choice), or plain row-major
         * when src0's layout is not a tag's (strides). */
        lg_md m1;
        if (lg__binary_any_like(src0, src1, &m1) != LG_OK)
            return lg__error(LG_INVALID_ARGUMENT, fn, "src1 'any': %s", lg_last_error());
        lg__md_canon(&m1, &key.pd.src1);
    } else {
        lg__md_canon(src1, &key.pd.src1);
    }
    bool s0_dims = true; /* src0 has dst's dims (no src0 broadcast) */
    for (int d = 0; d < src0->ndims; d++) s0_dims = s0_dims && src0->dims[d] == dst->dims[d];
    if (lg_md_is_any(dst) && !s0_dims) {
        lg_md m;
        if (lg__binary_any_like(src0, dst, &m) != LG_OK)
            return lg__error(LG_INVALID_ARGUMENT, fn, "dst 'any': %s", lg_last_error());
        lg__md_canon(&m, &key.pd.dst);
    } else if (lg_md_is_any(dst)) {
        lg__md_canon(src0, &key.pd.dst);
        key.pd.dst.dtype = dst->dtype;
        int64_t bytes;
        if (!lg__mul_ok(lg__md_nelems_padded(&key.pd.dst), (int64_t)lg_dtype_size(dst->dtype),
                        &bytes))
            return lg__error(LG_INVALID_ARGUMENT, fn,
                             "dst 'any' in src0's layout: byte size overflows");
    } else {
        lg__md_canon(dst, &key.pd.dst);
    }
    key.pd.alg = (int32_t)alg;
    LG_CHECK(lg__po_spec_init(&key.po, attr, &key.pd.dst, fn));
    if (cond) {
        key.select = 1;
        lg__md_canon(cond, &key.src2);
    }
    return lg__cache_get(LG_KIND_BINARY, &key, sizeof key, build_binary, k);
}
