/* Fuzz target: the graph API end to end. The bytes build a small graph
 * (inputs in any layout or "any", constants, conv / eltwise / binary /
 * shuffle / reorder nodes, outputs in "any" or a given layout), with now and
 * then a deliberate mistake: a value that does not exist yet (the only way to
 * ask for a cycle), mismatched shapes or channels, a bad group, axis, tag,
 * algorithm or name; and, on a scratch graph, calls with one parameter drawn
 * from the sweep's extremes (INT64_MAX, negative, zero; graph_extreme.c, with
 * its own properties). The graph is compiled with each strategy (NONE,
 * GREEDY, OPTIMAL; fusion and optional passes chosen by the bytes) and every
 * plan is executed twice on inputs packed into the layouts it reports.
 *
 * Properties: every call the model knows to be valid succeeds and every
 * mistake is refused with LG_INVALID_ARGUMENT or LG_INVALID_GRAPH (a value of
 * a type a node does not take may give LG_UNIMPLEMENTED); every failure
 * leaves a message in lg_last_error; compile succeeds exactly when every
 * value reaches an output; the outputs equal the scalar reference chain of
 * graph_model.c within its error bound, with zeroed padding, and the second
 * execution equals the first bit for bit. In one input of eight, the k-th
 * allocation of compile + execute fails: the call must return
 * LG_OUT_OF_MEMORY with a message and leak nothing (LeakSanitizer). */
#include "fuzz/graph_fuzz.h"

#include "graph/graph.h"
#include "memory/md.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gf_trace(const char *fmt, ...) {
    static int on = -1;
    if (on < 0) on = getenv("LG_FUZZ_TRACE") != NULL;
    if (!on) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static const char *md_str(const lg_md *md, char *buf, size_t len) {
    lg__md_describe(md, buf, len);
    return buf;
}

/* Check a builder call's status against w; true when it succeeded. */
static bool expect(lg_status s, want w, const char *call) {
    gf_trace("  %s -> %s %s\n", call, lg_status_str(s), s == LG_OK ? "" : lg_last_error());
    if (s == LG_OK) {
        if (w >= MUST_REFUSE) fz_fail(T, "%s: a mistake was accepted", call);
        return true;
    }
    if (!lg_last_error()[0]) fz_fail(T, "%s: %s without a message", call, lg_status_str(s));
    bool invalid = s == LG_INVALID_ARGUMENT || s == LG_INVALID_GRAPH;
    bool ok = w == MUST_REFUSE       ? invalid
              : w == MUST_REFUSE_ANY ? invalid || s == LG_UNIMPLEMENTED
                                     : w == MAY_BE_UNIMPLEMENTED && s == LG_UNIMPLEMENTED;
    if (!ok) fz_fail(T, "%s: %s (%s)", call, lg_status_str(s), lg_last_error());
    return false;
}

/* A value in [-4, 4], a multiple of 1/32 (exact in f32). */
static double fz_val(fz *f) {
    return (double)(int8_t)fz_u8(f) / 32.0;
}

/* Small dims: 1..max_nd dims, mostly 1..7, sometimes up to 20, rarely 0. */
static void small_dims(fz *f, int max_nd, int *nd, int64_t *dims) {
    *nd = fz_int(f, 1, max_nd);
    for (int d = 0; d < *nd; d++) {
        uint8_t b = fz_u8(f);
        dims[d] = b == 255 ? 0 : b >= 220 ? 8 + b % 13 : 1 + b % 7;
    }
}

/* An existing value, or (when `bad`) one that does not exist: the next id
 * (a value that a later node would produce: a cycle) or far beyond. */
static lg_value pick(gstate *s, bool bad) {
    uint8_t b = fz_u8(s->f);
    if (bad) return b & 1 ? (lg_value)s->nvals : b & 2 ? LG_NO_VALUE : (lg_value)(s->nvals + b);
    return (lg_value)(b % s->nvals);
}

/* Register the value the graph just created as id; the model fills v. */
static void added(gstate *s, lg_value id, const gm_value *v) {
    if (id != (lg_value)s->nvals) fz_fail(T, "value id %u, expected %d", id, s->nvals);
    s->v[s->nvals++] = *v;
}

