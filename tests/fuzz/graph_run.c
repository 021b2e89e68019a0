/* The graph fuzz target's second half (graph_fuzz.h): compile the graph
 * built by fuzz_graph.c with one strategy, execute the plan on inputs packed
 * into the layouts it reports, and check the outputs against the model. */
#include "fuzz/graph_fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t lg__alloc_fail_after(int64_t n); /* src/common/common.h */

/* Logical index of row-major position i. */
static void index_of(const lg_md *md, int64_t i, int64_t *idx) {
    for (int d = md->ndims - 1; d >= 0; d--) {
        idx[d] = i % md->dims[d];
        i /= md->dims[d];
    }
}

void *gf_pack(const lg_md *md, const gm_value *v) {
    size_t bytes = lg_md_size(md), es = lg_dtype_size(md->dtype);
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) fz_fail(T, "out of memory");
    memset(buf, 0, bytes);
    int64_t idx[LG_MAX_NDIMS];
    for (int64_t i = 0; i < gm_count(md->ndims, md->dims); i++) {
        index_of(md, i, idx);
        int64_t off = lg_md_offset(md, idx);
        if (v->checked)
            ((float *)buf)[off] = (float)v->ref[i];
        else
            memset(buf + (size_t)off * es, 0x3c, es);
    }
    return buf;
}

/* Check output `name` (value v) in buf of md against the model. */
static void check_output(const char *what, const char *name, const lg_md *md, const uint8_t *buf,
                         const gm_value *v) {
    int64_t n = gm_count(md->ndims, md->dims), idx[LG_MAX_NDIMS];
    size_t es = lg_dtype_size(md->dtype), bytes = lg_md_size(md);
    char tag[128];
    /* A dense blocked layout: every byte off the logical elements is padding. */
    if (md->blocking.inner_nblks > 0 && lg_md_tag(md, tag, sizeof tag) == LG_OK) {
        uint8_t *logical = calloc(bytes / es + 1, 1);
        if (!logical) fz_fail(T, "out of memory");
        for (int64_t i = 0; i < n; i++) {
            index_of(md, i, idx);
            logical[lg_md_offset(md, idx)] = 1;
        }
        for (size_t e = 0; e < bytes / es; e++)
            for (size_t k = 0; k < es && !logical[e]; k++)
                if (buf[e * es + k])
                    fz_fail(T, "%s: output %s (%s): padding element %zu is not zero", what, name,
                            tag, e);
        free(logical);
    }
    if (!v->checked || md->dtype != LG_F32) return;
    double tol = 2 * v->err;
    for (int64_t i = 0; i < n; i++) {
        index_of(md, i, idx);
        double got = ((const float *)buf)[lg_md_offset(md, idx)], ref = v->ref[i];
        if (!(fabs(got - ref) <= tol))
            fz_fail(T, "%s: output %s element %lld: got %.9g, want %.9g (bound %.3g)", what, name,
                    (long long)i, got, ref, tol);
    }
}

static const char *const optional_passes[] = {
    "eliminate_shuffles", "eliminate_reorders", "fuse_shuffle_reorder", "fold_constants", "fuse",
    "plan_memory"};

/* Compile with strategy st and, if that succeeds, execute twice and check.
 * fail_at >= 0: the allocation after the first fail_at ones fails. */
