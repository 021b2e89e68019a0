/* lg_onnx_load_*: parse the model, check it as untrusted input (opset,
 * operators, tensor sizes, names, cycles), then import its nodes in a
 * topological order into a new lgraph graph. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "onnx_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

/* Files above this size are refused before they are read (protobuf's own
 * limit for one message is 2 GiB). */
#define MAX_MODEL_BYTES ((size_t)2 << 30)
/* The constants a load may make (importer.const_budget): 64 MiB, plus 16
 * bytes per byte of the file (an int32 or uint8 initializer widens to
 * int64 as it is read). Real models fold a few KB of shape arithmetic. */
#define CONST_BUDGET_BASE     ((int64_t)64 << 20)
#define CONST_BUDGET_PER_BYTE 16

void lg_onnx_options_init(lg_onnx_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->batch = 1;
}

void lg_onnx_io_free(lg_onnx_io *io) {
    if (!io) return;
    for (int k = 0; k < io->n_inputs; k++) free(io->inputs[k]);
    for (int k = 0; k < io->n_outputs; k++) free(io->outputs[k]);
    free(io->inputs);
    free(io->outputs);
    memset(io, 0, sizeof *io);
}

/* LG_PASS_TIMES=1 (as for the compile passes) prints the load's phases. */
static bool load_times(void) {
    const char *e = getenv("LG_PASS_TIMES");
    return e && e[0] && strcmp(e, "0") != 0;
}

static double clock_ms(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double load_now_ms(void) {
    return clock_ms(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time: the load runs on one thread, and on a
 * busy machine this is the figure that does not count waiting. */
static double load_cpu_ms(void) {
    return clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

static void importer_free(importer *im) {
    for (int k = 0; k < im->nvals; k++) {
        if (!im->vals[k].f_borrowed) free(im->vals[k].f);
        free(im->vals[k].i);
        if (im->vals[k].conv) {
            if (!im->vals[k].conv->w_borrowed) free(im->vals[k].conv->w);
            free(im->vals[k].conv->b);
            free(im->vals[k].conv);
        }
    }
    free(im->vals);
    free(im->slots);
}

/* The default-domain opset the model imports; an error outside 11..17. */
static lg_status check_opset(importer *im, const Onnx__ModelProto *m) {
    im->opset = -1;
    for (size_t k = 0; k < m->n_opset_import; k++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[k];
        if (!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0)
            im->opset = o->version;
    }
    if (im->opset < 0)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "the model imports no default-domain opset");
    if (im->opset < 11 || im->opset > 17)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "opset %lld (lgraph reads opsets 11 to 17)",
                             (long long)im->opset);
    return LG_OK;
}

/* Every node of a supported domain and operator, with names; one message
 * lists every unsupported operator type with the first node that uses it. */
static lg_status check_ops(importer *im, const Onnx__GraphProto *gr) {
    char list[700] = "";
    size_t len = 0;
    const char *seen[32]; /* unsupported op types listed so far */
    int bad = 0;
    for (size_t k = 0; k < gr->n_node; k++) {
        const Onnx__NodeProto *n = gr->node[k];
        if (!n->op_type) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "node %zu has no type", k);
        for (size_t j = 0; j < n->n_input; j++)
            if (!n->input[j]) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "node %zu input", k);
        for (size_t j = 0; j < n->n_output; j++)
            if (!n->output[j]) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "node %zu output", k);
        bool domain_ok = !n->domain || !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0;
        if (domain_ok && lg__onnx_op(n->op_type)) continue;
        bool listed = false;
        for (int j = 0; j < bad && j < 32 && !listed; j++)
            listed = strcmp(seen[j], n->op_type) == 0;
        if (listed) continue;
        if (bad < 32) seen[bad] = n->op_type;
        bad++;
        if (len < sizeof list - 64) {
            int w = snprintf(list + len, sizeof list - len, "%s%s%s%s (first: '%.40s')",
                             bad > 1 ? ", " : "", domain_ok ? "" : n->domain, domain_ok ? "" : ".",
                             n->op_type, n->name ? n->name : "");
            if (w > 0) len += (size_t)w < sizeof list - len ? (size_t)w : sizeof list - len - 1;
        }
    }
    if (bad)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "%d unsupported operator type%s: %s", bad,
                             bad > 1 ? "s" : "", list);
    return LG_OK;
}

/* A graph input: float, every dim known except a symbolic first dim, which
 * takes opt.batch. */