/* A descriptor for dims in a layout from the bytes; a dense plain one when
 * the bytes' layout does not apply. */
static void plain_tag(int nd, char *tag) {
    for (int d = 0; d < nd; d++) tag[d] = (char)('a' + d);
    tag[nd] = '\0';
}

static void some_md(fz *f, int nd, const int64_t *dims, lg_dtype dt, lg_md *md) {
    if (fz_md(f, nd, dims, dt, md)) return;
    char tag[LG_MAX_NDIMS + 1];
    plain_tag(nd, tag);
    if (lg_md_init_tag(md, nd, dims, dt, tag) != LG_OK) fz_fail(T, "plain md: %s", lg_last_error());
}

/* A name already taken (by a leaf or an output), or NULL if none is. */
static const char *taken_name(gstate *s) {
    if (!s->nused) return NULL;
    return s->used[fz_u8(s->f) % s->nused];
}

static void use_name(gstate *s, const char *name) {
    snprintf(s->used[s->nused++], sizeof s->used[0], "%s", name);
}

/* An input or (constant) a constant of the given dims with data from the
 * bytes; false when the graph refused it (by design: a duplicate name). */
static bool add_leaf(gstate *s, int nd, const int64_t *dims, bool constant, lg_value *id) {
    if (s->nvals >= MAX_VALS || gm_count(nd, dims) > MAX_ELEMS) return false;
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    lg_dtype dt = (c & 0x1c) == 0x1c ? fz_dtype(f, 0x3e) : LG_F32;
    lg_md md;
    if (!constant && (c & 3) == 0) {
        if (lg_md_init_tag(&md, nd, dims, dt, "any") != LG_OK)
            fz_fail(T, "any: %s", lg_last_error());
    } else {
        some_md(f, nd, dims, dt, &md);
    }
    char name[16];
    const char *dup = (c & 0xe0) == 0xe0 ? taken_name(s) : NULL;
    if (dup)
        snprintf(name, sizeof name, "%s", dup);
    else
        snprintf(name, sizeof name, "%c%d", constant ? 'c' : 'i', s->nvals);
    gm_value v = {.nd = nd, .dt = dt};
    memcpy(v.dims, dims, (size_t)nd * sizeof *dims);
    if (dt == LG_F32 && gm_alloc(&v)) {
        for (int64_t i = 0; i < gm_count(nd, dims); i++) v.ref[i] = fz_val(f);
        gm_finish(&v);
    }
    void *data = constant ? gf_pack(&md, &v) : NULL;
    char d[256];
    gf_trace("%s %s %s\n", constant ? "constant" : "input", name, md_str(&md, d, sizeof d));
    lg_status st = constant ? lg_graph_add_constant(s->g, name, &md, data, id)
                            : lg_graph_add_input(s->g, name, &md, id);
    free(data);
    if (!expect(st, dup ? MUST_REFUSE : MUST_PASS, constant ? "add_constant" : "add_input")) {
        gm_free(&v);
        return false;
    }
    if (dt != LG_F32) s->exotic = true;
    s->is_input[s->nvals] = !constant;
    s->in_md[s->nvals] = md;
    use_name(s, name);
    added(s, *id, &v);
    if (!constant) s->ninputs++;
    return true;
}

/* Record node `id` with its inputs. */
static void add_node(gstate *s, lg_value id, int nin, const lg_value *in, gm_value *v) {
    node *n = &s->nodes[s->nnodes++];
    n->nin = nin;
    memcpy(n->in, in, (size_t)nin * sizeof *in);
    n->out = id;
    s->is_input[s->nvals] = false;
    added(s, id, v);
}

