/* lgbench's value parsers (see parse.h). */
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool lgb_parse_dt(const char *s, lg_dtype *dt) {
    static const struct {
        const char *name;
        lg_dtype dt;
    } t[] = {{"f32", LG_F32}, {"f16", LG_F16}, {"bf16", LG_BF16},       {"s32", LG_S32},
             {"s8", LG_S8},   {"u8", LG_U8},   {"f8_e4m3", LG_F8_E4M3}, {"f8_e5m2", LG_F8_E5M2}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *dt = t[i].dt;
            return true;
        }
    return false;
}

/* A non-negative decimal integer filling [s, end) exactly. */
static bool parse_int64(const char *s, const char *end, int64_t *v) {
    if (s == end || *s < '0' || *s > '9') return false;
    errno = 0;
    char *e;
    long long x = strtoll(s, &e, 10);
    if (errno || e != end) return false;
    *v = x;
    return true;
}

bool lgb_dt_out_of_scope(const char *s) {
    static const char *const t[] = {"f64", "f8_e5m2", "f8_e4m3", "e8m0", "f4_e2m1", "f4_e3m0",
                                    "s4",  "u4",      "bf8",     "hf8",  "f8_e8m0", "undef"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i])) return true;
    return false;
}

bool lgb_parse_dims(const char *s, int *ndims, int64_t *dims) {
    int n = 0;
    const char *p = s;
    const char *name = strstr(s, "_n"); /* benchdnn's problem name suffix */
    const char *stop = name ? name : s + strlen(s);
    for (;;) {
        const char *x = memchr(p, 'x', (size_t)(stop - p));
        const char *end = x ? x : stop;
        if (n == LG_MAX_NDIMS || !parse_int64(p, end, &dims[n])) return false;
        n++;
        if (!x) break;
        p = x + 1;
    }
    *ndims = n;
    return true;
}

void lgb_dims_str(int ndims, const int64_t *dims, char *buf, size_t len) {
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < ndims && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%lld", i ? "x" : "", (long long)dims[i]);
        if (w < 0) return;
        o += (size_t)w;
    }
}

static const struct {
    const char *name;
    lg_eltwise_alg alg;
    bool alpha, beta;
} eltwise_algs[] = {
    {"relu", LG_ELTWISE_RELU, true, false},
    {"elu", LG_ELTWISE_ELU, true, false},
    {"tanh", LG_ELTWISE_TANH, false, false},
    {"logistic", LG_ELTWISE_LOGISTIC, false, false},
    {"gelu_tanh", LG_ELTWISE_GELU_TANH, false, false},
    {"gelu_erf", LG_ELTWISE_GELU_ERF, false, false},
    {"swish", LG_ELTWISE_SWISH, true, false},
    {"exp", LG_ELTWISE_EXP, false, false},
    {"log", LG_ELTWISE_LOG, false, false},
    {"abs", LG_ELTWISE_ABS, false, false},
    {"sqrt", LG_ELTWISE_SQRT, false, false},
    {"square", LG_ELTWISE_SQUARE, false, false},
    {"linear", LG_ELTWISE_LINEAR, true, true},
    {"clip", LG_ELTWISE_CLIP, true, true},
    {"hardswish", LG_ELTWISE_HARDSWISH, true, true},
    {"hardsigmoid", LG_ELTWISE_HARDSIGMOID, true, true},
    {"pow", LG_ELTWISE_POW, true, true},
    {"clip_v2", LG_ELTWISE_CLIP_V2, true, true},
    {"round", LG_ELTWISE_ROUND, false, false},
    {"mish", LG_ELTWISE_MISH, false, false},
    {"soft_relu", LG_ELTWISE_SOFT_RELU, true, false},
    {"gelu", LG_ELTWISE_GELU_TANH, false, false}, /* benchdnn's alias */
    /* The *_dst forms (oneDNN's "use dst for backward"): forward is the same
     * function; relu_dst and elu_dst take alpha >= 0 only (checked by the
     * driver through lgb_eltwise_is_dst). */
    {"relu_dst", LG_ELTWISE_RELU, true, false},
    {"relu_use_dst_for_bwd", LG_ELTWISE_RELU, true, false},
    {"elu_dst", LG_ELTWISE_ELU, true, false},
    {"elu_use_dst_for_bwd", LG_ELTWISE_ELU, true, false},
    {"tanh_dst", LG_ELTWISE_TANH, false, false},
    {"tanh_use_dst_for_bwd", LG_ELTWISE_TANH, false, false},
    {"sqrt_dst", LG_ELTWISE_SQRT, false, false},
    {"sqrt_use_dst_for_bwd", LG_ELTWISE_SQRT, false, false},
    {"logistic_dst", LG_ELTWISE_LOGISTIC, false, false},
    {"logistic_use_dst_for_bwd", LG_ELTWISE_LOGISTIC, false, false},
    {"exp_dst", LG_ELTWISE_EXP, false, false},
    {"exp_use_dst_for_bwd", LG_ELTWISE_EXP, false, false},
    {"clip_v2_dst", LG_ELTWISE_CLIP_V2, true, true},
    {"clip_v2_use_dst_for_bwd", LG_ELTWISE_CLIP_V2, true, true},
};
#define N_ELTWISE (sizeof eltwise_algs / sizeof eltwise_algs[0])

