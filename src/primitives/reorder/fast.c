/* The fast reorder engine: planning (fast_plan.c), kernel choice per ISA and
 * the driver that spreads a plan's parallel units over OpenMP threads.
 *
 * Threading: the units of all jobs form one sequence weighted by their cost
 * (elements); each thread takes one contiguous share of the total cost, so
 * the split is balanced whatever the job mix; a thread's consecutive units
 * of one outer index run as one kernel call. Problems that move fewer than
 * PAR_BYTES run on the calling thread, job by job without the unit split:
 * below that, waking a team costs more than it saves. Nothing here
 * allocates, and a plan is read-only during exec, so one plan may run on
 * several threads at once. */
#include "primitives/reorder/fast_plan.h"

#include <omp.h>
#include <stdatomic.h>
#include <string.h>
#include <xmmintrin.h>

/* Bytes moved (read + written) from which a problem runs on all threads.
 * Measured on two threads, nchw <-> nChw16c and nchw -> nhwc f32 (one call
 * per thread and outer index): at 1x48x14x14 (75 KB) one thread is
 * 7-10% faster, at 1x64x14x14 (100 KB) two are 5-15% faster (the halves
 * then stay in each core's L1 and L2 between calls), at 1x96x14x14 20-30%. */
#define PAR_BYTES (80 * 1024)
/* Bytes a problem moves (src read + dst written) from which copies and
 * zero fills use non-temporal stores: about the L3 (35.8 MB on the
 * reference machine), so the data cannot stay cached for a later reader
 * anyway, and the stores then skip the read for ownership. Measured on one thread, 8x256x56x56
 * f32 (51 MB moved): nChw8c -> nChw16c 0.96x -> 1.12x oneDNN, nhwc ->
 * nChw16c 1.45x -> 1.84x. Transposes whose stores are scattered (see
 * scattered()) stream from there or once dst alone has half of it: there
 * every line written costs a read for ownership that no
 * prefetcher anticipates, and streaming halves the time (nchw -> nhwc,
 * 8x256x56x56: 11.6 -> 6.0 ms). Transposes that write dst in sequence
 * stream (from the same sizes) on every core but Intel's before Sapphire
 * Rapids (Intel without AVX512-FP16; see sequential_streams()). A test
 * hook may change the threshold. */
#define STREAM_BYTES (32ll * 1024 * 1024)
static _Atomic int64_t stream_bytes = STREAM_BYTES;

/* True if job j's dst stores follow no sequential stream: a transpose that
 * walks A tiles in the outer loop (the kernel's choice when the A run spans
 * more than two lines), over rows of B, each on its own line (nchw -> nhwc:
 * 256 rows; nChw16c -> nchw: 16, where streaming measured 0.94x -> 1.15x
 * oneDNN on one thread). */
static bool scattered(const lg__rf_job *j, int dsz) {
    return j->kind == LG_RF_TRANS && (j->kd[0].n + j->apad) * dsz > 128 &&
           j->kd[1].st[LG_RF_DST] * dsz > 64;
}

/* True if transposes that write dst in sequence should stream beyond the
 * threshold. They read VL src rows at once; on the reference machine
 * (Intel, 35.8 MB L3, no AVX512-FP16) the stores' write-combining buffers
 * on top made them 5-10% slower (nchw -> nChw16c 8x256x56x56 f32: 1.02x
 * streaming -> 1.07-1.16x plain, oneDNN / lgraph on two threads, 0.95x ->
 * 1.02x on one; to s8 and bf16 alike either way). Everywhere else measured
 * it goes the other way, two threads, same problem: an Emerald Rapids host
 * (260 MB L3) plain 0.88-0.93x, streaming 1.24-1.25x (0.82-0.86 -> 1.12-1.22
 * of memcpy); an AMD Zen 5 host (32 MB L3) plain 0.82-0.84x, streaming
 * 1.68-1.69x (0.63 -> 0.98-1.03 of memcpy). */
static bool sequential_streams(void) {
    return !lg__cpu_is_intel() || lg__cpu_has_avx512_fp16();
}