static void op_conv(gstate *s) {
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    bool bad = (c & 0xf0) == 0xf0;
    lg_value src = pick(s, false);
    const gm_value *x = &s->v[src];
    int nd = x->nd, sp = nd - 2;
    if (nd < 3 || nd > 5 || x->dims[1] == 0 || s->nvals + 3 > MAX_VALS) {
        if (nd >= 3 || s->nvals + 1 > MAX_VALS) return;
        /* A src of 1 or 2 dims: the node must be refused. */
        lg_conv_params p = {.strides = {1, 1, 1}, .groups = 1};
        lg_value out;
        expect(lg_graph_add_conv(s->g, src, src, LG_NO_VALUE, &p, &out), MUST_REFUSE,
               "add_conv (ndims)");
        return;
    }
    int64_t ic = x->dims[1], g = 1;
    switch (c & 3) {
    case 2:
        g = ic;
        break; /* depthwise */
    case 3:
        for (int64_t k = 1 + fz_u8(f) % ic; k >= 1; k--)
            if (ic % k == 0) {
                g = k;
                break;
            }
        break;
    default:
        break;
    }
    int64_t oc = g * (c & 4 ? 1 : 1 + fz_u8(f) % (g > 8 ? 2 : 20 / g + 1));
    lg_conv_params p = {.groups = g};
    int64_t wd[LG_MAX_NDIMS], od[LG_MAX_NDIMS] = {x->dims[0], oc}, kvol = 1, osp = 1;
    int wnd = nd + (g > 1), w0 = 0;
    if (g > 1) wd[w0++] = g;
    wd[w0] = oc / g;
    wd[w0 + 1] = ic / g;
    bool fits = true;
    for (int d = 0; d < sp; d++) {
        uint8_t b = fz_u8(f);
        int64_t k = 1 + b % 3;
        wd[wnd - sp + d] = k;
        p.strides[d] = 1 + (b >> 2) % 2;
        p.dilates[d] = (b >> 3) % 4 == 3;
        p.pad_l[d] = (b >> 5) % k;
        p.pad_r[d] = (b >> 4) % k;
        int64_t num = x->dims[2 + d] + p.pad_l[d] + p.pad_r[d] - ((k - 1) * (p.dilates[d] + 1) + 1);
        fits = fits && num >= 0;
        od[2 + d] = num >= 0 ? num / p.strides[d] + 1 : 1;
        kvol *= k;
        osp *= od[2 + d];
    }
    if (gm_count(wnd, wd) > MAX_ELEMS || gm_count(nd, od) > MAX_ELEMS ||
        x->dims[0] * oc * osp * (ic / g) * kvol > MAX_MACS)
        return;
    /* The mistakes: input channels that do not match, a group count that does
     * not divide them, a stride of 0, a negative padding. */
    int mistake = bad ? 1 + fz_u8(f) % 4 : 0;
    if (mistake == 1) wd[w0 + 1] += 1;
    if (mistake == 2 && ic > 1) p.groups = ic + 1;
    if (mistake == 2 && ic <= 1) mistake = 0;
    if (mistake == 3) p.strides[0] = 0;
    if (mistake == 4) p.pad_r[sp - 1] = -1;
    lg_value w, b = LG_NO_VALUE, out;
    if (!add_leaf(s, wnd, wd, (c & 0x18) != 0x18, &w)) return;
    uint8_t bc = fz_u8(f);
    int64_t bd = oc + ((bc & 7) == 7);
    if (bc & 1 && !add_leaf(s, 1, &bd, true, &b)) return;
    if (s->nvals >= MAX_VALS) return;
    if (b != LG_NO_VALUE && bd != oc && !mistake) mistake = 5;
    const gm_value *wv = &s->v[w], *bv = b != LG_NO_VALUE ? &s->v[b] : NULL;
    bool exotic = x->dt != LG_F32 || wv->dt != LG_F32 || (bv && bv->dt != LG_F32);
    want wnt = mistake || !fits ? MUST_REFUSE : MUST_PASS;
    if (exotic) wnt = wnt == MUST_PASS ? MAY_BE_UNIMPLEMENTED : MUST_REFUSE_ANY;
    gf_trace("conv v%u w v%u b v%d groups %lld mistake %d fits %d\n", src, w, (int)b,
             (long long)p.groups, mistake, fits);
    if (!expect(lg_graph_add_conv(s->g, src, w, b, &p, &out), wnt, "add_conv")) return;
    gm_value y = {.nd = nd, .dt = LG_F32};
    memcpy(y.dims, od, sizeof od);
    gm_conv(&p, &s->v[src], wv, bv, &y);
    lg_value in[3] = {src, w, b};
    add_node(s, out, b == LG_NO_VALUE ? 2 : 3, in, &y);
}