static lg_status add_input(importer *im, const Onnx__ValueInfoProto *vi, oval *v) {
    const Onnx__TypeProto *t = vi->type;
    if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "input '%s' is not a tensor", vi->name);
    const Onnx__TypeProto__Tensor *tt = t->tensor_type;
    if (tt->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "input '%s' has ONNX type %d (float only)",
                             vi->name, (int)tt->elem_type);
    if (!tt->shape || tt->shape->n_dim < 1 || tt->shape->n_dim > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "input '%s' has no shape of rank 1 to %d",
                             vi->name, LG_MAX_NDIMS);
    v->nd = (int)tt->shape->n_dim;
    for (int d = 0; d < v->nd; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            dim->dim_value > 0)
            v->dims[d] = dim->dim_value;
        else if (d == 0 && dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            v->dims[d] = im->opt.batch;
        else
            return lg__onnx_fail(
                im, LG_UNIMPLEMENTED,
                "input '%s': dim %d is %s (only the first dim may be symbolic)", vi->name, d,
                dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                    ? "not positive"
                    : "symbolic");
    }
    lg_md md;
    const char *tag = im->opt.inputs_any ? "any" : lg__onnx_plain_tag(v->nd);
    if (lg_md_init_tag(&md, v->nd, v->dims, LG_F32, tag) != LG_OK ||
        lg_graph_add_input(im->g, vi->name, &md, &v->v) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input '%s': %s", vi->name, lg_last_error());
    v->kind = OV_TENSOR;
    return LG_OK;
}

/* Nodes in an order where every input is defined before use (Kahn's
 * algorithm: linear in nodes + edges). Errors name a dangling input or a
 * node on a cycle. order gets gr->n_node indices. */
static lg_status topo_order(importer *im, const Onnx__GraphProto *gr, int *order) {
    size_t nn = gr->n_node;
    int *pending = calloc(nn + 1, sizeof *pending), *head = malloc((nn + 1) * sizeof *head);
    size_t nedge = 0;
    for (size_t k = 0; k < nn; k++) nedge += gr->node[k]->n_input;
    int *next = malloc((nedge + 1) * sizeof *next), *dst = malloc((nedge + 1) * sizeof *dst);
    /* producer[v] = node producing value v (index into im->vals), -1 for
     * initializers and inputs. */
    int *producer = malloc(((size_t)im->nvals + 1) * sizeof *producer);
    lg_status st = LG_OK;
    if (!pending || !head || !next || !dst || !producer) {
        st = lg__onnx_fail(im, LG_OUT_OF_MEMORY, "node order");
        goto done;
    }
    for (int v = 0; v < im->nvals; v++) producer[v] = -1;
    for (size_t k = 0; k < nn; k++) head[k] = -1;
    for (size_t k = 0; k < nn; k++)
        for (size_t j = 0; j < gr->node[k]->n_output; j++) {
            const char *o = gr->node[k]->output[j];
            if (!o[0]) continue;
            oval *v = lg__onnx_find(im, o);
            int vi = (int)(v - im->vals);
            if (v->kind != OV_UNSET || producer[vi] >= 0) {
                im->node = gr->node[k];
                st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "value '%s' is defined twice", o);
                goto done;
            }
            producer[vi] = (int)k;
        }
    size_t e = 0;
    for (size_t k = 0; k < nn; k++)
        for (size_t j = 0; j < gr->node[k]->n_input; j++) {
            const char *in = gr->node[k]->input[j];
            if (!in[0]) continue;
            oval *v = lg__onnx_find(im, in);
            int p = v ? producer[v - im->vals] : -1;
            if (!v || (p < 0 && v->kind == OV_UNSET)) {
                im->node = gr->node[k];
                st = lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                                   "input '%s' is produced by no node, initializer or graph input",
                                   in);
                goto done;
            }
            if (p < 0) continue;
            pending[k]++;
            dst[e] = (int)k;
            next[e] = head[p];
            head[p] = (int)e++;
        }
    size_t nout = 0, qh = 0;
    for (size_t k = 0; k < nn; k++)
        if (!pending[k]) order[nout++] = (int)k;
    while (qh < nout) {
        int k = order[qh++];
        for (int x = head[k]; x >= 0; x = next[x])
            if (--pending[dst[x]] == 0) order[nout++] = dst[x];
    }
    if (nout < nn) {
        for (size_t k = 0; k < nn; k++)
            if (pending[k]) {
                im->node = gr->node[k];
                break;
            }
        st = lg__onnx_fail(im, LG_INVALID_ARGUMENT, "the graph has a cycle through this node");
    }
done:
    free(pending);
    free(head);
    free(next);
    free(dst);
    free(producer);
    return st;
}

/* Name every value the model can define (so the table never grows) and
 * count each value's consumers. */
