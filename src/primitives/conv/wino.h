/* The Winograd convolution path (AVX-512 and AVX2), impl
 * "conv:<isa>:wino4x4": F(4x4, 3x3) for 2D 3x3 kernels, stride 1, no
 * dilation, one group, padding 0 or 1 on each side, f32, src and dst
 * channel-blocked by VL (nChw8c / nChw16c) or channels-last (nhwc, any
 * pixel strides; the last partial channel block through masked loads and
 * stores), any N / H / W (tiles past the bottom or right edge are
 * partial).
 *
 * Algorithm (Lavin and Gray, "Fast Algorithms for Convolutional Neural
 * Networks", 2016): the output is cut into 4x4 tiles; tile t reads a 6x6
 * input patch d (zero outside the image) and, per input channel c and
 * output channel o,
 *     Y = A^T [ sum_c (G g_oc G^T) .* (B^T d_c B) ] A
 * with G 6x3, B^T 6x6, A^T 4x6 the matrices of wino.c. The 36 entries of the
 * transformed domain are 36 independent matrix products
 *     M_k[tile][o] = sum_c V_k[tile][c] U_k[c][o]     (k < 36)
 * which take 36 x IC x OC multiplies per tile against 144 x IC x OC for the
 * direct convolution (4x fewer).
 *
 * Steps of one execution:
 *  1. weights: U = G g G^T for every (o, c), laid out [k][oc block][ic][VL]
 *     (4x the weight bytes). A graph plan's step whose weights are a
 *     constant transforms them once when the plan is compiled, into a
 *     buffer of its own (lg__conv_wino_prepare: kernels are shared through
 *     the cache between layers and plans of the same shape, each with its
 *     own weights). For direct users of the kernel the weights arrive with
 *     each execute and may change between calls: the kernel keeps a copy of
 *     the bytes it transformed into its own buffer and redoes the transform
 *     (in parallel) only when the weights differ from it (a memcmp);
 *  2. work items (tile block, output channel group), split between threads:
 *     the block's input patches transformed into V [k][ic block][tile][VL]
 *     (per-thread scratch), the 36 products into M [k][oc block][tile][VL]
 *     by a register-blocked kernel (AVX2 3 oc blocks x 4 tiles, AVX-512
 *     4 x 6: a broadcast of V, vector loads of U), then the output
 *     transform, bias and the post-op chain, stored with the partial tiles'
 *     and the last channel block's padding handled (padding lanes zero).
 * Tile blocks are sized so that V and M of a block stay in L2; with few
 * tile blocks (N = 1 at 14x14 or 7x7) the output channels are split
 * between threads instead so that both work.
 *
 * Error: the products accumulate in f32 over IC like the direct path, but
 * on transformed values (B^T entries up to 5, A^T up to 8, G's 1/6, 1/12,
 * 1/24) whose rounding the output transform carries back; the tests
 * (tests/primitives/test_conv_wino.c) assert the error within 8x the direct
 * path's bound (9 IC + 1) x 2^-23 x sum |x w| and measured at most 0.82x.
 *
 * A second execution running while one holds the plan's buffers (two
 * threads executing the same kernel) runs the direct path instead, which
 * the plan also builds, as does an execution nested inside an OpenMP
 * parallel region. */
#ifndef LG_PRIMITIVES_CONV_WINO_H
#define LG_PRIMITIVES_CONV_WINO_H

#include "primitives/conv/conv.h"
#include "primitives/conv/direct.h"
#include "primitives/eltwise/eltwise.h"

#include <stdatomic.h>

/* Epilogues: none, relu (alpha 0) in registers, anything else through a
 * tile buffer (sums from dst, eltwise by the ISA's eltwise kernel). */
enum { LG_WINO_EPI_NONE, LG_WINO_EPI_RELU, LG_WINO_EPI_GEN };