static void op_eltwise(gstate *s) {
    static const lg_eltwise_alg algs[] = {
        LG_ELTWISE_RELU,      LG_ELTWISE_RELU,       LG_ELTWISE_LINEAR,    LG_ELTWISE_CLIP,
        LG_ELTWISE_ABS,       LG_ELTWISE_SQUARE,     LG_ELTWISE_TANH,      LG_ELTWISE_LOGISTIC,
        LG_ELTWISE_ELU,       LG_ELTWISE_SWISH,      LG_ELTWISE_GELU_TANH, LG_ELTWISE_GELU_ERF,
        LG_ELTWISE_HARDSWISH, LG_ELTWISE_HARDSIGMOID};
    static const float params[] = {0.f, 1.f, -1.f, 0.5f, 2.f, 0.25f, -0.125f, 6.f};
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    bool bad = (c & 0xf0) == 0xf0;
    lg_value src = pick(s, bad && (c & 1)), out;
    lg_eltwise_alg alg = algs[fz_u8(f) % (sizeof algs / sizeof algs[0])];
    if (bad && !(c & 1)) alg = (lg_eltwise_alg)(LG_ELTWISE_SOFT_RELU + 1 + fz_u8(f) % 200);
    float alpha = params[fz_u8(f) % 8], beta = params[fz_u8(f) % 8];
    bool ints = alg == LG_ELTWISE_RELU || alg == LG_ELTWISE_LINEAR || alg == LG_ELTWISE_CLIP ||
                alg == LG_ELTWISE_ABS;
    want w = bad                                                 ? MUST_REFUSE
             : s->v[src].dt == LG_F32 || ints                    ? MUST_PASS
             : s->v[src].dt == LG_F16 || s->v[src].dt == LG_BF16 ? MUST_PASS
                                                                 : MAY_BE_UNIMPLEMENTED;
    gf_trace("eltwise v%u alg %d alpha %g beta %g\n", src, (int)alg, (double)alpha, (double)beta);
    if (!expect(lg_graph_add_eltwise(s->g, src, alg, alpha, beta, &out), w, "add_eltwise")) return;
    gm_value y = {.dt = s->v[src].dt};
    gm_eltwise(alg, alpha, beta, &s->v[src], &y);
    if (y.dt != LG_F32) gm_free(&y);
    add_node(s, out, 1, &src, &y);
}

static void op_binary(gstate *s) {
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    lg_value a = pick(s, false), b, out;
    const gm_value *av = &s->v[a];
    lg_binary_alg alg = (lg_binary_alg)(fz_u8(f) % 6);
    want w = MUST_PASS;
    if ((c & 3) == 0) { /* another existing value: its dims may not fit */
        b = pick(s, false);
    } else { /* a new leaf, broadcast on some dims */
        int64_t bd[LG_MAX_NDIMS];
        for (int d = 0; d < av->nd; d++) bd[d] = (fz_u8(f) & 1) ? av->dims[d] : 1;
        if (!add_leaf(s, av->nd, bd, (c & 3) != 3, &b)) return;
    }
    if ((c & 0xf0) == 0xf0) {
        if (c & 8)
            b = pick(s, true);
        else
            alg = (lg_binary_alg)(LG_BINARY_NE + 1 + fz_u8(f));
        w = MUST_REFUSE;
    } else {
        const gm_value *bv = &s->v[b];
        bool fits = bv->nd == av->nd;
        for (int d = 0; fits && d < av->nd; d++)
            fits = bv->dims[d] == av->dims[d] || bv->dims[d] == 1;
        if (!fits)
            w = MUST_REFUSE;
        else if (av->dt != LG_F32 || bv->dt != LG_F32)
            w = MAY_BE_UNIMPLEMENTED;
    }
    if (s->nvals >= MAX_VALS) return;
    gf_trace("binary alg %d v%u v%u\n", (int)alg, a, b);
    if (!expect(lg_graph_add_binary(s->g, alg, a, b, &out), w, "add_binary")) return;
    gm_value y = {.dt = av->dt};
    gm_binary(alg, av, &s->v[b], &y);
    if (y.dt != LG_F32 || s->v[b].dt != LG_F32) gm_free(&y);
    lg_value in[2] = {a, b};
    add_node(s, out, 2, in, &y);
}

