/* The register-blocked direct convolution (AVX-512 and AVX2), its plan and
 * the depthwise path.
 *
 * Direct path. Output tiles of nb channel blocks (VL = 16 or 8 lanes each)
 * times ur consecutive output pixels of one row are held in vector registers
 * across the whole reduction (input channels of the group, then kd, kh, kw,
 * then the channels of one segment), weights loaded as vectors of VL output
 * channels, source values broadcast. The reduction is walked by segments:
 * runs of input channels contiguous both in src (one channel block, or a
 * plain channel stride) and in the weights (one VL-block of I, or any I
 * when I is not blocked), so a group may start inside a channel block
 * (ShuffleNet's 3 groups of 20). Pixels whose kernel window leaves the input
 * along W (the row's borders) run one at a time with the kw range clipped
 * and four partial sums per channel block, unless the rows are copied
 * with their padding (prow_c below) or, for a plain stride-2 source, the
 * row's first and last tiles skip the taps that read padding (tap_ecase
 * below); rows whose window leaves the input
 * along D or H clip kd / kh. A 1x1 stride-1 unpadded conv walks all
 * pixels of an image as one row ("flat": a blocked matrix product).
 *
 * Layouts it takes (checked by lg__conv_direct_plan):
 *  - src: channel-blocked by VL (aBx{VL}b) or plain (any strides: ncx,
 *    nxc, ...);
 *  - weights: O blocked by VL as the innermost block, I optionally blocked
 *    by VL just outside it (OIx{VL}i{VL}o, Oxi{VL}o, gOIx..., ...);
 *  - dst: channel-blocked by VL, or plain with channel stride 1 (nxc).
 *
 * Epilogue: bias is the accumulators' initial value; a post-op chain of
 * sums and relu(alpha = 0) runs in registers; any other chain, and tiles
 * whose channels straddle blocks, go through a tile buffer (sums from dst,
 * eltwise by the eltwise kernel of the ISA). Lanes past a group's channels
 * are never stored; the padding lanes of dst's last block are stored as
 * zero.
 *
 * Depthwise path (G == IC == OC, channel-blocked activations, Goix{VL}g
 * weights): one channel block times ur output pixels of a row per tile,
 * vectorised across the block's channels, source vectors loaded (no
 * broadcast). For a 3-wide dense stride-1 kernel each source vector of a
 * kernel row is loaded once and feeds the three taps that use it, with the
 * row's three weight vectors in registers; other kernels load per tap. Both
 * skip taps outside the input per pixel, so the row's borders run in the
 * same tiles. Items are (n, channel block, od, oh) rows; the same plan
 * struct describes it (one "group", chunks of one block). */
#ifndef LG_PRIMITIVES_CONV_DIRECT_H
#define LG_PRIMITIVES_CONV_DIRECT_H

#include "primitives/conv/conv.h"
#include "primitives/eltwise/eltwise.h"

#include <stdatomic.h>

/* Most output channel blocks per tile. */
#define LG_CONV_MAX_NB 4

/* How the source is addressed in the tile kernels: a channel-blocked src
 * with unit stride along W (constant pixel steps, the channel loop of
 * whole-block segments unrolled); a plain src read with stride 2 along W (a first
 * layer: constant pixel steps; at most 2 blocks per chunk); a channel-blocked
 * src read with stride 2 along W (BLK2: as BLK, pixel step 2 VL); or
 * anything else (steps from the plan). */
enum { LG_CONV_SRC_BLK, LG_CONV_SRC_GEN, LG_CONV_SRC_PLAIN2, LG_CONV_SRC_BLK2 };

/* Epilogue kinds (see the file comment). */
/* CLIP: one clip (relu6), min(max(v, clip_lo), clip_hi) in registers (MobileNetV2's first
 * layer ran its tiles through the general epilogue: 3x3 s2 3->32 0.3x of oneDNN). */
enum {
    LG_CONV_EPI_NONE,
    LG_CONV_EPI_RELU,
    LG_CONV_EPI_SUM,
    LG_CONV_EPI_SUM_RELU,
    LG_CONV_EPI_CLIP,
    LG_CONV_EPI_GEN
};

/* A run of input channels: offsets of its first channel in src and in the
 * weights (of the group), and its length. */
typedef struct lg__conv_seg {
    int64_t soff, woff;
    int64_t len;
} lg__conv_seg;