bool lgb_parse_eltwise_alg(const char *s, lg_eltwise_alg *alg) {
    if (!strncasecmp(s, "eltwise_", 8)) s += 8;
    for (size_t i = 0; i < N_ELTWISE; i++)
        if (!strcasecmp(s, eltwise_algs[i].name)) {
            *alg = eltwise_algs[i].alg;
            return true;
        }
    return false;
}

bool lgb_eltwise_is_dst(const char *s) {
    size_t n = strlen(s);
    return (n > 4 && !strcmp(s + n - 4, "_dst")) ||
           (n > 16 && !strcmp(s + n - 16, "_use_dst_for_bwd"));
}

bool lgb_eltwise_out_of_scope(const char *s) {
    static const char *const t[] = {"bounded_relu", "logsigmoid", "gelu_tanh_dst", "hsigmoid",
                                    "srelu"};
    if (!strncasecmp(s, "eltwise_", 8)) s += 8;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(s, t[i])) return true;
    return false;
}

const char *lgb_eltwise_alg_name(lg_eltwise_alg alg) {
    for (size_t i = 0; i < N_ELTWISE; i++)
        if (eltwise_algs[i].alg == alg) return eltwise_algs[i].name;
    return "?";
}

bool lgb_eltwise_uses_alpha(lg_eltwise_alg alg) {
    for (size_t i = 0; i < N_ELTWISE; i++)
        if (eltwise_algs[i].alg == alg) return eltwise_algs[i].alpha;
    return false;
}

bool lgb_eltwise_uses_beta(lg_eltwise_alg alg) {
    for (size_t i = 0; i < N_ELTWISE; i++)
        if (eltwise_algs[i].alg == alg) return eltwise_algs[i].beta;
    return false;
}

bool lgb_parse_binary_alg(const char *s, lg_binary_alg *alg) {
    static const struct {
        const char *name;
        lg_binary_alg alg;
    } t[] = {{"add", LG_BINARY_ADD}, {"sub", LG_BINARY_SUB}, {"mul", LG_BINARY_MUL},
             {"div", LG_BINARY_DIV}, {"min", LG_BINARY_MIN}, {"max", LG_BINARY_MAX},
             {"ge", LG_BINARY_GE},   {"gt", LG_BINARY_GT},   {"le", LG_BINARY_LE},
             {"lt", LG_BINARY_LT},   {"eq", LG_BINARY_EQ},   {"ne", LG_BINARY_NE}};
    if (!strncasecmp(s, "binary_", 7)) s += 7;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(s, t[i].name)) {
            *alg = t[i].alg;
            return true;
        }
    return false;
}

bool lgb_parse_dir(const char *s, lg_prop *prop, bool *bias) {
    *bias = false;
    if (!strcasecmp(s, "FWD_D") || !strcasecmp(s, "FWD_I")) {
        *prop = LG_FORWARD;
        return true;
    }
    if (!strcasecmp(s, "FWD_B")) {
        *prop = LG_FORWARD;
        *bias = true;
        return true;
    }
    if (!strcasecmp(s, "BWD_D") || !strcasecmp(s, "BWD_W") || !strcasecmp(s, "BWD_WB") ||
        !strcasecmp(s, "BWD_DW")) {
        *prop = LG_BACKWARD;
        return true;
    }
    return false;
}

