/* The shuffle kernel's internal interface: the validated problem (also its
 * kernel-cache key), the scalar reference, and the plan that the fast paths
 * (plan.c builds it, planes.c drives it, perm_avx2.c / perm_avx512.c hold the
 * SIMD kernels) execute.
 *
 * Model. With the axis `a` and md shared by src and dst, the offset of a
 * logical index splits into a sum of one term per dim, so
 *     off(idx) = chan(idx[a]) + rest(idx without a)
 * and a shuffle is, for every "pixel" (a value of the rest) and every output
 * channel c, dst[rest + chan(c)] = src[rest + chan(perm(c))]. The plan keeps
 * the two channel tables and the rest as loop dims ("vdims": one per outer
 * dim and per inner block, each an extent and a stride). Pixels include the
 * padding of the other dims: there src padding (zero) is copied onto dst
 * padding, which is why src padding must be zero. Channels in the axis's own
 * padding [C, padC) are written as zeros. */
#ifndef LG_PRIMITIVES_SHUFFLE_H
#define LG_PRIMITIVES_SHUFFLE_H

#include "memory/md.h"
#include "primitives/cpu.h"

/* A validated shuffle problem, zeroed then filled (the kernel-cache key of
 * every shuffle, equal layouts included): src and dst are concrete (not
 * "any"), with equal dims and type (lg_shuffle_create: equal mds); 0 <= axis
 * < ndims; group > 0 divides dims[axis]; group is the G the caller gave, for
 * either prop. */
typedef struct lg__shuffle_pd {
    lg_md src, dst;
    int32_t prop; /* LG_FORWARD or LG_BACKWARD */
    int32_t axis;
    int64_t group;
} lg__shuffle_pd;

/* The group size that the data movement uses: G forward, C/G backward. */
static inline int64_t lg__shuffle_group(const lg__shuffle_pd *pd) {
    int64_t c = pd->src.dims[pd->axis];
    return pd->prop == LG_FORWARD ? pd->group : c / pd->group;
}

/* The source channel of output channel c (0 <= c < C) for group size g:
 * c = u + v * C/g  ->  u * g + v. */
static inline int64_t lg__shuffle_src_channel(int64_t c, int64_t C, int64_t g) {
    int64_t k = C / g;
    return (c % k) * g + c / k;
}

/* The validation of lg_shuffle_create_layouts (src == dst: lg_shuffle_create's
 * one md), without creating a kernel: fills the cache key *pd. Errors go
 * through lg__error with `where` (NULL: quiet). */
LG_INTERNAL lg_status lg__shuffle_query(lg_prop prop, const lg_md *src, const lg_md *dst, int axis,
                                        int64_t group_size, const char *where, lg__shuffle_pd *pd);

/* The scalar reference (through lg__md_off): the truth the tests compare
 * every path with. Copies each logical dst element from its source channel
 * (bits, any type), writes zeros to all of dst's padding, leaves gaps of a
 * strided dst untouched; src padding is never read. */
LG_INTERNAL void lg__shuffle_ref(const lg__shuffle_pd *pd, const void *src, void *dst);

/* ------------------------------------------------------------------------ */
/* Plans                                                                    */
/* ------------------------------------------------------------------------ */

/* Most rest vdims: one per dim plus one per inner block. */
#define LG_SHUF_MAXV (2 * LG_MAX_NDIMS)

typedef enum lg__shuf_mode {
    /* Some rest vdim has stride 1 (run of L elements): for every pixel of
     * the other rest vdims and every channel, copy L contiguous elements
     * (nchw on axis 1: whole planes). */
    LG_SHUF_PLANES,
    /* The axis's innermost vdim has stride 1 (nhwc, nChw16c on the axis):
     * per pixel (or group of m contiguous pixels), SIMD windows of W lanes
     * are filled from source vectors with masked permutes or pshufb. */
    LG_SHUF_PERMUTE,
    /* Neither (or no SIMD): per pixel, element by element via the tables. */
    LG_SHUF_TABLE,
    /* src and dst in different layouts: the offset-table plan of
     * plan_layouts.h (lplan), whatever the layouts. */
    LG_SHUF_LAYOUTS,
} lg__shuf_mode;