/* One output channel block of a tile: global channel c0, nvalid channels
 * (c0 .. c0 + nvalid - 1, all in one group), offset of the block in the
 * weights of the group. */
typedef struct lg__conv_ocb {
    int64_t c0, woff;
    int32_t nvalid, pad_;
} lg__conv_ocb;

#define LG_CONV_FAST_DENSE 2

/* A chunk: up to LG_CONV_MAX_NB blocks of one group processed together. */
typedef struct lg__conv_chunk {
    int32_t nb, ur; /* blocks, and pixels per tile */
    int32_t fast;   /* in-register epilogue possible: every block aligned, the
                       only partial one at dst's end, and a simple chain;
                       LG_CONV_FAST_DENSE: also every block whole and dst's
                       pixels VL floats apart */
    lg__conv_ocb ocb[LG_CONV_MAX_NB];
} lg__conv_chunk;

/* The edge codes of tap_ecase (below): 0 to 4. */
#define LG_CONV_ECODES 5

typedef struct lg__conv_direct {
    lg__conv_shape s;
    int vl;
    int src_kind; /* LG_CONV_SRC_* */
    int dst_cl;   /* dst plain with channel stride 1 (else blocked) */
    int nb, ur;   /* the main tile: blocks per chunk, pixels per tile */
    int flat;     /* 1x1, stride 1, no padding: pixels of an image as one row */
    int dw;       /* the depthwise path; dw_k its dense 3- or 5-wide stride-1/2 tiles */
    int dw_k;
    /* Reduction blocks of the flat path: when kseg > 0, the segments run
     * kseg at a time over all tiles of a pixel block (so the weights of a
     * block stay in L1), partial sums kept in dst between blocks; only for
     * one group, a blocked dst, every chunk fast and no sum post-op. */
    int64_t kseg;
    int epi; /* LG_CONV_EPI_* */
    float sum_scale;
    float clip_lo, clip_hi; /* LG_CONV_EPI_CLIP */
    int has_bias;
    /* Element strides. src: n, channel block (blocked) or channel (plain),
     * d, h, w; s_ic steps one channel inside a segment. */
    int64_t s_n, s_c, s_d, s_h, s_w, s_ic;
    int64_t s_kd, s_kh, s_kw; /* one tap along d, h, w: dilation step x stride */
    int64_t w_g, w_kd, w_kh, w_kw;
    int64_t d_n, d_c, d_d, d_h, d_w;
    /* Output pixels along W whose window lies inside the input: [ow_lo, ow_hi). */
    int64_t ow_lo, ow_hi;
    /* Segments of group g: segs[seg_at[g] .. seg_at[g + 1]). */
    lg__conv_seg *segs;
    int64_t *seg_at;
    /* Chunks of group g: chunks[g * nchunk .. (g + 1) * nchunk). */
    lg__conv_chunk *chunks;
    int64_t nchunk;
    /* Work: items are (n, g, chunk, od, oh) rows, or for flat (n, g, chunk,
     * pixel block of pix_blk pixels). */
    int64_t nitems, npix_blk, pix_blk;
    /* Rows inside chunks: items ordered (n, g, chunk, od, oh), the rows of
     * one chunk in turn, so that its weights stay in L2 (when a group's
     * weights do not fit there: 3x3 512->512 at 7x7 streamed all 9.4 MB
     * from memory for each of its 7 rows), or in L1 (a tap table's chunk
     * of 18.8 KB where the group's 37.6 KB do not fit: with two chunks and
     * two threads, each thread keeps one); else (n, g, od, oh, chunk).
     * Depthwise: 1, (n, block, od, oh); 0 would take (n, od, oh, block). */
    int rows_inner;
    /* Weights: step of one output channel block (of O). With rows_inner,
     * each row of a chunk prefetches its share of the next chunk's weights
     * into L2 while it computes (they are contiguous after the chunk's own):
     * the first row of a chunk otherwise streams them from L3 at the rate
     * its FMAs consume them (3x3 512->512 at 7x7: 884 KB a row). */
    int64_t w_ob;
    /* Plain stride-2 source with one segment per group and weights
     * contiguous over (kh, kw, channel): the source offset of each tap
     * (kh, kw, channel) in that order, or NULL. Interior tiles walk a row's
     * taps as one loop; border pixels take the four partial sums in turn
     * over taps (not channels: a first layer has only 3). */
    int64_t *tap_off;
    /* Edge tiles of the tap table (or NULL): rows whose borders read
     * padding run in whole tiles of one width (the 3 border pixels a row
     * of 7x7 s2 3->64 224, one at a time with four partial sums, cost 4%
     * of the call). Code c of kernel column kw says which of the tile's
     * pixels read inside the input there: 0 all, 1 or 2 all but the first
     * c, 3 or 4 all but the last c - 2; the first tile's codes at
     * [0, KW), the last tile's at [KW, 2 KW); the others are inside. The
     * tiles walk their taps grouped by code (eruns below). A padded copy
     * of the rows (the ring) instead read 4-5% slower than the source
     * itself, for every tile. Part of tap_off's allocation. */
    int64_t *tap_ecase;
    /* The first (0) and the last (1) edge tile's taps grouped by edge
     * code, built from tap_ecase: run r has code code[r] and per[r] taps
     * per kernel row, in (kh, kw, channel) order from pair at[r]; pair k is
     * the source offset src[k] and the weight offset wei[k] (floats from
     * block 0's weights). A tile walks each code's taps of its kernel rows
     * [kh0, kh1) as one loop: 21 runs of 3 to 15 taps per edge tile of
     * 7x7 s2 3->64 224 (7 kernel rows x 3 codes) became 3, and the call
     * 0.5% faster (AVX2: 11%). Part of tap_off's allocation. */
    struct lg__conv_eruns {
        int n;
        int code[LG_CONV_ECODES];
        int64_t at[LG_CONV_ECODES], per[LG_CONV_ECODES];
        const int64_t *src, *wei;
    } eruns[2];
    /* Source offset of each kernel row kh: kh * s_kh. */
    int64_t *khoff;
    /* Padded rows: for one group, 2D, a channel-blocked source with unit
     * stride along W and pixels whose window leaves the input along W.
     * Each thread copies the source rows (prow_w pixels, the W padding as
     * zeros) into a ring of prow_n rows per channel block (prow_c floats;
     * row ih in slot ih mod prow_n), each row once, and runs every pixel of
     * a row in full tiles over it, the kernel rows' offsets from a table
     * (the border kernel streams all the weights for one pixel: 3x3
     * 128->128 28x28 ran 10% slower than its unpadded twin); psegs: the
     * segments' offsets in it. prow_c == 0: none.
     * The rings are allocated with the plan (execution never allocates):
     * nring of them, ring_stride floats apart (the ring, its kh-entry row
     * table, then with ring_tq its tap table), one per thread of
     * omp_get_max_threads() at creation; a
     * thread claims a free one through ring_busy and releases it at the
     * end, and a thread that finds none free (more concurrent executions
     * of the kernel than rings) runs the border kernel instead. */
    int64_t prow_w, prow_n, prow_c;
    int ring_kind; /* the tiles' source kind over the ring (BLK or BLK2; the
                      source may be nhwc: its rows are stored blocked) */
    lg__conv_seg *psegs;
    /* Every segment a whole block: the tiles over the ring walk a row's
     * (kh, kw) steps as one loop over a table of the first segment's
     * (source, weight) offsets, built per row (with src_rows per
     * kernel-row range: the offsets are then the same for every row; the
     * nested loops' scalar work shares the FMA ports: with the source
     * prefetch, 3x3 128->128 28x28 ran 3-4% faster). Each step walks the
     * segments, evenly spaced, by adding their strides (segments outermost
     * with a table entry each ran that layer 0.6% slower). */
    int ring_tq;
    /* With ring_tq: each step's two-channel loops prefetch the next step's
     * weights and source pixels into L1. Set when a chunk's weights pass
     * 48 KB (this Intel host's L1d): they then stream from L2, in an order
     * the hardware prefetchers follow late (3x3 128->128 28x28, 147 KB a
     * chunk: 6-8% faster). A chunk that fits stays in L1 over the row, and
     * the hints only take load slots (3x3 32->32 112x112, 37 KB: 2% slower
     * with them). The edge sections (ring_edge) prefetch either way
     * (direct_tpl.h ring_walk). */
    int ring_l1pf;
    /* Edge sections of the tap table (with ring_tq and KW >= 2): bit 0
     * when the row's first output pixel reads padding at kw = 0 (a left
     * pad), bit 1 when its last pixel reads padding at kw = KW - 1. The
     * table then holds those columns' steps in sections of their own
     * (kw = 0 first, kw = KW - 1 last), and a tile holding such a pixel
     * walks its section without it, so the ring's zeros there are not
     * multiplied (3x3 128->128 28x28 spent 2.4% of its FMAs on them, 2%
     * of its time). Other taps that read padding (pads of 2 and more)
     * still multiply zeros. */
    int ring_edge;
    /* The tiles read the source's own rows, and the ring holds only its
     * tables (prow_c floats of rows are not allocated): a channel-blocked
     * source whose W padding only the edge sections' skipped taps would
     * read (a left pad of at most one column step and one pixel step, the
     * same on the right). The copy cost 3x3 128->128 28x28 N=8 1-1.4% of
     * its time, 3x3 64->64 56x56 N=1 3%. */
    int src_rows;
    int nring;
    int64_t ring_stride;
    float *rings;
    _Atomic int *ring_busy;
    const lg__conv_pd *pd;
    lg__eltwise_pd epd[LG_MAX_POST_OPS]; /* the eltwise post-ops as kernels' problems */
} lg__conv_direct;