bool lgb_parse_bool(const char *s, bool *b) {
    if (!strcasecmp(s, "true") || !strcmp(s, "1")) {
        *b = true;
        return true;
    }
    if (!strcasecmp(s, "false") || !strcmp(s, "0")) {
        *b = false;
        return true;
    }
    return false;
}

bool lgb_parse_int(const char *s, long long lo, long long hi, long long *v) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi) return false;
    *v = x;
    return true;
}

/* ---- attributes ---- */

static int policy_mask(const char *p, size_t n) {
    static const struct {
        const char *name;
        int mask;
    } t[] = {{"common", 0},      {"per_dim_0", 1},
             {"per_dim_1", 2},   {"per_dim_01", 3},
             {"per_dim_2", 4},   {"per_dim_3", 8},
             {"per_dim_23", 12}, {"per_dim_023", 13},
             {"per_oc", 2},      {"per_tensor", LGB_MASK_ALL}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].name) == n && !strncmp(p, t[i].name, n)) return t[i].mask;
    return -1;
}

/* Split s at `sep` into at most `max` fields of up to 63 characters; the
 * number of fields, or -1 if there are too many or one is too long. */
static int split(const char *s, char sep, char fields[][64], int max) {
    int n = 0;
    for (;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (n == max || len >= 64) return -1;
        memcpy(fields[n], s, len);
        fields[n][len] = '\0';
        n++;
        if (!e) return n;
        s = e + 1;
    }
}

static bool parse_float(const char *s, float *v) {
    if (!*s) return false;
    char *e;
    errno = 0;
    *v = strtof(s, &e);
    if (*e == '*') e++; /* benchdnn's run-time mark */
    return !errno && *e == '\0';
}

/* ARG:POLICY[:VALUE] entries joined by '+'; is_zp selects integer values;
 * src1 takes "src1:" entries (NULL: none). */
