/* lgbench's value parsers: data types, dims ("8x256x56x56"), algorithm and
 * direction names, and benchdnn's attribute strings. Pure functions of their
 * input (no I/O), unit-tested by tests/lgbench/test_parse.c. Every parser
 * returns false for input it does not accept and, where it takes err/len,
 * writes the reason there. */
#ifndef LGBENCH_PARSE_H
#define LGBENCH_PARSE_H

#include <lgraph.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "f32", "f16", "bf16", "s32", "s8", "u8". */
bool lgb_parse_dt(const char *s, lg_dtype *dt);

/* benchdnn's data types lgraph leaves out (f64, f8, f4, s4/u4, ...). */
bool lgb_dt_out_of_scope(const char *s);

/* "NxNx...xN": 1..LG_MAX_NDIMS non-negative integers separated by 'x', with
 * an optional benchdnn name suffix "_n..." (ignored). */
bool lgb_parse_dims(const char *s, int *ndims, int64_t *dims);

/* Print dims as "NxNx..." into buf. */
void lgb_dims_str(int ndims, const int64_t *dims, char *buf, size_t len);

/* benchdnn's eltwise names, case-insensitive, with or without an "eltwise_"
 * prefix: relu, elu, tanh, logistic, gelu_tanh (also gelu), gelu_erf,
 * swish, exp, log, abs, sqrt, square, linear, clip, hardswish, hardsigmoid. */
bool lgb_parse_eltwise_alg(const char *s, lg_eltwise_alg *alg);
/* Whether the name is a *_dst (use-dst-for-backward) form. */
bool lgb_eltwise_is_dst(const char *s);
/* benchdnn eltwise names lgraph leaves out (logsigmoid, bounded_relu, ...). */
bool lgb_eltwise_out_of_scope(const char *s);
const char *lgb_eltwise_alg_name(lg_eltwise_alg alg);
/* Whether the algorithm reads alpha / beta (benchdnn skips problems that give
 * a non-zero value to a parameter the algorithm ignores). */
bool lgb_eltwise_uses_alpha(lg_eltwise_alg alg);
bool lgb_eltwise_uses_beta(lg_eltwise_alg alg);

/* ADD, SUB, MUL, DIV, MIN, MAX, case-insensitive, optional "binary_" prefix. */
bool lgb_parse_binary_alg(const char *s, lg_binary_alg *alg);

/* FWD_D, FWD_I, FWD_B (forward) and BWD_D, BWD_W, BWD_WB, BWD_DW
 * (backward, which lgbench skips for every kind but shuffle); *bias is set for
 * FWD_B (conv's "with bias"). */
bool lgb_parse_dir(const char *s, lg_prop *prop, bool *bias);

/* "true"/"false" (also 1/0). */
bool lgb_parse_bool(const char *s, bool *b);

/* s wholly a decimal integer in [lo, hi] ("4x", "" and out-of-range values
 * are not: a knob value must not be half read). */
bool lgb_parse_int(const char *s, long long lo, long long hi, long long *v);

/* benchdnn's meta-tags on a problem of ndims dims: a generic tag with an
 * 'x' loses the letters and blocks of dims >= ndims, and the 'x' itself
 * when the letters left name all ndims dims ("abx" on 1D is "a", on 2D
 * "ab"; "aBx16b" on 1D "a"); any other tag is copied as it is. */
void lgb_tag_for_rank(const char *tag, int ndims, char *out, size_t len);

/* ---- attributes ---- */

/* The attribute parsers' err starts with this mark when the value is valid
 * benchdnn syntax for something lgraph does not implement (binary post-ops,
 * src1 scales, ...): the problem is then skipped, not failed. */
#define LGB_UNIMPL_MARK "unimplemented: "
/* ... or with this one when it names a data type out of scope (s4, e8m0...):
 * the problem is then skipped for its type. */
#define LGB_OOS_MARK "out of scope: "

/* A scale or zero-point request for one argument. mask is the policy's
 * mask; LGB_MASK_ALL stands for per_tensor (every dim), resolved by
 * lgb_mask_resolve once ndims is known. */
#define LGB_MASK_ALL (-2)
/* Binary post-op policies whose mask depends on ndims: dims 0 and 2.. (per_mb_spatial),
 * 2.. (per_spatial), 0 and the last (per_mb_w), the last (per_w). */