/* Test hook: while nonzero, executions claim no ring for the padded rows
 * (as when every ring is taken), so their border pixels run through the
 * border kernel. */
LG_INTERNAL extern int lg__conv_rings_off;

/* Test hook: the number of direct plans built with tap edge tiles
 * (tap_ecase) in this process. */
LG_INTERNAL extern atomic_long lg__conv_edge_plans;

/* Test hook: the number of direct plans built with src_rows in this
 * process. */
LG_INTERNAL extern atomic_long lg__conv_src_row_plans;

/* Test hook: the number of direct plans built with ring_l1pf in this
 * process. */
LG_INTERNAL extern atomic_long lg__conv_l1pf_plans;

/* Build the direct plan of c for vector length vl, or return false (the
 * layouts or the problem do not fit this path). *out is allocated with
 * lg__malloc; free with lg__conv_direct_free. Sets *oom on allocation
 * failure. */
LG_INTERNAL bool lg__conv_direct_plan(const lg__conv_kernel *c, int vl, lg__conv_direct **out,
                                      bool *oom);
LG_INTERNAL void lg__conv_direct_free(lg__conv_direct *d);

/* The same for the depthwise path. */
LG_INTERNAL bool lg__conv_dw_plan(const lg__conv_kernel *c, int vl, lg__conv_direct **out,
                                  bool *oom);