/* Vector kinds of the PERMUTE mode (the layout of lg__shuf_seg.idx). */
typedef enum lg__shuf_vec {
    LG_SHUF_XMM_B, /* 16 bytes, any element size: idx = pshufb control (0x80: lane not taken) */
    LG_SHUF_YMM_D, /* 8 x 32 bit (avx2): idx = int32[8] lanes, then int32[8] lane masks (-1/0) */
    LG_SHUF_YMM_W, /* 16 x 16 bit (avx512 BW+VL): idx = int16[16] lanes */
    LG_SHUF_ZMM_D, /* 16 x 32 bit (avx512): idx = int32[16] lanes */
    LG_SHUF_ZMM_W, /* 32 x 16 bit (avx512 BW): idx = int16[32] lanes */
} lg__shuf_vec;

/* One source vector feeding a window: the lanes `mask` of the window take
 * lanes idx of the vector at src_off. In a pair (windows with nseg < 0,
 * AVX-512 kinds only) idx indexes the two vectors at src_off (0..W-1) and
 * src_off2 (W..2W-1) as one table. */
typedef struct lg__shuf_seg {
    _Alignas(64) uint8_t idx[64];
    int64_t src_off, src_off2; /* element offsets of the source vectors from the pixel base */
    uint64_t mask;
} lg__shuf_seg;

/* One dst vector of W lanes at dst_off (from the pixel base), filled from
 * segments [seg0, seg0 + nseg), or pairs [seg0, seg0 - nseg) when nseg < 0;
 * nseg 0: all lanes are padding. Lanes no segment names come out zero. */
typedef struct lg__shuf_win {
    int64_t dst_off;
    int32_t seg0, nseg;
} lg__shuf_win;

typedef struct lg__shuf_plan lg__shuf_plan;
struct lg__shuf_lplan;

/* A PERMUTE kernel: fills every window for ngroups groups of m pixels,
 * group i at src + i * m * in_s elements (likewise dst). stream: dst windows
 * are aligned to the vector size and may be written non-temporally. */
typedef void (*lg__shuf_chunk_fn)(const lg__shuf_plan *p, const char *src, char *dst,
                                  int64_t ngroups, bool stream);

struct lg__shuf_plan {
    lg__shuf_mode mode;
    lg__isa isa;
    int esz; /* element size, bytes */
    int64_t C, padC;
    int64_t *doff; /* [padC]: channel c's element offset (chan(c)) */
    int64_t *soff; /* [C]: chan(perm(c)), where output channel c reads */
    int64_t base;  /* md's offset0 */

    /* The pixel space: outer vdims (outermost first), then the innermost
     * vdim `in` that the PERMUTE mode cuts into chunks of `chunk` pixels.
     * PLANES: `in` is the stride-1 run of L elements (not a pixel dim). */
    int nout;
    int64_t on[LG_SHUF_MAXV], os[LG_SHUF_MAXV];
    int64_t in_n, in_s; /* extent and stride of `in` (1, 0 if none) */
    int64_t m;          /* PERMUTE: pixels of `in` one window spans (see plan.c) */
    int64_t L;          /* PLANES: elements per copy */
    int64_t chunk, nchunks;
    int64_t units;        /* parallel units (see planes.c) */
    int64_t bytes;        /* bytes moved (read + written), to decide on threads */
    bool stream;          /* PERMUTE with a large dst: non-temporal stores when aligned */
    int64_t stream_align; /* bytes dst + base * esz must be aligned to for stream */