void gf_compile_and_run(gstate *s, lg_strategy st, bool valid, int64_t fail_at) {
    fz *f = s->f;
    lg_compile_options o;
    lg_compile_options_init(&o);
    o.strategy = st;
    uint8_t c = fz_u8(f), mask = fz_u8(f);
    o.fuse = !(c & 1);
    o.num_threads = (c >> 1) % 3;
    char disable[160] = "";
    for (int i = 0; i < 6; i++)
        if ((mask >> i & 1) && (mask & 0xc0) == 0xc0) {
            if (disable[0]) strcat(disable, ",");
            strcat(disable, optional_passes[i]);
        }
    o.disable_passes = disable[0] ? disable : NULL;
    char what[256];
    snprintf(what, sizeof what, "strategy %d fuse %d disable %s fail_at %lld", (int)st, o.fuse,
             disable, (long long)fail_at);

    lg_plan *p = NULL;
    if (fail_at >= 0) lg__alloc_fail_after(fail_at);
    lg_status r = lg_graph_compile(s->g, &o, &p);
    lg__alloc_fail_after(-1);
    if (r != LG_OK) {
        if (!lg_last_error()[0])
            fz_fail(T, "%s: compile: %s without a message", what, lg_status_str(r));
        if (p) fz_fail(T, "%s: compile failed but set the plan", what);
        bool ok = (fail_at >= 0 && r == LG_OUT_OF_MEMORY) || (!valid && r == LG_INVALID_GRAPH) ||
                  (valid && s->exotic && r == LG_UNIMPLEMENTED);
        if (!ok) fz_fail(T, "%s: compile: %s (%s)", what, lg_status_str(r), lg_last_error());
        return;
    }
    if (!valid) fz_fail(T, "%s: a graph with values that reach no output compiled", what);

    lg_binding in[MAX_VALS], out[MAX_OUTS];
    lg_md omd[MAX_OUTS];
    int nin = 0;
    for (int v = 0; v < s->nvals; v++) {
        if (!s->is_input[v]) continue;
        lg_md md;
        const char *name = NULL;
        /* The input's name: the leaf names are stored in creation order. */
        char buf[16];
        snprintf(buf, sizeof buf, "i%d", v);
        name = buf;
        if (lg_plan_query_md(p, name, &md) != LG_OK)
            fz_fail(T, "%s: query input %s: %s", what, name, lg_last_error());
        if (!lg_md_is_any(&s->in_md[v]) && !lg_md_equal(&md, &s->in_md[v]))
            fz_fail(T, "%s: input %s: the plan wants another layout than the one given", what,
                    name);
        if (lg_md_is_any(&md) || md.ndims != s->v[v].nd || md.dtype != s->v[v].dt)
            fz_fail(T, "%s: input %s: bad md from the plan", what, name);
        in[nin].name = strdup(name);
        in[nin++].data = gf_pack(&md, &s->v[v]);
    }
    for (int k = 0; k < s->nouts; k++) {
        if (lg_plan_query_md(p, s->outs[k].name, &omd[k]) != LG_OK)
            fz_fail(T, "%s: query output %s: %s", what, s->outs[k].name, lg_last_error());
        const gm_value *v = &s->v[s->outs[k].v];
        if (lg_md_is_any(&omd[k]) || omd[k].ndims != v->nd || omd[k].dtype != v->dt)
            fz_fail(T, "%s: output %s: bad md from the plan", what, s->outs[k].name);
        size_t bytes = lg_md_size(&omd[k]);
        out[k].name = s->outs[k].name;
        out[k].data = malloc(bytes ? bytes : 1);
        if (!out[k].data) fz_fail(T, "out of memory");
        memset(out[k].data, 0xff, bytes);
    }
    if (fail_at >= 0) lg__alloc_fail_after(fail_at);
    r = lg_plan_execute(p, nin, in, s->nouts, out);
    lg__alloc_fail_after(-1);
    if (r != LG_OK && !(fail_at >= 0 && r == LG_OUT_OF_MEMORY))
        fz_fail(T, "%s: execute: %s (%s)", what, lg_status_str(r), lg_last_error());
    if (r != LG_OK && !lg_last_error()[0]) fz_fail(T, "%s: execute failed without a message", what);
    if (r == LG_OK) {
        void *first[MAX_OUTS];
        for (int k = 0; k < s->nouts; k++) {
            check_output(what, s->outs[k].name, &omd[k], out[k].data, &s->v[s->outs[k].v]);
            size_t bytes = lg_md_size(&omd[k]);
            first[k] = malloc(bytes ? bytes : 1);
            if (!first[k]) fz_fail(T, "out of memory");
            memcpy(first[k], out[k].data, bytes);
            memset(out[k].data, 0xff, bytes);
        }
        r = lg_plan_execute(p, nin, in, s->nouts, out);
        if (r != LG_OK)
            fz_fail(T, "%s: second execute: %s (%s)", what, lg_status_str(r), lg_last_error());
        for (int k = 0; k < s->nouts; k++) {
            if (memcmp(first[k], out[k].data, lg_md_size(&omd[k])) != 0)
                fz_fail(T, "%s: output %s differs between two executions", what, s->outs[k].name);
            free(first[k]);
        }
    }
    lg_plan_stats stats;
    if (lg_plan_stats_get(p, &stats) != LG_OK) fz_fail(T, "%s: stats: %s", what, lg_last_error());
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        if (lg_plan_dump(p, null, c & 8 ? "dot" : "text") != LG_OK)
            fz_fail(T, "%s: dump: %s", what, lg_last_error());
        fclose(null);
    }
    for (int k = 0; k < nin; k++) {
        free((void *)in[k].name);
        free(in[k].data);
    }
    for (int k = 0; k < s->nouts; k++) free(out[k].data);
    lg_plan_destroy(p);
}