void lg__reorder_fast_set_stream_bytes(int64_t bytes) {
    atomic_store(&stream_bytes, bytes < 0 ? STREAM_BYTES : bytes);
}

static const char *impl_name(lg__isa isa, const lg__rf_plan *p) {
    /* Name the path after the data job that carries most of the work. */
    const lg__rf_job *big = NULL;
    for (int i = 0; i < p->njobs; i++)
        if (p->jobs[i].kind != LG_RF_ZERO &&
            (!big || p->jobs[i].units * p->jobs[i].unit_cost > big->units * big->unit_cost))
            big = &p->jobs[i];
    lg__rf_kind k = big ? big->kind : LG_RF_COPY;
    switch (isa) {
    case LG_ISA_AVX512:
        return k == LG_RF_TRANS     ? "avx512:transpose16"
               : k == LG_RF_GENERIC ? "avx512:generic"
                                    : "avx512:copy";
    case LG_ISA_AVX2:
        return k == LG_RF_TRANS     ? "avx2:transpose8"
               : k == LG_RF_GENERIC ? "avx2:generic"
                                    : "avx2:copy";
    case LG_ISA_SCALAR:
        break;
    }
    return "scalar:loops";
}

lg_status lg__reorder_fast_init(const lg__reorder_pd *pd, lg__isa isa, void **plan,
                                const char **impl) {
    *plan = NULL;
    *impl = NULL;
    /* typed / grouped values, stochastic rounding: the reference's */
    if (lg__reorder_needs_ref(pd)) return LG_UNIMPLEMENTED;
    if (isa > lg__cpu_isa_hw()) isa = lg__cpu_isa_hw(); /* never run what the CPU lacks */
    lg__rf_plan *p = lg__malloc(sizeof *p);
    if (!p) return LG_OUT_OF_MEMORY;
    memset(p, 0, sizeof *p);
    lg_status st = lg__rf_plan_build(pd, p);
    if (st != LG_OK) {
        lg__free(p);
        return st;
    }
    p->isa = isa;
    p->kernel = isa == LG_ISA_AVX512 ? lg__rf_kernel_avx512
                : isa == LG_ISA_AVX2 ? lg__rf_kernel_avx2
                                     : lg__rf_kernel_scalar;
    int64_t dbytes = lg__md_nelems_padded(&pd->dst) * (int64_t)p->dsz,
            lim = atomic_load(&stream_bytes);
    for (int i = 0; i < p->njobs && isa != LG_ISA_SCALAR; i++) {
        lg__rf_job *j = &p->jobs[i];
        if (j->kind == LG_RF_TRANS)
            j->stream = (scattered(j, p->dsz) || sequential_streams()) &&
                        (p->bytes >= lim || dbytes >= lim / 2);
        else
            j->stream = p->bytes >= lim;
        p->stream = p->stream || j->stream;
    }
    p->impl = impl_name(isa, p);
    *plan = p;
    *impl = p->impl;
    return LG_OK;
}

void lg__reorder_fast_destroy(void *plan) {
    lg__rf_plan *p = plan;
    if (!p) return;
    lg__free(p->jobs);
    lg__free(p);
}

/* Call the kernel of job j on the box n at element offsets off. */
static void run_box(const lg__rf_plan *p, const lg__rf_job *j, const lg__reorder_args *a,
                    const int64_t *off, const int64_t n[3]) {
    lg__rf_ptrs q;
    q.dst = (char *)a->dst + off[LG_RF_DST] * p->dsz;
    bool data = j->kind != LG_RF_ZERO;
    q.src = data ? (const char *)a->src + off[LG_RF_SRC] * p->ssz : NULL;
    q.ss = data && p->has_ss ? a->src_scales + off[LG_RF_SS] : NULL;
    q.ds = data && p->has_ds ? a->dst_scales + off[LG_RF_DS] : NULL;
    q.szp = data && p->has_szp ? a->src_zps + off[LG_RF_SZP] : NULL;
    q.dzp = data && p->has_dzp ? a->dst_zps + off[LG_RF_DZP] : NULL;
    p->kernel(p, j, &q, n);
}

