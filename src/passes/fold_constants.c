/* Pass "fold_constants": a node of a foldable kind (reorder) whose inputs
 * are all constants (weights, bias, any constant a node reads in another
 * layout, explicit reorders of constants) runs once here; its result becomes
 * a constant owned by the compiled graph and the node leaves the schedule.
 * Nodes producing a graph output are kept (the caller's buffer is written at
 * run time), and so are copies into outputs.
 * Chains fold too: folding goes in waves, each wave the nodes whose inputs
 * are constant now (the next wave sees their results). Within a wave the
 * kernels are created, buffers allocated and pending scales applied one
 * node after the other, then the kernels run at once, one node per thread
 * (largest first) when the wave writes 32 MB or more (ResNet-50's weights),
 * so that its 50-odd reorders take both cores however small each one is;
 * a smaller wave runs on one thread. A reorder of a constant with a pending
 * scale (a folded batchnorm's, lg__cvalue.scale) applies the scale as it
 * reorders, so those weights are written once. Optional: without it those
 * reorders run at every execution. */
#include "passes/passes.h"

#include <omp.h>
#include <stdlib.h>

/* True if every input of node is a constant. */
static bool all_constant(const lg__graph *ir, const lg__cnode *node) {
    for (int i = 0; i < node->nin; i++)
        if (ir->vals[node->in[i]].kind != LG_VAL_CONSTANT) return false;
    return true;
}

static bool foldable(const lg__graph *ir, int n) {
    const lg__cnode *node = &ir->nodes[n];
    return lg__node_ops_of(node->kind)->foldable && !node->copy && all_constant(ir, node) &&
           !lg__ir_is_output(ir, node->out);
}

/* One node of a wave, ready to run. */
typedef struct job {
    int n;
    lg_kernel *k;
    int nargs;
    lg_arg args[LG_NODE_MAX_IN + 1];
    void *buf;
    size_t bytes;
    lg_status s;
} job;

/* Make node n's kernel, its output buffer (owned by ir) and its args. */
static lg_status prepare(lg__graph *ir, int n, job *j) {
    const lg__cnode *node = &ir->nodes[n];
    /* Inputs with a pending scale: the reorder of one applies it itself;
     * any other kernel gets them scaled first. */
    bool scaled_reorder = false;
    for (int i = 0; i < node->nin; i++) {
        if (!ir->vals[node->in[i]].scale) continue;
        if (node->nin == 1 && !node->npost && lg__node_ops_of(node->kind)->in_args[0] == LG_ARG_SRC)
            scaled_reorder = true;
        else
            LG_CHECK(lg__ir_const_apply(ir, node->in[i]));
        node = &ir->nodes[n];
    }
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    const lg_md *dst = &ir->vals[node->out].md;
    j->n = n;
    j->bytes = lg_md_size(dst);
    lg_status s = lg__ir_create_kernel(ir, node, &j->k);
    if (s == LG_OK && scaled_reorder && j->k->kind != LG_KIND_REORDER) {
        lg_kernel_destroy(j->k);
        j->k = NULL;
        s = lg__ir_const_apply(ir, node->in[0]);
        node = &ir->nodes[n];
        scaled_reorder = false;
        if (s == LG_OK) s = lg__ir_create_kernel(ir, node, &j->k);
    }
    if (s != LG_OK) {
        char why[512];
        return LG_COMPILE_ERROR(s, "node %d (%s of constants): %s", n, ops->name,
                                lg__why(why, sizeof why));
    }
    j->buf = lg__alloc_big(j->bytes);
    if (!j->buf || !lg__ir_own(ir, j->buf))
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate a folded constant of %zu bytes",
                                j->bytes);
    if (scaled_reorder) {
        /* The same reorder with the scale as a source-scale attribute. */
        lg_kernel_destroy(j->k);
        j->k = NULL;
        LG_CHECK(lg__ir_const_writer(ir, node->in[0], dst, &j->k, &j->nargs));
        lg__ir_const_args(ir, node->in[0], j->buf, j->args);
        return LG_OK;
    }
    for (int i = 0; i < node->nin; i++)
        j->args[i] = (lg_arg){ops->in_args[i], (void *)ir->vals[node->in[i]].data};
    j->args[node->nin] = (lg_arg){LG_ARG_DST, j->buf};
    j->nargs = node->nin + 1;
    return LG_OK;
}

static int by_bytes_desc(const void *a, const void *b) {
    size_t x = ((const job *)a)->bytes, y = ((const job *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* A wave writing less than this runs on one thread: a parallel region can
 * wait a scheduler slice for a busy second core, longer than such a wave
 * takes (ShuffleNetV2's 9 MB of weights: 5 ms on one thread, 30-60 ms as a
 * parallel region on the loaded 2-core machine). */
#define PARALLEL_WAVE_BYTES ((size_t)32 << 20)

/* Run the wave's kernels: a big wave one job per thread (each kernel on one
 * thread, largest first); a small one on one thread; a lone job on every
 * thread when it is big, else on one. */
static void run_wave(job *jobs, int nj) {
    size_t total = 0;
    for (int i = 0; i < nj; i++) total += jobs[i].bytes;
    int threads = omp_get_max_threads();
    if (nj == 1 || total < PARALLEL_WAVE_BYTES) {
        bool one = total < ((size_t)4 << 20) || nj > 1;
        if (one) omp_set_num_threads(1);
        for (int i = 0; i < nj; i++)
            jobs[i].s = lg_kernel_execute(jobs[i].k, jobs[i].nargs, jobs[i].args);
        if (one) omp_set_num_threads(threads);
        return;
    }
    qsort(jobs, (size_t)nj, sizeof *jobs, by_bytes_desc);
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < nj; i++) {
        omp_set_num_threads(1); /* this thread's nested regions: one thread */
        jobs[i].s = lg_kernel_execute(jobs[i].k, jobs[i].nargs, jobs[i].args);
    }
}

lg_status lg__pass_fold_constants(lg__graph *ir) {
    job *jobs = lg__malloc((size_t)(ir->nsched + 1) * sizeof *jobs);
    if (!jobs) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "fold_constants: %d jobs", ir->nsched);
    lg_status s = LG_OK;
    for (;;) {
        int nj = 0;
        for (int i = 0; i < ir->nsched && s == LG_OK; i++) {
            int n = ir->sched[i];
            if (!foldable(ir, n)) continue;
            jobs[nj] = (job){.n = n};
            s = prepare(ir, n, &jobs[nj]);
            nj++;
        }
        if (s == LG_OK && nj) run_wave(jobs, nj);
        for (int i = 0; i < nj; i++) {
            lg_kernel_destroy(jobs[i].k);
            if (s == LG_OK) s = jobs[i].s;
        }
        if (s != LG_OK || !nj) break;
        for (int i = 0; i < nj; i++) {
            lg__cvalue *out = &ir->vals[ir->nodes[jobs[i].n].out];
            out->kind = LG_VAL_CONSTANT;
            out->data = jobs[i].buf;
            ir->folded++;
            lg__ir_sched_remove(ir, jobs[i].n);
        }
    }
    lg__free(jobs);
    return s;
}