typedef struct lg__conv_wino {
    lg__conv_shape s;
    const lg__conv_pd *pd;
    const lg__conv_tabs *tabs; /* the weights' offsets (any layout) */
    int vl;
    int epi;
    int64_t th, tw, ntiles;      /* tiles per image: th x tw */
    int64_t ttot;                /* n x ntiles */
    int64_t ntb, nog;            /* tile blocks, output channel groups */
    int64_t tmax;                /* largest tile block */
    int64_t nitems;              /* ntb x nog, group innermost */
    int64_t nicb, nocb;          /* channel blocks */
    int64_t nchunk, nbmax;       /* output chunks of up to nbmax blocks */
    int64_t s_n, s_cb, s_h, s_w; /* src steps (channel block: VL when channels-last) */
    int64_t d_n, d_cb, d_h, d_w; /* dst steps */
    int src_cl, dst_cl;          /* channels-last: partial blocks by masked loads / stores */
    float *u;                    /* 36 x nocb x (nicb x VL) x VL */
    void *wcopy;                 /* the weights' bytes u was computed from */
    size_t wbytes;               /* lg_md_size of the weights */
    int u_valid;                 /* u holds the transform of wcopy */
    float *scr;                  /* nthr x scr_stride: V then M */
    int64_t scr_stride, v_size;
    int nthr;
    atomic_int busy;
    lg__eltwise_pd epd[LG_MAX_POST_OPS];
    lg__conv_direct *fb; /* the direct fallback */
    lg__conv_direct_fn fb_fn;
} lg__conv_wino;

/* Whether the problem fits the Winograd path at vector length vl (the
 * shapes and the layouts of src and dst); when not and why is non-NULL, a
 * sentence saying why goes into why[len]. */
LG_INTERNAL bool lg__conv_wino_fits(const lg__conv_pd *pd, const lg__conv_shape *s, int vl,
                                    char *why, size_t len);

/* For lg__conv_query: LG_UNIMPLEMENTED (naming `where`, NULL: quiet) when
 * pd asks for LG_CONV_WINOGRAD and no vector length of this CPU fits it. */
LG_INTERNAL lg_status lg__conv_wino_check(const lg__conv_pd *pd, const char *where);

/* Build the plan of c for vector length vl (lg__conv_wino_fits true).
 * LG_OUT_OF_MEMORY (no message) on failure. Free with lg__conv_wino_free. */
LG_INTERNAL lg_status lg__conv_wino_plan(const lg__conv_kernel *c, int vl, lg__conv_wino **out);
LG_INTERNAL void lg__conv_wino_free(lg__conv_wino *w);

/* Run the whole convolution (threads inside). bias NULL when none. u: the
 * transform of wei made by lg__conv_wino_prepare (a plan's constant
 * weights), or NULL: the plan's own buffer, redone when wei's bytes differ
 * from the ones it was made from. */
LG_INTERNAL void lg__conv_wino_run(lg__conv_wino *w, const float *src, const float *wei,
                                   const float *bias, float *dst, const float *u);

/* The transformed weights of wei (from its first element) into a new
 * buffer *u (free with lg__free), for a plan step whose weights are a
 * constant: LG_OUT_OF_MEMORY on failure. */
LG_INTERNAL lg_status lg__conv_wino_prepare(const lg__conv_wino *w, const float *wei, float **u);

/* Whether LG_CONV_AUTO takes Winograd for this problem at vector length
 * vl (8 or 16 lanes; measured rules, docs/performance.md "Winograd 3x3"
 * and "Winograd's AUTO rule on AVX-512"). */
LG_INTERNAL bool lg__conv_wino_auto(const lg__conv_shape *s, int vl);

/* One thread's share: items [lo, hi) of the plan, with the transformed
 * weights u and scratch buf. */
typedef void (*lg__conv_wino_fn)(const lg__conv_wino *w, const float *u, int64_t lo, int64_t hi,
                                 const float *src, const float *bias, float *dst, float *buf);
LG_INTERNAL void lg__conv_wino_avx2(const lg__conv_wino *w, const float *u, int64_t lo, int64_t hi,
                                    const float *src, const float *bias, float *dst, float *buf);
LG_INTERNAL void lg__conv_wino_avx512(const lg__conv_wino *w, const float *u, int64_t lo,
                                      int64_t hi, const float *src, const float *bias, float *dst,
                                      float *buf);

/* The weight transform of output block ob, input block ib into u (wei
 * from its first element: offset0 applied). */
typedef void (*lg__conv_wino_wei_fn)(const lg__conv_wino *w, float *u, const float *wei, int64_t ob,
                                     int64_t ib);
LG_INTERNAL void lg__conv_wino_wei_avx2(const lg__conv_wino *w, float *u, const float *wei,
                                        int64_t ob, int64_t ib);
LG_INTERNAL void lg__conv_wino_wei_avx512(const lg__conv_wino *w, float *u, const float *wei,
                                          int64_t ob, int64_t ib);

#endif /* LG_PRIMITIVES_CONV_WINO_H */