static bool parse_quant(const char *s, lgb_arg_quant *q, lgb_arg_quant *src1, lgb_arg_quant *wei,
                        bool is_zp, char *err, size_t len) {
    char items[LG_MAX_POST_OPS][64];
    if (!*s) return true;
    int n = split(s, '+', items, LG_MAX_POST_OPS);
    if (n < 0) {
        snprintf(err, len, "too many or too long entries in '%s'", s);
        return false;
    }
    for (int i = 0; i < n; i++) {
        char f[4][64];
        int nf = split(items[i], ':', f, 4);
        if (nf < 2 || nf > 4 ||
            (nf == 4 && !lgb_parse_dt(f[2], &(lg_dtype){LG_F32}) && !lgb_dt_out_of_scope(f[2]))) {
            snprintf(err, len, "'%s': expected ARG:POLICY%s", items[i],
                     is_zp ? ":ZERO_POINT" : "[:SCALE]");
            return false;
        }
        int arg = !strcmp(f[0], "src") || !strcmp(f[0], "src0") ? 0
                  : !strcmp(f[0], "dst")                        ? 1
                  : src1 && !strcmp(f[0], "src1")               ? 2
                  : wei && !strcmp(f[0], "wei")                 ? 3
                                                                : -1;
        lgb_arg_quant *qa = arg == 3 ? wei : arg == 2 ? src1 : arg >= 0 ? &q[arg] : NULL;
        if (arg < 0 && (!strcmp(f[0], "src1") || !strcmp(f[0], "wei") ||
                        !strncmp(f[0], "attr_post_op", 12) || !strcmp(f[0], "bia"))) {
            snprintf(err, len, "%s'%s': lgraph has no %s on %s", LGB_UNIMPL_MARK, items[i],
                     is_zp ? "zero point" : "scale", f[0]);
            return false;
        }
        if (arg < 0) {
            snprintf(err, len, "'%s': argument must be src or dst", items[i]);
            return false;
        }
        int mask = policy_mask(f[1], strlen(f[1]));
        if (mask == -1) {
            static const char *const more[] = {"per_ocic",    "per_dim_03", "per_dim_12",
                                               "per_dim_013", "per_dim_4",  "per_dim_5"};
            bool known = false;
            for (size_t m = 0; m < sizeof more / sizeof more[0]; m++)
                known = known || !strcmp(f[1], more[m]);
            snprintf(err, len, "%s'%s': %s policy '%s'", known ? LGB_UNIMPL_MARK : "", items[i],
                     known ? "lgraph has no" : "unknown", f[1]);
            return false;
        }
        float v = is_zp ? 0.0f : 1.0f;
        qa->dt = is_zp ? LG_S32 : LG_F32;
        qa->gndims = 0;
        /* oneDNN 3.x writes ARG:POLICY[:DATA_TYPE[:GROUPS]] instead of a
         * value: scales of f32, bf16, f16 or f8, zero points of s32, s8 or
         * u8, in groups GxG... of the last dims (lg_attr_set_scales_ex).
         * Types out of lgraph's scope (s4, u4, e8m0, ...) skip the problem
         * for its type. */
        lg_dtype qdt;
        if (nf >= 3 && (lgb_parse_dt(f[2], &qdt) || lgb_dt_out_of_scope(f[2]))) {
            if (!lgb_parse_dt(f[2], &qdt)) {
                snprintf(err, len, "%s'%s': %s of type %s", LGB_OOS_MARK, items[i],
                         is_zp ? "zero points" : "scales", f[2]);
                return false;
            }
            bool ok = is_zp ? (qdt == LG_S32 || qdt == LG_S8 || qdt == LG_U8)
                            : (qdt == LG_F32 || qdt == LG_BF16 || qdt == LG_F16 ||
                               qdt == LG_F8_E4M3 || qdt == LG_F8_E5M2);
            if (!ok) {
                snprintf(err, len, "'%s': %s of type %s", items[i],
                         is_zp ? "zero points" : "scales", f[2]);
                return false;
            }
            if (nf == 4) {
                const char *p = f[3];
                while (*p) {
                    char *e;
                    long long g = strtoll(p, &e, 10);
                    if (e == p || g < 1 || qa->gndims == LG_MAX_NDIMS || (*e && *e != 'x')) {
                        snprintf(err, len, "'%s': bad groups '%s' (want GxG...)", items[i], f[3]);
                        return false;
                    }
                    qa->groups[qa->gndims++] = g;
                    p = *e ? e + 1 : e;
                }
            }
            qa->set = true;
            qa->mask = mask;
            qa->dt = qdt;
            qa->value = 1.0f; /* a scale of 1, a zero point of 1 */
            continue;
        }
        if (nf == 3) {
            bool ok = parse_float(f[2], &v);
            if (ok && is_zp) {
                char *e;
                long z = strtol(f[2], &e, 10);
                ok =
                    (*e == '\0' || (*e == '*' && e[1] == '\0')) && z >= INT32_MIN && z <= INT32_MAX;
                v = (float)z;
            }
            if (!ok) {
                snprintf(err, len, "'%s': bad %s '%s'", items[i], is_zp ? "zero point" : "scale",
                         f[2]);
                return false;
            }
        } else if (is_zp) {
            v = 1.0f; /* benchdnn's ARG:POLICY without a value: a zero point of 1 */
        }
        qa->set = true;
        qa->mask = mask;
        qa->value = v;
    }
    return true;
}

bool lgb_parse_scales(const char *s, lgb_attr_spec *a, char *err, size_t len) {
    return parse_quant(s, a->scales, &a->src1_scale, a->take_wei ? &a->wei_scale : NULL, false, err,
                       len);
}

bool lgb_parse_zero_points(const char *s, lgb_attr_spec *a, char *err, size_t len) {
    return parse_quant(s, a->zps, NULL, a->take_wei ? &a->wei_zp : NULL, true, err, len);
}

/* A binary post-op's MASK_INPUT: a policy name or a non-negative integer. */
static bool binary_mask(const char *s, int *mask) {
    static const struct {
        const char *name;
        int mask;
    } t[] = {{"per_dim_03", 9},
             {"per_dim_12", 6},
             {"per_dim_013", 11},
             {"per_mb_spatial", LGB_MASK_MB_SPATIAL},
             {"per_spatial", LGB_MASK_SPATIAL},
             {"per_mb_w", LGB_MASK_MB_W},
             {"per_w", LGB_MASK_W}};
    int m = policy_mask(s, strlen(s));
    if (m != -1) {
        *mask = m;
        return true;
    }
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *mask = t[i].mask;
            return true;
        }
    char *e;
    long v = strtol(s, &e, 10);
    if (!*s || *e || v < 0 || v >= (1L << LG_MAX_NDIMS)) return false;
    *mask = (int)v;
    return true;
}

