/* lgbench's value parsers: dims, types, algorithm and direction names,
 * benchdnn's attribute strings, masks and the generated values. */
#include "parse.h"

#include <criterion/criterion.h>
#include <string.h>

Test(parse, dims) {
    int nd;
    int64_t d[LG_MAX_NDIMS];
    cr_assert(lgb_parse_dims("8x256x56x56", &nd, d));
    int64_t want[4] = {8, 256, 56, 56};
    cr_assert_eq(nd, 4);
    cr_assert_arr_eq(d, want, sizeof want);
    cr_assert(lgb_parse_dims("0x3", &nd, d) && nd == 2 && d[0] == 0 && d[1] == 3);
    cr_assert(lgb_parse_dims("7", &nd, d) && nd == 1 && d[0] == 7);
    cr_assert(lgb_parse_dims("1x1x1x1x1x1x1x1x1x1x1x2", &nd, d) && nd == 12 && d[11] == 2);
    const char *bad[] = {"",
                         "8x",
                         "x8",
                         "8xx2",
                         "-1",
                         "8x-2",
                         "8X2",
                         "8x2a",
                         "1x1x1x1x1x1x1x1x1x1x1x1x1",
                         "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_not(lgb_parse_dims(bad[i], &nd, d), "'%s' parsed", bad[i]);
    char buf[64];
    lgb_dims_str(4, want, buf, sizeof buf);
    cr_assert_str_eq(buf, "8x256x56x56");
}

Test(parse, types_algs_dirs) {
    lg_dtype dt;
    cr_assert(lgb_parse_dt("bf16", &dt) && dt == LG_BF16);
    cr_assert(lgb_parse_dt("u8", &dt) && dt == LG_U8);
    cr_assert_not(lgb_parse_dt("f64", &dt));
    cr_assert_not(lgb_parse_dt("F32", &dt));

    lg_eltwise_alg a;
    cr_assert(lgb_parse_eltwise_alg("GELU_ERF", &a) && a == LG_ELTWISE_GELU_ERF);
    cr_assert(lgb_parse_eltwise_alg("eltwise_relu", &a) && a == LG_ELTWISE_RELU);
    cr_assert(lgb_parse_eltwise_alg("gelu", &a) && a == LG_ELTWISE_GELU_TANH);
    cr_assert(lgb_parse_eltwise_alg("hardsigmoid", &a) && a == LG_ELTWISE_HARDSIGMOID);
    cr_assert(lgb_parse_eltwise_alg("mish", &a) && a == LG_ELTWISE_MISH);
    cr_assert(lgb_parse_eltwise_alg("relu_dst", &a) && a == LG_ELTWISE_RELU);
    cr_assert(lgb_eltwise_is_dst("relu_dst") && !lgb_eltwise_is_dst("relu"));
    cr_assert(lgb_parse_eltwise_alg("soft_relu", &a) && a == LG_ELTWISE_SOFT_RELU);
    cr_assert_not(lgb_parse_eltwise_alg("logsigmoid", &a));
    cr_assert(lgb_eltwise_out_of_scope("logsigmoid"));
    cr_assert_not(lgb_parse_eltwise_alg("mishh", &a));
    cr_assert_str_eq(lgb_eltwise_alg_name(LG_ELTWISE_CLIP), "clip");
    cr_assert(lgb_eltwise_uses_alpha(LG_ELTWISE_RELU) && !lgb_eltwise_uses_beta(LG_ELTWISE_RELU));
    cr_assert(lgb_eltwise_uses_beta(LG_ELTWISE_LINEAR));
    cr_assert(!lgb_eltwise_uses_alpha(LG_ELTWISE_TANH));

    lg_binary_alg b;
    cr_assert(lgb_parse_binary_alg("MUL", &b) && b == LG_BINARY_MUL);
    cr_assert(lgb_parse_binary_alg("binary_max", &b) && b == LG_BINARY_MAX);
    cr_assert_not(lgb_parse_binary_alg("pow", &b));

    lg_prop p;
    bool bias;
    cr_assert(lgb_parse_dir("FWD_B", &p, &bias) && p == LG_FORWARD && bias);
    cr_assert(lgb_parse_dir("fwd_d", &p, &bias) && p == LG_FORWARD && !bias);
    cr_assert(lgb_parse_dir("BWD_D", &p, &bias) && p == LG_BACKWARD);
    cr_assert(lgb_parse_dir("BWD_WB", &p, &bias) && p == LG_BACKWARD);
    cr_assert_not(lgb_parse_dir("BWD_X", &p, &bias));

    bool v;
    cr_assert(lgb_parse_bool("true", &v) && v);
    cr_assert(lgb_parse_bool("0", &v) && !v);
    cr_assert_not(lgb_parse_bool("yes", &v));
}

Test(parse, scales) {
    lgb_attr_spec a;
    char err[200];
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_scales("", &a, err, sizeof err));
    cr_assert_not(a.scales[0].set || a.scales[1].set);
    cr_assert(lgb_parse_scales("src:per_dim_1", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].set && a.scales[0].mask == 2 && a.scales[0].value == 1.0f);
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_scales("src0:common:0.5+dst:per_dim_01:2*", &a, err, sizeof err), "%s",
              err);
    cr_assert(a.scales[0].mask == 0 && a.scales[0].value == 0.5f);
    cr_assert(a.scales[1].set && a.scales[1].mask == 3 && a.scales[1].value == 2.0f);
    cr_assert(lgb_parse_scales("dst:per_tensor", &a, err, sizeof err));
    cr_assert_eq(a.scales[1].mask, LGB_MASK_ALL);
    cr_assert(lgb_parse_scales("src:per_oc", &a, err, sizeof err) && a.scales[0].mask == 2);
    cr_assert(lgb_parse_scales("src:per_dim_023", &a, err, sizeof err) && a.scales[0].mask == 13);

    cr_assert_not(lgb_parse_scales("wei:common:1", &a, err, sizeof err));
    cr_assert(!strncmp(err, LGB_UNIMPL_MARK, strlen(LGB_UNIMPL_MARK)), "%s", err);
    cr_assert_not(lgb_parse_scales("weights:common:1", &a, err, sizeof err));
    cr_assert(strstr(err, "src or dst"), "%s", err);
    cr_assert_not(lgb_parse_scales("src:per_bogus", &a, err, sizeof err));
    cr_assert(strstr(err, "unknown policy"), "%s", err);
    cr_assert_not(lgb_parse_scales("src:common:abc", &a, err, sizeof err));
    cr_assert(strstr(err, "bad scale"), "%s", err);
    cr_assert_not(lgb_parse_scales("src", &a, err, sizeof err));
    cr_assert_not(lgb_parse_scales("src:common:1:2", &a, err, sizeof err));
}