static void op_shuffle(gstate *s) {
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    lg_value src = pick(s, false), out;
    const gm_value *x = &s->v[src];
    int axis = fz_u8(f) % x->nd;
    int64_t C = x->dims[axis], gs = 1;
    for (int64_t k = 1 + fz_u8(f) % (C ? C : 1); k >= 1; k--)
        if (C % k == 0) {
            gs = k;
            break;
        }
    want w = MUST_PASS;
    if ((c & 0xf0) == 0xf0) {
        switch (c & 3) {
        case 0:
            axis = c & 4 ? x->nd : -1;
            break;
        case 1:
            gs = -(int64_t)fz_u8(f);
            break;
        case 2:
            if (C < 2) return;
            gs = C + 1;
            break;
        default:
            src = pick(s, true);
            break;
        }
        w = MUST_REFUSE;
    }
    gf_trace("shuffle v%u axis %d group %lld\n", src, axis, (long long)gs);
    if (!expect(lg_graph_add_shuffle(s->g, src, axis, gs, &out), w, "add_shuffle")) return;
    gm_value y = {.dt = x->dt};
    gm_shuffle(axis, gs, x, &y);
    add_node(s, out, 1, &src, &y);
}

static void op_reorder(gstate *s) {
    fz *f = s->f;
    uint8_t c = fz_u8(f);
    lg_value src = pick(s, false), out;
    const gm_value *x = &s->v[src];
    lg_dtype dt = (c & 0x1c) == 0x1c ? fz_dtype(f, 0x3e) : LG_F32;
    lg_md md;
    want w = MUST_PASS;
    if ((c & 0xe0) == 0xe0) {
        int64_t dims[LG_MAX_NDIMS];
        memcpy(dims, x->dims, sizeof dims);
        int nd = x->nd;
        switch (c & 3) {
        case 0: /* "any" */
            if (lg_md_init_tag(&md, nd, dims, dt, "any") != LG_OK) fz_fail(T, "any");
            break;
        case 1: /* other dims */
            dims[fz_u8(f) % nd] += 1 + fz_u8(f) % 3;
            some_md(f, nd, dims, dt, &md);
            break;
        case 2: /* other ndims */
            nd = nd < LG_MAX_NDIMS ? nd + 1 : nd - 1;
            dims[nd - 1] = 1;
            some_md(f, nd, dims, dt, &md);
            break;
        default: /* a zeroed md */
            memset(&md, 0, sizeof md);
            break;
        }
        w = MUST_REFUSE;
    } else {
        some_md(f, x->nd, x->dims, dt, &md);
    }
    if (lg_md_size(&md) > 8 * MAX_ELEMS) return;
    char d[256];
    gf_trace("reorder v%u -> %s\n", src, md_str(&md, d, sizeof d));
    if (!expect(lg_graph_add_reorder(s->g, src, &md, NULL, &out), w, "add_reorder")) return;
    if (dt != LG_F32) s->exotic = true;
    gm_value y = {.dt = dt};
    gm_shuffle(0, 1, x, &y); /* a copy */
    if (dt != LG_F32) gm_free(&y);
    add_node(s, out, 1, &src, &y);
}

/* A layout tag for an output of nd dims: "any", plain, or permuted. */
static void out_tag(fz *f, int nd, char *tag) {
    uint8_t c = fz_u8(f);
    if (c % 3 == 0) {
        strcpy(tag, "any");
        return;
    }
    plain_tag(nd, tag);
    if (c % 3 == 2)
        for (int i = nd - 1; i > 0; i--) {
            int j = fz_u8(f) % (i + 1);
            char t = tag[i];
            tag[i] = tag[j];
            tag[j] = t;
        }
}