static lg_status make_table(importer *im, const Onnx__GraphProto *gr) {
    size_t n = gr->n_input + gr->n_initializer + gr->n_output;
    for (size_t k = 0; k < gr->n_node; k++) n += gr->node[k]->n_output + gr->node[k]->n_input;
    if (n > ((size_t)1 << 26)) return lg__onnx_fail(im, LG_UNIMPLEMENTED, "graph too large");
    im->cap = (int)n + 1;
    im->nslots = 16;
    while (im->nslots < 2 * im->cap + 2) im->nslots *= 2;
    im->vals = calloc((size_t)im->cap, sizeof *im->vals);
    im->slots = malloc((size_t)im->nslots * sizeof *im->slots);
    if (!im->vals || !im->slots) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "value table");
    memset(im->slots, 0xff, (size_t)im->nslots * sizeof *im->slots);
    for (size_t k = 0; k < gr->n_initializer; k++)
        if (!gr->initializer[k]->name || !lg__onnx_get(im, gr->initializer[k]->name))
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "initializer %zu has no name", k);
    for (size_t k = 0; k < gr->n_input; k++)
        if (!gr->input[k]->name || !lg__onnx_get(im, gr->input[k]->name))
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "graph input %zu has no name", k);
    for (size_t k = 0; k < gr->n_node; k++) {
        const Onnx__NodeProto *nd = gr->node[k];
        for (size_t j = 0; j < nd->n_output; j++)
            if (nd->output[j][0]) lg__onnx_get(im, nd->output[j]);
        for (size_t j = 0; j < nd->n_input; j++)
            if (nd->input[j][0]) {
                oval *v = lg__onnx_find(im, nd->input[j]);
                if (v) v->uses++;
            }
    }
    for (size_t k = 0; k < gr->n_output; k++) {
        oval *v = gr->output[k]->name ? lg__onnx_find(im, gr->output[k]->name) : NULL;
        if (!v)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                                 "graph output %zu ('%s') is produced "
                                 "by no node",
                                 k, gr->output[k]->name ? gr->output[k]->name : "");
        v->uses++;
    }
    return LG_OK;
}

static char *dup_name(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static lg_status import_graph(importer *im, const Onnx__ModelProto *m, lg_onnx_io *io) {
    const Onnx__GraphProto *gr = m->graph;
    if (!gr) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "the model has no graph");
    LG_ONNX_CHECK(check_opset(im, m));
    LG_ONNX_CHECK(check_ops(im, gr));
    LG_ONNX_CHECK(make_table(im, gr));
    for (size_t k = 0; k < gr->n_initializer; k++) {
        oval *v = lg__onnx_find(im, gr->initializer[k]->name);
        if (v->kind != OV_UNSET)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "initializer '%s' is defined twice",
                                 v->name);
        LG_ONNX_CHECK(lg__onnx_const_from_tensor(im, gr->initializer[k], v));
    }
    int nin = 0;
    for (size_t k = 0; k < gr->n_input; k++) {
        oval *v = lg__onnx_find(im, gr->input[k]->name);
        if (v->kind == OV_CONST) continue; /* an initializer listed as input (IR < 4) */
        if (v->kind != OV_UNSET)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input '%s' is defined twice", v->name);
        LG_ONNX_CHECK(add_input(im, gr->input[k], v));
        nin++;
    }
    if (!nin) return lg__onnx_fail(im, LG_UNIMPLEMENTED, "the model has no non-constant input");
    if (!gr->n_output) return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "the model has no output");
    int *order = malloc((gr->n_node + 1) * sizeof *order);
    if (!order) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "node order");
    lg_status st = topo_order(im, gr, order);
    for (size_t k = 0; k < gr->n_node && st == LG_OK; k++) {
        im->node = gr->node[order[k]];
        st = lg__onnx_op(im->node->op_type)(im);
    }
    free(order);
    im->node = NULL;
    LG_ONNX_CHECK(st);
    for (size_t k = 0; k < gr->n_output; k++) {
        oval *v = lg__onnx_find(im, gr->output[k]->name);
        if (v->kind == OV_CONST)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "output '%s' is a constant", v->name);
        LG_ONNX_CHECK(lg__onnx_tensor(im, v));
        if (lg_graph_add_output(im->g, v->v, v->name, lg__onnx_plain_tag(v->nd)) != LG_OK)
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "output '%s': %s", v->name,
                                 lg_last_error());
    }
    if (!io) return LG_OK;
    io->inputs = calloc((size_t)nin, sizeof *io->inputs);
    io->outputs = calloc(gr->n_output, sizeof *io->outputs);
    if (!io->inputs || !io->outputs) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "names");
    for (size_t k = 0; k < gr->n_input; k++) {
        oval *v = lg__onnx_find(im, gr->input[k]->name);
        if (v->kind == OV_CONST) continue;
        if (!(io->inputs[io->n_inputs++] = dup_name(v->name)))
            return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "names");
    }
    for (size_t k = 0; k < gr->n_output; k++)
        if (!(io->outputs[io->n_outputs++] = dup_name(gr->output[k]->name)))
            return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "names");
    return LG_OK;
}