Test(parse, zero_points) {
    lgb_attr_spec a;
    char err[200];
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_zero_points("dst:common:3", &a, err, sizeof err), "%s", err);
    cr_assert(a.zps[1].set && a.zps[1].mask == 0 && a.zps[1].value == 3.0f);
    cr_assert(lgb_parse_zero_points("src:per_dim_1:-2", &a, err, sizeof err), "%s", err);
    cr_assert(a.zps[0].mask == 2 && a.zps[0].value == -2.0f);
    cr_assert(lgb_parse_zero_points("src:common", &a, err, sizeof err), "%s", err);
    cr_assert(a.zps[0].mask == 0 && a.zps[0].value == 1.0f);
    memset(&a, 0, sizeof a);
    cr_assert_not(lgb_parse_zero_points("wei:common:2", &a, err, sizeof err));
    a.take_wei = true;
    cr_assert(lgb_parse_zero_points("wei:common:2", &a, err, sizeof err), "%s", err);
    cr_assert(a.wei_zp.set && a.wei_zp.value == 2.0f);
    cr_assert_not(lgb_parse_zero_points("src:common:1.5", &a, err, sizeof err));
    cr_assert(strstr(err, "bad zero point"), "%s", err);
}

Test(parse, post_ops) {
    lgb_attr_spec a;
    char err[200];
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_post_ops("", &a, err, sizeof err) && a.npost == 0);
    cr_assert(lgb_parse_post_ops("sum", &a, err, sizeof err));
    cr_assert(a.npost == 1 && a.post[0].kind == LGB_POST_SUM && a.post[0].scale == 1.0f);
    cr_assert(lgb_parse_post_ops("sum:0.5+relu+linear:2:3+clip:-1", &a, err, sizeof err), "%s",
              err);
    cr_assert_eq(a.npost, 4);
    cr_assert(a.post[0].kind == LGB_POST_SUM && a.post[0].scale == 0.5f);
    cr_assert(a.post[1].kind == LGB_POST_ELTWISE && a.post[1].alg == LG_ELTWISE_RELU &&
              a.post[1].alpha == 0.0f);
    cr_assert(a.post[2].alg == LG_ELTWISE_LINEAR && a.post[2].alpha == 2.0f &&
              a.post[2].beta == 3.0f);
    cr_assert(a.post[3].alg == LG_ELTWISE_CLIP && a.post[3].alpha == -1.0f &&
              a.post[3].beta == 0.0f);
    cr_assert_not(lgb_parse_post_ops("bogus", &a, err, sizeof err));
    cr_assert(strstr(err, "unknown post-op"), "%s", err);
    cr_assert(lgb_parse_post_ops("sum:1.5:2+relu", &a, err, sizeof err), "%s", err);
    cr_assert(a.post[0].scale == 1.5f && a.post[0].zp == 2 && a.post[0].sdt == LG_DT_UNDEF);
    cr_assert(lgb_parse_post_ops("sum:1:0:s8", &a, err, sizeof err), "%s", err);
    cr_assert(a.post[0].zp == 0 && a.post[0].sdt == LG_S8);
    cr_assert_not(lgb_parse_post_ops("sum:1:x", &a, err, sizeof err));
    cr_assert(lgb_parse_post_ops("relu:0:0:2.5", &a, err, sizeof err), "%s", err);
    cr_assert(a.post[0].escale == 2.5f);
    cr_assert_not(lgb_parse_post_ops("relu:0:0:x", &a, err, sizeof err));
    cr_assert_not(lgb_parse_post_ops("relu:x", &a, err, sizeof err));
    cr_assert_not(
        lgb_parse_post_ops("relu+relu+relu+relu+relu+relu+relu+relu+relu", &a, err, sizeof err));
    cr_assert(strstr(err, "at most"), "%s", err);
}