static void op_output(gstate *s, lg_value v, bool maybe_bad) {
    if (s->nouts >= MAX_OUTS) return;
    fz *f = s->f;
    uint8_t c = maybe_bad ? fz_u8(f) : 0;
    char tag[LG_MAX_NDIMS + 8], name[16];
    snprintf(name, sizeof name, "o%d", s->nouts);
    want w = MUST_PASS;
    if ((c & 0xf0) == 0xf0) {
        w = MUST_REFUSE;
        switch (c & 3) {
        case 0:
            v = pick(s, true);
            break;
        case 1: {
            const char *dup = taken_name(s);
            if (!dup) return;
            snprintf(name, sizeof name, "%s", dup);
            break;
        }
        default:
            snprintf(tag, sizeof tag, "%s", c & 4 ? "zz" : "abcdefghijklm");
            break;
        }
    }
    if (w == MUST_PASS || (c & 3) < 2) out_tag(f, s->v[v < (lg_value)s->nvals ? v : 0].nd, tag);
    gf_trace("output v%u %s %s\n", v, name, tag);
    if (!expect(lg_graph_add_output(s->g, v, name, tag), w, "add_output")) return;
    use_name(s, name);
    s->outs[s->nouts].v = v;
    snprintf(s->outs[s->nouts].name, sizeof s->outs[0].name, "%s", name);
    s->nouts++;
}

/* Does every value reach an output (what compile requires)? */
static bool all_live(const gstate *s, bool *live) {
    memset(live, 0, MAX_VALS * sizeof *live);
    for (int o = 0; o < s->nouts; o++) live[s->outs[o].v] = true;
    for (int n = s->nnodes - 1; n >= 0; n--)
        if (live[s->nodes[n].out])
            for (int i = 0; i < s->nodes[n].nin; i++) live[s->nodes[n].in[i]] = true;
    bool all = s->nouts > 0;
    for (int v = 0; v < s->nvals; v++) all = all && live[v];
    return all;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    fz_begin(&f);
    static gstate st;
    gstate *s = &st;
    memset(s, 0, sizeof *s);
    s->f = &f;
    uint8_t c = fz_u8(&f);
    if (lg_graph_create(&s->g) != LG_OK) fz_fail(T, "graph_create: %s", lg_last_error());
    int nops = fz_int(&f, 1, MAX_OPS);
    for (int i = 0; i < nops && s->nvals < MAX_VALS - 1; i++) {
        uint8_t op = fz_u8(&f) % 8;
        if (s->nvals == 0) op = 0;
        int nd;
        int64_t dims[LG_MAX_NDIMS];
        lg_value id;
        switch (op) {
        case 0:
            small_dims(&f, 5, &nd, dims);
            add_leaf(s, nd, dims, false, &id);
            break;
        case 1: { /* a constant shaped like an existing value, some dims 1 */
            const gm_value *v = &s->v[pick(s, false)];
            for (int d = 0; d < v->nd; d++) dims[d] = (fz_u8(&f) & 3) ? v->dims[d] : 1;
            add_leaf(s, v->nd, dims, true, &id);
            break;
        }
        case 2:
            op_conv(s);
            break;
        case 3:
            op_eltwise(s);
            break;
        case 4:
            op_binary(s);
            break;
        case 5:
            op_shuffle(s);
            break;
        case 6:
            op_reorder(s);
            break;
        default:
            /* One output in eight: a builder call with an extreme parameter. */
            if ((fz_u8(&f) & 7) == 7)
                gf_extreme(s->f, &s->v[pick(s, false)]);
            else
                op_output(s, pick(s, false), true);
            break;
        }
    }
    /* Usually: every value no node consumes becomes an output, so that the
     * graph is valid; otherwise compile must refuse what does not reach one. */
    if ((c & 0x18) != 0x18) {
        bool consumed[MAX_VALS] = {false};
        for (int n = 0; n < s->nnodes; n++)
            for (int i = 0; i < s->nodes[n].nin; i++) consumed[s->nodes[n].in[i]] = true;
        for (int k = 0; k < s->nouts; k++) consumed[s->outs[k].v] = true;
        for (int v = 0; v < s->nvals; v++)
            if (!consumed[v]) op_output(s, (lg_value)v, false);
    }
    bool live[MAX_VALS];
    bool valid = all_live(s, live);
    int64_t fail_at = (c & 7) == 7 ? fz_u8(&f) * (1 + (c >> 5)) : -1;
    for (int k = 0; k < 3; k++) gf_compile_and_run(s, (lg_strategy)k, valid, fail_at);
    lg_graph_destroy(s->g);
    for (int v = 0; v < s->nvals; v++) gm_free(&s->v[v]);
    fz_end();
    return 0;
}