    /* PERMUTE */
    lg__shuf_vec vec;
    int W; /* lanes per window */
    int nwin;
    lg__shuf_win *win;
    lg__shuf_seg *seg;
    lg__shuf_chunk_fn chunk_fn;
    char impl[48]; /* "avx512:blocked16", "planes", ... */

    /* PERMUTE tiles (AVX-512; see plan.c): each pixel is C contiguous
     * elements, a (C/G x G) matrix whose transpose is built from tiles of
     * k = G or k = C/G (2, 4 or 8) source vectors, each giving k windows.
     * Tile t reads its sources at t * tile_src + j * tile_is (j < k) and
     * writes window w at t * tile_dst + win[w].dst_off; seg holds, per
     * window w, k / 2 pairs (sources 2q, 2q + 1: seg[w * k / 2 + q]). */
    int tile_k; /* 0: no tiles */
    int64_t ntiles, tile_src, tile_is, tile_dst;
    /* Bytes ahead of each tile source vector that the kernel prefetches
     * (whole pixels; 0: none): set for problems beyond the caches. */
    int64_t tile_pf;

    struct lg__shuf_lplan *lplan; /* LG_SHUF_LAYOUTS */
};

/* The shuffle's one planner (plan.c), used by the creator for both public
 * forms: pd on isa. Equal layouts get the plane / SIMD permute / table
 * plans, different ones the offset-table plan (LG_SHUF_LAYOUTS). Returns
 * LG_OK with *out set, LG_OUT_OF_MEMORY, or something else (equal layouts
 * with more channels than a table holds): the caller runs the reference. */
LG_INTERNAL lg_status lg__shuffle_plan(const lg__shuffle_pd *pd, lg__isa isa, lg__shuf_plan **out);
LG_INTERNAL void lg__shuffle_plan_free(lg__shuf_plan *p);

/* Run a plan of any mode (planes.c): OpenMP over units, serial for small
 * problems; the same bits as lg__shuffle_ref given zero src padding. Does
 * not allocate. */
LG_INTERNAL void lg__shuffle_exec(const lg__shuf_plan *p, const void *src, void *dst);

/* A switch on a window's segment count ns for the kernels: 1..8 call
 * NAME_n(ns, ...) with ns a constant (unrolled, index vectors in registers),
 * more call NAME_any(ns, ...). */
#define LG_SHUF_DISPATCH(NAME, ns, ...)                                                            \
    switch (ns) {                                                                                  \
    case 1:                                                                                        \
        NAME##_n(1, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 2:                                                                                        \
        NAME##_n(2, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 3:                                                                                        \
        NAME##_n(3, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 4:                                                                                        \
        NAME##_n(4, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 5:                                                                                        \
        NAME##_n(5, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 6:                                                                                        \
        NAME##_n(6, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 7:                                                                                        \
        NAME##_n(7, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    case 8:                                                                                        \
        NAME##_n(8, __VA_ARGS__);                                                                  \
        break;                                                                                     \
    default:                                                                                       \
        NAME##_any(ns, __VA_ARGS__);                                                               \
        break;                                                                                     \
    }

/* The SIMD kernels; each handles the vector kinds its file's ISA allows:
 * avx2: XMM_B, YMM_D; avx512: YMM_W, ZMM_D, ZMM_W. */
LG_INTERNAL void lg__shuf_chunk_avx2(const lg__shuf_plan *p, const char *src, char *dst,
                                     int64_t ngroups, bool stream);
LG_INTERNAL void lg__shuf_chunk_avx512(const lg__shuf_plan *p, const char *src, char *dst,
                                       int64_t ngroups, bool stream);
/* The tiled PERMUTE kernel (ZMM_D and ZMM_W, tile_k > 0): pixel by pixel,
 * tile by tile, sources loaded once, one two-source permute per pair. */
LG_INTERNAL void lg__shuf_tile_avx512(const lg__shuf_plan *p, const char *src, char *dst,
                                      int64_t ngroups, bool stream);

#endif /* LG_PRIMITIVES_SHUFFLE_H */
