/* The shuffle driver and its baseline paths (PLANES and TABLE).
 *
 * Units. PLANES and TABLE: one unit per (outer pixel o, channel c), in that
 * row-major order, each moving L elements (TABLE: L = 1). PERMUTE: one unit
 * per (outer pixel o, chunk of the `in` vdim), each running every window over
 * the chunk's pixels. Each thread takes one contiguous range of units; all
 * units write disjoint dst elements. Problems that move fewer than PAR_BYTES
 * run on the calling thread: below that, waking a team costs more than it
 * saves. Nothing here allocates; a plan is read-only, so one plan may run on
 * several threads at once. */
#include "primitives/shuffle/shuffle.h"
#include "primitives/shuffle/plan_layouts.h"

#include <emmintrin.h>
#include <omp.h>
#include <string.h>

/* Bytes moved (read + written) from which a problem runs on all threads. */
#define PAR_BYTES (192 * 1024)

/* Element offset of outer pixel o (the base included). */
static int64_t outer_off(const lg__shuf_plan *p, int64_t o) {
    int64_t off = p->base;
    for (int i = p->nout - 1; i >= 0 && o > 0; i--) {
        int64_t q = o / p->on[i];
        off += (o - q * p->on[i]) * p->os[i];
        o = q;
    }
    return off;
}

/* Copy n bytes with plain 16-byte vector moves (SSE2, baseline x86-64).
 * Measured on the target (8x256x56x56 f32 planes of 12.5 KB, two threads):
 * about 10% faster than non-temporal stores and than memcpy, whose string
 * moves lose on runs of a few KB. */
static void copy_plain(char *d, const char *s, size_t n) {
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
}

/* TABLE: channels [c0, c1) of the pixel at s / d, element by element. */
#define TABLE_LOOP(T)                                                                              \
    for (int64_t c = c0; c < cv; c++) {                                                            \
        T v;                                                                                       \
        memcpy(&v, s + p->soff[c] * (int64_t)sizeof(T), sizeof(T));                                \
        memcpy(d + p->doff[c] * (int64_t)sizeof(T), &v, sizeof(T));                                \
    }
static void table_pixel(const lg__shuf_plan *p, const char *s, char *d, int64_t c0, int64_t c1) {
    int64_t cv = c1 < p->C ? c1 : p->C;
    switch (p->esz) {
    case 1:
        TABLE_LOOP(uint8_t);
        break;
    case 2:
        TABLE_LOOP(uint16_t);
        break;
    default:
        TABLE_LOOP(uint32_t);
        break;
    }
    for (int64_t c = c0 > p->C ? c0 : p->C; c < c1; c++) memset(d + p->doff[c] * p->esz, 0, p->esz);
}

/* PLANES and TABLE units [lo, hi). */
static void run_planes(const lg__shuf_plan *p, const char *src, char *dst, int64_t lo, int64_t hi) {
    int64_t esz = p->esz, o = lo / p->padC, c = lo % p->padC;
    size_t run = (size_t)(p->L * esz);
    while (lo < hi) {
        int64_t g = outer_off(p, o) * esz;
        int64_t c1 = c + (hi - lo) < p->padC ? c + (hi - lo) : p->padC;
        if (p->mode == LG_SHUF_TABLE) {
            table_pixel(p, src + g, dst + g, c, c1);
        } else {
            for (int64_t k = c; k < c1; k++) {
                char *d = dst + g + p->doff[k] * esz;
                if (k >= p->C)
                    memset(d, 0, run);
                else if (run >= 256)
                    copy_plain(d, src + g + p->soff[k] * esz, run);
                else
                    memcpy(d, src + g + p->soff[k] * esz, run);
            }
        }
        lo += c1 - c;
        c = 0;
        o++;
    }
}

/* PERMUTE units [lo, hi): whole window groups through the kernel, a
 * trailing partial group (m > 1) pixel by pixel through the tables. */
static void run_permute(const lg__shuf_plan *p, const char *src, char *dst, int64_t lo, int64_t hi,
                        bool stream) {
    int64_t esz = p->esz;
    for (int64_t u = lo; u < hi; u++) {
        int64_t o = u / p->nchunks, k = u % p->nchunks;
        int64_t first = k * p->chunk;
        int64_t n = p->in_n - first < p->chunk ? p->in_n - first : p->chunk;
        int64_t g = (outer_off(p, o) + first * p->in_s) * esz, ng = n / p->m;
        if (ng > 0) p->chunk_fn(p, src + g, dst + g, ng, stream);
        for (int64_t i = ng * p->m; i < n; i++)
            table_pixel(p, src + g + i * p->in_s * esz, dst + g + i * p->in_s * esz, 0, p->padC);
    }
}

static void run(const lg__shuf_plan *p, const void *src, void *dst, int64_t lo, int64_t hi,
                bool stream) {
    if (p->mode == LG_SHUF_PERMUTE)
        run_permute(p, src, dst, lo, hi, stream);
    else
        run_planes(p, src, dst, lo, hi);
    if (stream) _mm_sfence();
}

void lg__shuffle_exec(const lg__shuf_plan *p, const void *src, void *dst) {
    if (p->mode == LG_SHUF_LAYOUTS) {
        lg__shuffle_exec_layouts(p->lplan, src, dst);
        return;
    }
    int64_t total = p->units;
    if (total == 0) return;
    bool stream =
        p->stream && ((uintptr_t)dst + (uintptr_t)(p->base * p->esz)) % p->stream_align == 0;
    int nthr = p->bytes >= PAR_BYTES && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > total) nthr = (int)total;
    if (nthr <= 1) {
        run(p, src, dst, 0, total, stream);
        return;
    }
#pragma omp parallel num_threads(nthr)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        run(p, src, dst, total * t / nt, total * (t + 1) / nt, stream);
    }
}