/* BINARY:DT[:MASK_INPUT[:TAG]] (f[0] already parsed as b). */
static bool parse_binary_post(const char *item, char f[][64], int nf, lg_binary_alg b, lgb_post *p,
                              char *err, size_t len) {
    if (nf < 2) {
        snprintf(err, len, "'%s': a binary post-op needs a data type (ALG:DT[:MASK[:TAG]])", item);
        return false;
    }
    if (!lgb_parse_dt(f[1], &p->dt)) {
        bool oos = lgb_dt_out_of_scope(f[1]);
        snprintf(err, len, "%s'%s': %s data type '%s'", oos ? LGB_UNIMPL_MARK : "", item,
                 oos ? "lgraph has no binary post-op of" : "unknown", f[1]);
        return false;
    }
    p->kind = LGB_POST_BINARY;
    p->balg = b;
    p->mask = 0;
    if (nf >= 3 && !binary_mask(f[2], &p->mask)) {
        snprintf(err, len, "'%s': unknown policy or mask '%s'", item, f[2]);
        return false;
    }
    snprintf(p->tag, sizeof p->tag, "%s", nf >= 4 ? f[3] : "any");
    return true;
}

bool lgb_parse_post_ops(const char *s, lgb_attr_spec *a, char *err, size_t len) {
    char items[LG_MAX_POST_OPS + 1][64];
    a->npost = 0;
    if (!*s) return true;
    int n = split(s, '+', items, LG_MAX_POST_OPS + 1);
    if (n < 0 || n > LG_MAX_POST_OPS) {
        snprintf(err, len, "'%s': at most %d post-ops", s, LG_MAX_POST_OPS);
        return false;
    }
    for (int i = 0; i < n; i++) {
        char f[4][64];
        int nf = split(items[i], ':', f, 4);
        lgb_post *p = &a->post[i];
        memset(p, 0, sizeof *p);
        float v[2] = {0, 0};
        if (nf < 1) {
            snprintf(err, len, "'%s': too many fields", items[i]);
            return false;
        }
        lg_binary_alg b;
        if (lgb_parse_binary_alg(f[0], &b)) {
            if (!parse_binary_post(items[i], f, nf, b, p, err, len)) return false;
            continue;
        }
        if (!strcasecmp(f[0], "prelu")) { /* PRELU[:POLICY] */
            p->kind = LGB_POST_PRELU;
            if (nf > 2 || (nf == 2 && !binary_mask(f[1], &p->mask))) {
                snprintf(err, len, "'%s': prelu takes one policy (prelu[:POLICY])", items[i]);
                return false;
            }
            continue;
        }
        if (!strncasecmp(f[0], "dw", 2) || lgb_eltwise_out_of_scope(f[0])) {
            snprintf(err, len, "%s'%s': lgraph has no post-op '%s'", LGB_UNIMPL_MARK, items[i],
                     f[0]);
            return false;
        }
        lg_eltwise_alg e;
        if (strcasecmp(f[0], "sum") && !lgb_parse_eltwise_alg(f[0], &e)) {
            snprintf(err, len, "'%s': unknown post-op '%s'", items[i], f[0]);
            return false;
        }
        bool is_sum = !strcasecmp(f[0], "sum");
        p->sdt = LG_DT_UNDEF;
        if (is_sum && nf >= 3) { /* sum:SCALE:ZERO_POINT[:DATA_TYPE] */
            char *ze;
            long z = strtol(f[2], &ze, 10);
            if (!f[2][0] || *ze || z < INT32_MIN || z > INT32_MAX) {
                snprintf(err, len, "'%s': bad zero point '%s'", items[i], f[2]);
                return false;
            }
            p->zp = (int32_t)z;
            if (nf == 4 && !lgb_parse_dt(f[3], &p->sdt)) {
                bool oos = lgb_dt_out_of_scope(f[3]);
                snprintf(err, len, "%s'%s': %s data type '%s'", oos ? LGB_UNIMPL_MARK : "",
                         items[i], oos ? "lgraph has no sum of" : "unknown", f[3]);
                return false;
            }
            nf = 2;
        }
        p->escale = 1.0f;
        if (!is_sum && nf == 4) { /* ELTWISE:ALPHA:BETA:SCALE */
            if (!parse_float(f[3], &p->escale)) {
                snprintf(err, len, "'%s': bad number '%s'", items[i], f[3]);
                return false;
            }
            nf = 3;
        }
        for (int k = 1; k < nf; k++)
            if (!parse_float(f[k], &v[k - 1])) {
                snprintf(err, len, "'%s': bad number '%s'", items[i], f[k]);
                return false;
            }
        if (!strcasecmp(f[0], "sum")) {
            if (nf > 2) {
                snprintf(err, len, "'%s': sum takes one value (its scale)", items[i]);
                return false;
            }
            p->kind = LGB_POST_SUM;
            p->scale = nf == 2 ? v[0] : 1.0f;
        } else if (lgb_parse_eltwise_alg(f[0], &p->alg)) {
            if (nf > 3) {
                snprintf(err, len, "'%s': eltwise takes ALPHA and BETA at most", items[i]);
                return false;
            }
            p->kind = LGB_POST_ELTWISE;
            p->alpha = v[0];
            p->beta = v[1];
        } else {
            snprintf(err, len, "'%s': unknown post-op '%s'", items[i], f[0]);
            return false;
        }
    }
    a->npost = n;
    return true;
}