Test(parse, masks_and_values) {
    int m;
    cr_assert(lgb_mask_resolve(LGB_MASK_ALL, 4, &m) && m == 15);
    cr_assert(lgb_mask_resolve(2, 4, &m) && m == 2);
    cr_assert_not(lgb_mask_resolve(8, 3, &m));
    cr_assert_not(lgb_mask_resolve(13, 3, &m));
    cr_assert_float_eq(lgb_scale_value(2.0f, 0), 2.0f, 0);
    cr_assert_float_eq(lgb_scale_value(2.0f, 3), 0.5f, 0);
    cr_assert_float_eq(lgb_scale_value(2.0f, 11), 0.5f, 0);
    cr_assert_eq(lgb_zp_value(3.0f, 0), 3);
    cr_assert_eq(lgb_zp_value(-2.0f, 5), 0);
}

Test(parse, meta_tags_trimmed_to_rank) {
    const struct {
        const char *tag;
        int nd;
        const char *want;
    } t[] = {{"abx", 3, "abx"},        {"abx", 1, "a"},
             {"abx", 2, "ab"},         {"axb", 1, "a"},
             {"aBx16b", 1, "a"},       {"aBx16b", 2, "aB16b"},
             {"ABx16a16b", 1, "A16a"}, {"aBCx16c16b", 2, "aB16b"},
             {"nchw", 2, "nchw"},      {"x", 1, "x"},
             {"any", 1, "any"},        {"abcd", 2, "abcd"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char out[64];
        lgb_tag_for_rank(t[i].tag, t[i].nd, out, sizeof out);
        cr_assert_str_eq(out, t[i].want, "%s on %dD", t[i].tag, t[i].nd);
    }
}

Test(parse, named_dims_and_unimplemented_values) {
    int nd;
    int64_t d[LG_MAX_NDIMS];
    cr_assert(lgb_parse_dims("1x96x28x28_n\"net:layer\"", &nd, d) && nd == 4 && d[3] == 28);
    cr_assert_not(lgb_parse_dims("1x96_x", &nd, d));
    cr_assert(lgb_dt_out_of_scope("f64") && lgb_dt_out_of_scope("f8_e5m2"));
    cr_assert_not(lgb_dt_out_of_scope("f33"));
    lgb_attr_spec a;
    char err[200];
    /* benchdnn's binary post-ops: ALG:DT[:MASK_INPUT[:TAG]]. */
    cr_assert(lgb_parse_post_ops("add:f32+mul:s8:per_oc+ge:bf16:13:acdb+div:f32:per_mb_spatial", &a,
                                 err, sizeof err),
              "%s", err);
    cr_assert_eq(a.npost, 4);
    cr_assert(a.post[0].kind == LGB_POST_BINARY && a.post[0].balg == LG_BINARY_ADD &&
              a.post[0].dt == LG_F32 && a.post[0].mask == 0 && !strcmp(a.post[0].tag, "any"));
    cr_assert(a.post[1].balg == LG_BINARY_MUL && a.post[1].dt == LG_S8 && a.post[1].mask == 2);
    cr_assert(a.post[2].balg == LG_BINARY_GE && a.post[2].mask == 13 &&
              !strcmp(a.post[2].tag, "acdb"));
    int m = 0;
    cr_assert(lgb_mask_resolve(a.post[3].mask, 4, &m) && m == 13);
    cr_assert_not(lgb_mask_resolve(a.post[3].mask, 2, &m));
    cr_assert_not(lgb_parse_post_ops("add", &a, err, sizeof err));
    cr_assert(strstr(err, "data type"), "%s", err);
    cr_assert_not(lgb_parse_post_ops("add:f32:per_bogus", &a, err, sizeof err));
    cr_assert(strstr(err, "policy"), "%s", err);
    cr_assert_not(lgb_parse_post_ops("add:f64", &a, err, sizeof err));
    cr_assert(!strncmp(err, LGB_UNIMPL_MARK, strlen(LGB_UNIMPL_MARK)), "%s", err);
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_scales("src:common:0.25+src1:common:0.5", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].set && a.src1_scale.set && a.src1_scale.value == 0.5f);
    cr_assert_not(lgb_parse_post_ops("addd:f32", &a, err, sizeof err));
    cr_assert(strstr(err, "unknown post-op"), "%s", err);
    lg_binary_alg b;
    cr_assert(lgb_parse_binary_alg("GE", &b) && b == LG_BINARY_GE);
    cr_assert(lgb_parse_binary_alg("binary_ne", &b) && b == LG_BINARY_NE);
}