lg_status lg_onnx_load_buffer(const void *data, size_t size, const lg_onnx_options *o, lg_graph **g,
                              lg_onnx_io *io) {
    importer im;
    memset(&im, 0, sizeof im);
    if (io) memset(io, 0, sizeof *io);
    if (!g) return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "g is NULL");
    *g = NULL;
    if (!data && size) return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "data is NULL");
    lg_onnx_options_init(&im.opt);
    if (o) im.opt = *o;
    if (im.opt.batch < 1)
        return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "options.batch is %lld (at least 1)",
                             (long long)im.opt.batch);
    if (size > MAX_MODEL_BYTES)
        return lg__onnx_fail(&im, LG_UNIMPLEMENTED, "the model is %zu bytes (at most 2 GiB)", size);
    im.const_budget = CONST_BUDGET_BASE + CONST_BUDGET_PER_BYTE * (int64_t)size;
    /* The unpacked model lives in an arena (no per-field free); float
     * initializers are used in place from it, and conv weights stay there
     * as graph constants (lg_graph_add_constant_ref: the graph holds a
     * reference to the arena). */
    im.arena = lg__onnx_arena_new();
    if (!im.arena) return lg__onnx_fail(&im, LG_OUT_OF_MEMORY, "the model's arena");
    double t0 = load_now_ms(), c0 = load_cpu_ms();
    Onnx__ModelProto *m = onnx__model_proto__unpack(&im.arena->pb, size, data);
    if (!m) {
        lg__onnx_arena_unref(im.arena);
        return lg__onnx_fail(&im, LG_INVALID_ARGUMENT,
                             "not an ONNX model (the protobuf is malformed or truncated)");
    }
    double t1 = load_now_ms(), c1 = load_cpu_ms();
    lg_status st = lg_graph_create(&im.g);
    if (st == LG_OK) st = import_graph(&im, m, io);
    importer_free(&im);
    lg__onnx_arena_unref(im.arena);
    if (load_times())
        fprintf(stderr,
                "lgraph onnx unpack %10.2f ms (thread cpu %.2f)\n"
                "lgraph onnx import %10.2f ms (thread cpu %.2f)\n",
                t1 - t0, c1 - c0, load_now_ms() - t1, load_cpu_ms() - c1);
    if (st != LG_OK) {
        lg_graph_destroy(im.g);
        lg_onnx_io_free(io);
        return st;
    }
    *g = im.g;
    return LG_OK;
}

lg_status lg_onnx_load_file(const char *path, const lg_onnx_options *o, lg_graph **g,
                            lg_onnx_io *io) {
    importer im;
    memset(&im, 0, sizeof im);
    if (io) memset(io, 0, sizeof *io);
    if (g) *g = NULL;
    if (!path) return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "cannot open '%s': %s", path,
                             strerror(errno));
    /* A regular file is mapped (its page-cache pages, no copy: protobuf-c
     * copies what it keeps into the arena); anything else is read into one
     * buffer that grows. */
    size_t cap = 1 << 20, n = 0;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= MAX_MODEL_BYTES) {
        size_t len = (size_t)sb.st_size;
        double t0 = load_now_ms(), c0 = load_cpu_ms();
        void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(f), 0);
        fclose(f);
        if (map == MAP_FAILED)
            return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "cannot map '%s': %s", path,
                                 strerror(errno));
        if (load_times())
            fprintf(stderr, "lgraph onnx map %13.2f ms (thread cpu %.2f)\n", load_now_ms() - t0,
                    load_cpu_ms() - c0);
        lg_status st = lg_onnx_load_buffer(map, len, o, g, io);
        munmap(map, len);
        return st;
    }
    unsigned char *buf = lg__onnx_big_alloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > MAX_MODEL_BYTES) break;
        unsigned char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
            cap *= 2;
        }
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf) return lg__onnx_fail(&im, LG_OUT_OF_MEMORY, "reading '%s'", path);
    if (err) {
        free(buf);
        return lg__onnx_fail(&im, LG_INVALID_ARGUMENT, "cannot read '%s'", path);
    }
    lg_status st = lg_onnx_load_buffer(buf, n, o, g, io);
    free(buf);
    return st;
}