bool lgb_mask_resolve(int mask, int ndims, int *out) {
    const int all = (1 << ndims) - 1, last = 1 << (ndims - 1);
    switch (mask) {
    case LGB_MASK_ALL:
        *out = all;
        return true;
    case LGB_MASK_MB_SPATIAL:
        *out = all & ~2;
        return ndims >= 3;
    case LGB_MASK_SPATIAL:
        *out = all & ~3;
        return ndims >= 3;
    case LGB_MASK_MB_W:
        *out = 1 | last;
        return ndims >= 3;
    case LGB_MASK_W:
        *out = last;
        return ndims >= 3;
    default:
        break;
    }
    if (mask >> ndims) return false;
    *out = mask;
    return true;
}

float lgb_scale_value(float base, int64_t i) {
    /* base times 1/4 .. 4 in steps that are exact in binary and in decimal
     * print: 0.25, 0.5, 1, 2, 4, 0.75, 1.5, 3. */
    static const float f[8] = {1.0f, 0.5f, 2.0f, 0.25f, 4.0f, 0.75f, 1.5f, 3.0f};
    return base * f[i % 8];
}

int32_t lgb_zp_value(float base, int64_t i) {
    return (int32_t)base + (int32_t)(i % 3);
}

void lgb_tag_for_rank(const char *tag, int ndims, char *out, size_t len) {
    bool meta = strchr(tag, 'x') != NULL;
    for (const char *p = tag; *p && meta; p++)
        meta = *p == 'x' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'l') ||
               (*p >= 'A' && *p <= 'L');
    if (!meta || !strcmp(tag, "x")) {
        snprintf(out, len, "%s", tag);
        return;
    }
    /* When the letters kept name every dim, the 'x' goes too ("abx" on 2D
     * is "ab"). */
    int letters = 0;
    for (const char *p = tag; *p; p++) {
        int d = *p >= 'a' && *p <= 'l' ? *p - 'a' : *p >= 'A' && *p <= 'L' ? *p - 'A' : -1;
        bool block = p > tag && p[-1] >= '0' && p[-1] <= '9';
        if (d >= 0 && d < ndims && !block) letters++;
    }
    size_t o = 0;
    for (const char *p = tag; *p && o + 1 < len;) {
        if (*p == 'x' && letters == ndims) {
            p++;
            continue;
        }
        if (*p >= '0' && *p <= '9') { /* an inner block: digits and a letter */
            const char *q = p;
            while (*q >= '0' && *q <= '9') q++;
            int d = *q >= 'a' && *q <= 'l' ? *q - 'a' : 0;
            size_t n = (size_t)(q - p) + (*q ? 1 : 0);
            if (d < ndims && o + n < len) {
                memcpy(out + o, p, n);
                o += n;
            }
            p += n;
            continue;
        }
        int d = *p >= 'a' && *p <= 'l' ? *p - 'a' : *p >= 'A' && *p <= 'L' ? *p - 'A' : -1;
        if (d < ndims) out[o++] = *p;
        p++;
    }
    out[o] = '\0';
}