/* Run units u .. u + cnt - 1 of job j, which share one outer index (u /
 * nchunks): consecutive chunks of kd[cdim], so one box covers them all. */
static void run_units(const lg__rf_plan *p, const lg__rf_job *j, const lg__reorder_args *a,
                      int64_t u, int64_t cnt) {
    int64_t off[LG_RF_NARR];
    memcpy(off, j->base, sizeof off);
    int64_t c = u % j->nchunks, o = u / j->nchunks;
    for (int i = j->nouter - 1; i >= 0 && o > 0; i--) {
        int64_t q = o / j->outer[i].n, r = o - q * j->outer[i].n;
        for (int k = 0; k < LG_RF_NARR; k++) off[k] += r * j->outer[i].st[k];
        o = q;
    }
    int64_t n[3] = {j->kd[0].n, j->kd[1].n, j->kd[2].n};
    int64_t start = c * j->chunk, len = cnt * j->chunk;
    n[j->cdim] = n[j->cdim] - start < len ? n[j->cdim] - start : len;
    for (int k = 0; k < LG_RF_NARR; k++) off[k] += start * j->kd[j->cdim].st[k];
    run_box(p, j, a, off, n);
}

/* Run job j whole on the calling thread: one kernel call per outer index
 * over the kernel dims' full extents, the outer index advanced like an
 * odometer (no chunks, no divisions: for small problems, where the calls
 * and the unit arithmetic are a visible share of the time). */
static void run_job(const lg__rf_plan *p, const lg__rf_job *j, const lg__reorder_args *a) {
    int64_t off[LG_RF_NARR], idx[LG_RF_MAXD] = {0};
    memcpy(off, j->base, sizeof off);
    const int64_t n[3] = {j->kd[0].n, j->kd[1].n, j->kd[2].n};
    for (;;) {
        run_box(p, j, a, off, n);
        int i = j->nouter - 1;
        for (; i >= 0; i--) {
            for (int k = 0; k < LG_RF_NARR; k++) off[k] += j->outer[i].st[k];
            if (++idx[i] < j->outer[i].n) break;
            for (int k = 0; k < LG_RF_NARR; k++) off[k] -= j->outer[i].n * j->outer[i].st[k];
            idx[i] = 0;
        }
        if (i < 0) return;
    }
}

/* Run the units whose cost range starts in [lo, hi). */
static void run_range(const lg__rf_plan *p, const lg__reorder_args *a, int64_t lo, int64_t hi) {
    int64_t pre = 0;
    for (int i = 0; i < p->njobs && pre < hi; i++) {
        const lg__rf_job *j = &p->jobs[i];
        int64_t uc = j->unit_cost, jc = j->units * uc;
        if (pre + jc > lo) {
            int64_t u0 = lo > pre ? (lo - pre + uc - 1) / uc : 0;
            int64_t u1 = (hi - pre + uc - 1) / uc;
            if (u1 > j->units) u1 = j->units;
            /* one kernel call per outer index: its chunks in the range as one box */
            for (int64_t u = u0, cnt; u < u1; u += cnt) {
                cnt = j->nchunks - u % j->nchunks;
                if (cnt > u1 - u) cnt = u1 - u;
                run_units(p, j, a, u, cnt);
            }
        }
        pre += jc;
    }
}

void lg__reorder_fast_exec(const void *plan, const lg__reorder_args *a) {
    const lg__rf_plan *p = plan;
    int64_t total = p->total_cost;
    if (total == 0) return;
    if (p->bytes < PAR_BYTES) {
        for (int i = 0; i < p->njobs; i++) run_job(p, &p->jobs[i], a);
        if (p->stream) _mm_sfence();
        return;
    }
    int nthr = !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > total) nthr = (int)total;
    if (nthr <= 1) {
        run_range(p, a, 0, total);
        if (p->stream) _mm_sfence();
        return;
    }
#pragma omp parallel num_threads(nthr)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        run_range(p, a, total * t / nt, total * (t + 1) / nt);
        if (p->stream) _mm_sfence();
    }
}