#define LGB_MASK_MB_SPATIAL (-3)
#define LGB_MASK_SPATIAL    (-4)
#define LGB_MASK_MB_W       (-5)
#define LGB_MASK_W          (-6)
typedef struct lgb_arg_quant {
    bool set;
    int mask;
    float value; /* the scale, or the zero point */
    /* oneDNN 3.x ARG:POLICY:DATA_TYPE[:GROUPS]: the values' type (LG_F32 /
     * LG_S32 when not given) and the group sizes of the last gndims dims */
    lg_dtype dt;
    int gndims;
    int64_t groups[LG_MAX_NDIMS];
} lgb_arg_quant;

typedef enum lgb_post_kind {
    LGB_POST_SUM = 1,
    LGB_POST_ELTWISE = 2,
    LGB_POST_BINARY = 3,
    LGB_POST_PRELU = 4 /* PRELU[:POLICY]: mask holds the policy's (default common) */
} lgb_post_kind;

typedef struct lgb_post {
    lgb_post_kind kind;
    lg_eltwise_alg alg;
    float alpha, beta; /* eltwise */
    float escale;      /* eltwise's SCALE (oneDNN 2.x: dst = SCALE * eltwise); 1 when not given */
    float scale;       /* sum's beta */
    int32_t zp;        /* sum's zero point (0: none) */
    lg_dtype sdt;      /* sum's data type (LG_DT_UNDEF: dst's) */
    /* binary: algorithm, src1's type, mask (or an LGB_MASK_* policy) and tag */
    lg_binary_alg balg;
    lg_dtype dt;
    int mask;
    char tag[48];
} lgb_post;

/* What --attr-scales, --attr-zero-points and --attr-post-ops ask for.
 * Index 0 is the source argument, 1 the destination. */
typedef struct lgb_attr_spec {
    lgb_arg_quant scales[2], zps[2];
    lgb_arg_quant src1_scale; /* binary's src1 ("src1:...") */
    /* conv's weights scales and zero points ("wei:..."): parsed only when
     * take_wei is set before the parsers run (else lgraph has none). */
    bool take_wei;
    lgb_arg_quant wei_scale, wei_zp;
    int npost;
    lgb_post post[LG_MAX_POST_OPS];
} lgb_attr_spec;

/* --attr-scales=ARG:POLICY[:SCALE][+...]: ARG is src (src0), src1 or dst; POLICY
 * common, per_dim_0, per_dim_1, per_dim_01, per_dim_2, per_dim_3,
 * per_dim_23, per_dim_023, per_oc (= per_dim_1), per_tensor; SCALE a float
 * (default 1; a trailing '*', benchdnn's old run-time mark, is accepted).
 * An empty string sets nothing. */
bool lgb_parse_scales(const char *s, lgb_attr_spec *a, char *err, size_t len);

/* --attr-zero-points=ARG:POLICY:ZP[+...]: as scales, ZP an integer. */
bool lgb_parse_zero_points(const char *s, lgb_attr_spec *a, char *err, size_t len);

/* --attr-post-ops=OP[+OP...]: sum[:BETA[:ZERO_POINT[:DATA_TYPE]]], ELTWISE[:ALPHA[:BETA]] with an
 * eltwise name as above, or BINARY:DT[:MASK_INPUT[:TAG]] with a binary name
 * (add ... ne), src1's data type, a policy (common, per_oc, per_dim_0, 1,
 * 01, 2, 3, 23, 023, 03, 12, 013, per_tensor, per_mb_spatial, per_spatial,
 * per_mb_w, per_w) or an integer mask (default common), and src1's tag
 * (default any); or prelu[:POLICY], POLICY one of those policies (default
 * common; weights f32, as benchdnn). */
bool lgb_parse_post_ops(const char *s, lgb_attr_spec *a, char *err, size_t len);

/* The concrete mask for a tensor of ndims dims (LGB_MASK_* policies
 * resolved); false if the mask names a dim the tensor lacks. */
bool lgb_mask_resolve(int mask, int ndims, int *out);

/* The i-th per-index value benchdnn-style: a spread of values around
 * `base` (for common masks i is 0 and the value is `base` itself). */
float lgb_scale_value(float base, int64_t i);
int32_t lgb_zp_value(float base, int64_t i);

#endif /* LGBENCH_PARSE_H */
