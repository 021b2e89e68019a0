/* Concat and slice kernels (lg_concat_create, lg_slice_create): one copy
 * engine. A problem is a dst made of pieces along one axis: piece i copies
 * src i's axis range [s0, s0 + len) to dst's [d0, d0 + len) (a concat has
 * one piece per source with s0 = 0; a slice one piece with d0 = 0). */
#ifndef LG_PRIMITIVES_CONCAT_CONCAT_H
#define LG_PRIMITIVES_CONCAT_CONCAT_H

#include "memory/md.h"
#include "primitives/cpu.h"
#include "primitives/kernel.h"

/* The cache key: this header, then n source mds (canonical). */
typedef struct lg__cc_pd {
    int32_t slice; /* 0: concat, 1: slice */
    int32_t axis;
    int32_t n;
    int32_t pad0;
    int64_t start; /* slice: src's first index on the axis */
    lg_md dst;
    lg_md src[];
} lg__cc_pd;

/* lg_concat_create / lg_slice_create without creating: validate as they
 * do (errors name `where`; NULL: quiet, nothing recorded), resolve dst
 * "any" and allocate the cache key into *pd (*psize bytes; the caller
 * lg__free-s it; NULL on failure). */
LG_INTERNAL lg_status lg__concat_query(int axis, int n, const lg_md *srcs, const lg_md *dst,
                                       const char *where, lg__cc_pd **pd, size_t *psize);
LG_INTERNAL lg_status lg__slice_query(int axis, int64_t start, const lg_md *src, const lg_md *dst,
                                      const char *where, lg__cc_pd **pd, size_t *psize);

/* True if the kernel of pd would copy on the blocked, rows or views path,
 * not the reference: asked of the same planners, nothing created or
 * cached (the views path's reorders asked through lg__reorder_query). */
LG_INTERNAL bool lg__cc_fast(const lg__cc_pd *pd);

/* Piece i of pd: src i (0 for a slice) range [s0, s0 + len) -> dst [d0, ...). */
typedef struct lg__cc_piece {
    int64_t s0, d0, len;
} lg__cc_piece;

/* The pieces of pd into pc[0..pd->n) (a slice: one). */
LG_INTERNAL void lg__cc_pieces(const lg__cc_pd *pd, lg__cc_piece *pc);

/* The scalar reference: every dst element, padding written as zeros. */
LG_INTERNAL void lg__cc_ref(const lg__cc_pd *pd, const lg__cc_piece *pc, const void *const *srcs,
                            void *dst);

/*
 * The blocked engine: sources and dst all in the layout with one inner
 * block of B on the axis and the natural outer order (aBcd16b for axis 1),
 * dense. A buffer is N outer planes (dims before the axis), each of `cb`
 * channel blocks, each of R rows (dims after the axis) of BB bytes (one
 * block). Dst block j of a plane is assembled from segments: bytes [so, so
 * + len) of a row of source `src`'s block `sblk` go to bytes [dof, dof +
 * len) of the dst row; bytes no segment covers are zeros.
 */
typedef struct lg__cc_seg {
    int32_t src, so, dof, len;
    int64_t sblk;
} lg__cc_seg;

typedef struct lg__cc_blocked {
    int64_t N, R, BB, dcb;
    int nsrc;
    int64_t *scb;     /* blocks per plane of each source */
    int32_t *seg0;    /* dcb + 1: block j's segments are segs[seg0[j], seg0[j + 1]) */
    lg__cc_seg *segs; /* nseg of them */
    int32_t nseg;
    uint8_t *masks; /* BB bytes per segment: 0xff inside [dof, dof + len) */
} lg__cc_blocked;

/* Rows [r0, r1) of dst block j of plane n. */
typedef void (*lg__cc_rows_fn)(const lg__cc_blocked *b, const void *const *srcs, void *dst,
                               int64_t n, int64_t j, int64_t r0, int64_t r1);

LG_INTERNAL void lg__cc_rows_scalar(const lg__cc_blocked *b, const void *const *srcs, void *dst,
                                    int64_t n, int64_t j, int64_t r0, int64_t r1);
LG_INTERNAL void lg__cc_rows_avx2(const lg__cc_blocked *b, const void *const *srcs, void *dst,
                                  int64_t n, int64_t j, int64_t r0, int64_t r1);
LG_INTERNAL void lg__cc_rows_avx512(const lg__cc_blocked *b, const void *const *srcs, void *dst,
                                    int64_t n, int64_t j, int64_t r0, int64_t r1);

/* Plan the blocked engine for pd (false when the layouts do not fit it or
 * memory runs out: the caller takes another path); lg__cc_blocked_free
 * releases it. */
LG_INTERNAL bool lg__cc_blocked_plan(const lg__cc_pd *pd, const lg__cc_piece *pc,
                                     lg__cc_blocked *b);
LG_INTERNAL void lg__cc_blocked_free(lg__cc_blocked *b);

/* Source row r of segment s for plane n. */
static inline const uint8_t *lg__cc_src_row(const lg__cc_blocked *b, const void *const *srcs,
                                            const lg__cc_seg *s, int64_t n, int64_t r) {
    return (const uint8_t *)srcs[s->src] + ((n * b->scb[s->src] + s->sblk) * b->R + r) * b->BB;
}

/* Most pieces the rows path copies run by run (more: one memcpy per run). */
#define LG_CC_RUNS_MAX 16

/* Most segments one dst block has on the vector paths (BB <= 64 bytes, one
 * byte at least per segment). */
#define LG_CC_MAXSEG 64

/* The vector paths' setup for dst block j of plane n: base[s] = the window
 * of segment s at row 0 (row r at base[s] + r * BB, aligned so that the
 * segment's bytes land on its dst bytes). Returns the segment count, or -1
 * when the block is not for the vector paths (BB not 16, 32 or 64). */
static inline int lg__cc_windows(const lg__cc_blocked *b, const void *const *srcs, int64_t n,
                                 int64_t j, const uint8_t **base) {
    const int32_t k0 = b->seg0[j], ns = b->seg0[j + 1] - k0;
    if ((b->BB != 16 && b->BB != 32 && b->BB != 64) || ns > LG_CC_MAXSEG) return -1;
    for (int32_t s = 0; s < ns; s++) {
        const lg__cc_seg *g = &b->segs[k0 + s];
        base[s] = lg__cc_src_row(b, srcs, g, n, 0) + g->so - g->dof;
    }
    return ns;
}

/* The rows path's short runs: for each outer index o in [o0, o1), piece p's
 * run[p] bytes at src[p] + o * sstride[p] go to dst + o * dstride + doff[p]
 * (runs of different pieces do not overlap in dst). */
typedef struct lg__cc_runs {
    int npc;
    int64_t dstride;
    const uint8_t *src[LG_CC_RUNS_MAX];
    int64_t sstride[LG_CC_RUNS_MAX], doff[LG_CC_RUNS_MAX], run[LG_CC_RUNS_MAX];
} lg__cc_runs;

typedef void (*lg__cc_runs_fn)(const lg__cc_runs *r, uint8_t *dst, int64_t o0, int64_t o1);
LG_INTERNAL void lg__cc_runs_scalar(const lg__cc_runs *r, uint8_t *dst, int64_t o0, int64_t o1);
LG_INTERNAL void lg__cc_runs_avx2(const lg__cc_runs *r, uint8_t *dst, int64_t o0, int64_t o1);

#endif /* LG_PRIMITIVES_CONCAT_CONCAT_H */