Test(parse, quant_data_types) {
    lgb_attr_spec a;
    char err[200];
    memset(&a, 0, sizeof a);
    cr_assert(lgb_parse_scales("src:per_tensor:f32", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].set && a.scales[0].mask == LGB_MASK_ALL);
    cr_assert(lgb_parse_zero_points("dst:common:s32", &a, err, sizeof err), "%s", err);
    cr_assert(a.zps[1].set && a.zps[1].value == 1.0f);
    /* Typed and grouped scales parse (the reorder takes them; other drivers
     * skip the problem when the kernel refuses them). */
    cr_assert(lgb_parse_scales("src:per_tensor:bf16", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].set && a.scales[0].dt == LG_BF16 && a.scales[0].gndims == 0);
    cr_assert(lgb_parse_scales("src:per_tensor:f32:8x1", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].dt == LG_F32 && a.scales[0].gndims == 2 && a.scales[0].groups[0] == 8 &&
              a.scales[0].groups[1] == 1);
    cr_assert(lgb_parse_scales("src:common:f8_e5m2", &a, err, sizeof err), "%s", err);
    cr_assert(a.scales[0].dt == LG_F8_E5M2);
    cr_assert_not(lgb_parse_scales("src:common:1:2", &a, err, sizeof err));
}

Test(parse, whole_integers_in_range) {
    long long v = -7;
    cr_assert(lgb_parse_int("0", 0, 10, &v) && v == 0);
    cr_assert(lgb_parse_int("10", 0, 10, &v) && v == 10);
    cr_assert(lgb_parse_int("-3", -5, 0, &v) && v == -3);
    cr_assert(lgb_parse_int("9223372036854775807", 0, INT64_MAX, &v) && v == INT64_MAX);
    const char *bad[] = {"", "4x", "x4", "1.5", " ", "11", "-1", "9223372036854775808", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 42;
        cr_assert_not(lgb_parse_int(bad[i], 0, i == 3 ? INT64_MAX : 10, &v), "'%s'", bad[i]);
        cr_assert_eq(v, 42, "'%s' changed the value", bad[i]);
    }
}