/* Run items [lo, hi) of the plan (one thread's share). */
typedef void (*lg__conv_direct_fn)(const lg__conv_direct *d, int64_t lo, int64_t hi,
                                   const float *src, const float *wei, const float *bias,
                                   float *dst);
LG_INTERNAL void lg__conv_direct_avx512(const lg__conv_direct *d, int64_t lo, int64_t hi,
                                        const float *src, const float *wei, const float *bias,
                                        float *dst);
LG_INTERNAL void lg__conv_direct_avx2(const lg__conv_direct *d, int64_t lo, int64_t hi,
                                      const float *src, const float *wei, const float *bias,
                                      float *dst);

/* Pixels per tile for 1..4 blocks (index 0 unused), as the ISA file
 * instantiates them (direct_tpl.h's URMAX1..URMAX4): a chunk never takes a
 * wider tile than its block count's entry. */
LG_INTERNAL extern const int lg__conv_urmax_avx512[LG_CONV_MAX_NB + 1];
LG_INTERNAL extern const int lg__conv_urmax_avx2[LG_CONV_MAX_NB + 1];

/* Pixels per depthwise tile as dw_avx512.c / dw_avx2.c instantiate them:
 * [0] for 3-wide and general kernels, [1] for the 5-wide ones (which hold
 * five weight vectors in registers). */
LG_INTERNAL extern const int lg__conv_dw_urmax_avx512[2];
LG_INTERNAL extern const int lg__conv_dw_urmax_avx2[2];

LG_INTERNAL void lg__conv_dw_avx512(const lg__conv_direct *d, int64_t lo, int64_t hi,
                                    const float *src, const float *wei, const float *bias,
                                    float *dst);
LG_INTERNAL void lg__conv_dw_avx2(const lg__conv_direct *d, int64_t lo, int64_t hi,
                                  const float *src, const float *wei, const float *bias,
                                  float *dst);

#endif /* LG_PRIMITIVES_CONV_DIRECT_H */
