/* The pointwise (1x1) convolution path (AVX-512 and AVX2), impl
 * "conv:<isa>:pw": a blocked matrix product dst[pixel][oc] = sum over ic of
 * src[pixel][ic] * wei[ic][oc], for 1x1x1 kernels without padding, any
 * stride, one group, f32.
 *
 * Layouts it takes (checked by lg__conv_pw_plan):
 *  - src and dst: channel-blocked by VL (aBx{VL}b) or channels-last (plain,
 *    channel stride 1: nxc), in any mix;
 *  - weights: O blocked by VL innermost, I optionally blocked by VL just
 *    outside it (OIx{VL}i{VL}o or Oxi{VL}o: the layouts the direct path
 *    takes), so that one output block's weights are contiguous over input
 *    channels.
 *
 * Register tiles: nb output channel blocks times ur consecutive output
 * pixels (AVX2 up to 3 x 4 / 2 x 6 / 1 x 12, AVX-512 up to 4 x 6 / 3 x 8 /
 * 2 x 12 / 1 x 16) accumulated over one reduction block, weights loaded as
 * vectors, source values broadcast from a source laid out [channel block]
 * [pixel][VL] with unit pixel step VL.
 *
 * At stride 1 with dense pixels the src is read in place: blocked, it is
 * that layout itself; channels-last, the tiles broadcast with the src's
 * pixel step (no pack: MobileNetV2's nhwc projections ran 1.05-1.15x
 * faster than packed). Otherwise (stride 2, spatial views) each pixel block
 * is packed once per reduction block into a per-thread buffer allocated
 * with the plan (execution never allocates: a call that finds every buffer
 * taken packs one tile at a time on its stack instead).
 *
 * Cache blocking: the reduction runs in blocks of kc input channels (the
 * weight panel of a chunk, nb x VL x kc floats, stays in L1 while every tile
 * of a pixel block uses it; partial sums kept in dst between blocks); pixel
 * blocks of mc pixels (their kc-channel source stays in L2 while every chunk
 * of output channels uses it). Work items are (image, pixel block, group of
 * chunks); the split (pixel blocks x chunk groups) is chosen at plan time so
 * that the threads get equal work (at N = 1 on 7x7 the output channels are
 * split instead of the 49 pixels).
 *
 * Epilogue: bias is the accumulators' initial value; relu(alpha = 0), clip
 * (relu6), sum and sum + relu run in registers (a sum spanning several reduction blocks
 * enters with the first one); any other chain runs through a tile buffer
 * (sums from dst, eltwise by the ISA's eltwise kernel) over one reduction
 * block. The padding lanes of a blocked dst's last block are stored as
 * zero; channels-last dst is stored with masks (nothing past OC). */
#ifndef LG_PRIMITIVES_CONV_PW_H
#define LG_PRIMITIVES_CONV_PW_H

#include "primitives/conv/conv.h"
#include "primitives/eltwise/eltwise.h"

#include <stdatomic.h>

/* Most output channel blocks per chunk. */
#define LG_CONV_PW_MAX_NB 4

/* Epilogue kinds. */
enum {
    LG_PW_EPI_NONE,
    LG_PW_EPI_RELU,
    LG_PW_EPI_SUM,
    LG_PW_EPI_SUM_RELU,
    LG_PW_EPI_CLIP, /* one clip (relu6): min(max(v, alpha), beta) */
    LG_PW_EPI_GEN
};

/* A chunk: nb output channel blocks b0 .. b0 + nb - 1, tiles of up to ur
 * pixels; when partial, its last block holds only nlast channels (the end
 * of OC). */
typedef struct lg__conv_pw_chunk {
    int32_t b0, nb, ur, partial, nlast, pad_;
} lg__conv_pw_chunk;

typedef struct lg__conv_pw {
    lg__conv_shape s;
    const lg__conv_pd *pd;
    int vl;
    int epi; /* LG_PW_EPI_* */
    float sum_scale;
    float clip_lo, clip_hi; /* LG_PW_EPI_CLIP */
    int pack; /* pixel blocks are packed (else src is read in place, pixels s_p apart) */
    /* src: image step, spatial steps (d, h, w) of one input pixel, step of
     * one channel block (blocked: its plane; channels-last: VL), whether a
     * channel block is a full vector in memory (blocked). */
    int64_t s_n, s_d, s_h, s_w, s_cb, s_p;
    int src_blk;
    /* dst: image step, pixel step (pixels dense), channel block step. */
    int64_t d_n, d_p, d_cb;
    int dst_cl;
    int64_t w_ob; /* weights: step of one output block */
    int64_t npix; /* output pixels per image */
    lg__conv_pw_chunk *chunks;
    int64_t nchunk;
    int64_t kc, nkb; /* reduction blocks: nkb of kc channels (the last shorter) */
    int64_t npb;     /* pixel blocks per image (sizes differ by at most 1) */
    int64_t nog;     /* chunk groups */
    int64_t mc;      /* largest pixel block */
    int64_t nitems;  /* n x npb x nog, chunk group innermost */
    int ur_max;      /* largest tile of any chunk (the stack fallback's pixel block) */
    /* Pack buffers: nbuf of buf_stride floats (mc x kc each), claimed per
     * call through buf_busy. */
    float *bufs;
    int64_t buf_stride;
    int nbuf;
    atomic_int *buf_busy;
    lg__eltwise_pd epd[LG_MAX_POST_OPS]; /* the eltwise post-ops as kernels' problems */
} lg__conv_pw;

/* Build the pointwise plan of c for vector length vl, or return false (the
 * problem or its layouts do not fit this path). Sets *oom on allocation
 * failure. Free with lg__conv_pw_free. */
LG_INTERNAL bool lg__conv_pw_plan(const lg__conv_kernel *c, int vl, lg__conv_pw **out, bool *oom);
LG_INTERNAL void lg__conv_pw_free(lg__conv_pw *d);

/* Test and benchmark hook: while nonzero, lg__conv_pw_plan declines every
 * problem (the kernels built meanwhile take the other paths). */
LG_INTERNAL extern int lg__conv_pw_off;

/* Test hook: while nonzero, executions claim no pack buffer (as when every
 * buffer is taken) and pack one tile at a time on their stack. */
LG_INTERNAL extern int lg__conv_pw_nobuf;

/* Run items [lo, hi) of the plan (one thread's share). */
typedef void (*lg__conv_pw_fn)(const lg__conv_pw *d, int64_t lo, int64_t hi, const float *src,
                               const float *wei, const float *bias, float *dst);
LG_INTERNAL void lg__conv_pw_avx512(const lg__conv_pw *d, int64_t lo, int64_t hi, const float *src,
                                    const float *wei, const float *bias, float *dst);
LG_INTERNAL void lg__conv_pw_avx2(const lg__conv_pw *d, int64_t lo, int64_t hi, const float *src,
                                  const float *wei, const float *bias, float *dst);

#endif /* LG_PRIMITIVES_CONV_PW_H */
