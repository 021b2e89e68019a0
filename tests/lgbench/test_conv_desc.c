/* lgbench's conv problem parser against hand-computed descriptors:
 * benchdnn's defaults and implicit rules (square/cubic forms, computed
 * outputs and paddings, right padding), short printing and round trips,
 * lgraph's shapes and params, the operation count, and every error. */
#include "conv_desc.h"

#include <criterion/criterion.h>
#include <string.h>

static lgb_conv_desc parse_ok(const char *s) {
    lgb_conv_desc d;
    char err[200] = "";
    cr_assert(lgb_conv_desc_parse(s, &d, err, sizeof err), "%s: %s", s, err);
    return d;
}

static void parse_bad(const char *s, const char *why) {
    lgb_conv_desc d;
    char err[200] = "";
    cr_assert_not(lgb_conv_desc_parse(s, &d, err, sizeof err), "%s parsed", s);
    cr_assert(strstr(err, why), "%s: message '%s' lacks '%s'", s, err, why);
}

/* Check one spatial dim: i, o, k, s, p, p_r, d. */
static void dim_is(const lgb_conv_desc *d, int x, int64_t i, int64_t o, int64_t k, int64_t s,
                   int64_t p, int64_t pr, int64_t dl) {
    cr_assert_eq(d->i[x], i, "dim %d: i %lld", x, (long long)d->i[x]);
    cr_assert_eq(d->o[x], o, "dim %d: o %lld", x, (long long)d->o[x]);
    cr_assert_eq(d->k[x], k, "dim %d: k %lld", x, (long long)d->k[x]);
    cr_assert_eq(d->s[x], s, "dim %d: s %lld", x, (long long)d->s[x]);
    cr_assert_eq(d->p[x], p, "dim %d: p %lld", x, (long long)d->p[x]);
    cr_assert_eq(d->p_r[x], pr, "dim %d: p_r %lld", x, (long long)d->p_r[x]);
    cr_assert_eq(d->d[x], dl, "dim %d: d %lld", x, (long long)d->d[x]);
}

static void str_is(const lgb_conv_desc *d, const char *want) {
    char buf[256];
    lgb_conv_desc_str(d, buf, sizeof buf);
    cr_assert_str_eq(buf, want);
    lgb_conv_desc e = parse_ok(buf);
    cr_assert(memcmp(&e, d, sizeof e) == 0, "%s does not round-trip", buf);
}

Test(conv_desc, square_resnet_3x3) {
    lgb_conv_desc d = parse_ok("mb8ic64ih56oc64oh56kh3ph1");
    cr_assert_eq(d.ndims, 4);
    cr_assert_eq(d.mb, 8);
    cr_assert_eq(d.g, 1);
    cr_assert_not(d.has_groups);
    cr_assert_eq(d.ic, 64);
    cr_assert_eq(d.oc, 64);
    dim_is(&d, 0, 1, 1, 1, 1, 0, 0, 0);
    dim_is(&d, 1, 56, 56, 3, 1, 1, 1, 0);
    dim_is(&d, 2, 56, 56, 3, 1, 1, 1, 0); /* w copied from h */
    str_is(&d, "mb8ic64ih56oc64oh56kh3ph1");
    lg_conv_params p;
    int64_t src[5], wei[6], dst[5];
    int wnd;
    char err[100];
    cr_assert(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    int64_t ws[4] = {8, 64, 56, 56}, ww[4] = {64, 64, 3, 3};
    cr_assert_arr_eq(src, ws, sizeof ws);
    cr_assert_arr_eq(dst, ws, sizeof ws);
    cr_assert_eq(wnd, 4);
    cr_assert_arr_eq(wei, ww, sizeof ww);
    cr_assert_eq(p.groups, 1);
    for (int j = 0; j < 2; j++) {
        cr_assert_eq(p.strides[j], 1);
        cr_assert_eq(p.dilates[j], 0);
        cr_assert_eq(p.pad_l[j], 1);
        cr_assert_eq(p.pad_r[j], 1);
    }
}

Test(conv_desc, groups_and_computed_padding) {
    /* ShuffleNet's grouped 1x1: output given, padding computed (0). */
    lgb_conv_desc d = parse_ok("g3mb1ic240ih28oc60oh28kh1");
    cr_assert(d.has_groups);
    cr_assert_eq(d.g, 3);
    dim_is(&d, 1, 28, 28, 1, 1, 0, 0, 0);
    str_is(&d, "g3mb1ic240ih28oc60oh28kh1ph0");
    lg_conv_params p;
    int64_t src[5], wei[6], dst[5];
    int wnd;
    char err[100];
    cr_assert(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    int64_t ww[5] = {3, 20, 80, 1, 1};
    cr_assert_eq(wnd, 5);
    cr_assert_arr_eq(wei, ww, sizeof ww);
    cr_assert_eq(p.groups, 3);
    /* g1 is printed back (it was given) but has no G dim in lgraph. */
    d = parse_ok("g1mb1_ic3ih224iw224_oc64oh112ow112_kh7kw7_sh2sw2_ph3pw3_n\"resnet18_0\"");
    cr_assert(d.has_groups);
    cr_assert_str_eq(d.name, "resnet18_0");
    str_is(&d, "g1mb1ic3ih224oc64oh112kh7sh2ph3nresnet18_0");
    cr_assert(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    cr_assert_eq(wnd, 4);
    cr_assert_eq(wei[0], 64);
}

Test(conv_desc, stem_right_padding) {
    lgb_conv_desc d = parse_ok("mb1ic3ih224oc64oh112kh7sh2ph3");
    /* p_r = (112 - 1) * 2 - 224 + 7 - 3 = 2 */
    dim_is(&d, 1, 224, 112, 7, 2, 3, 2, 0);
    /* Output given, padding computed: ((112 - 1) * 2 - 224 + 7) / 2 = 2,
     * and p_r = 5 - 2 = 3. */
    d = parse_ok("ic3ih224oc64oh112kh7sh2");
    cr_assert_eq(d.mb, 2);
    dim_is(&d, 2, 224, 112, 7, 2, 2, 3, 0);
    str_is(&d, "ic3ih224oc64oh112kh7sh2ph2");
}

Test(conv_desc, computed_output_and_dilation) {
    lgb_conv_desc d = parse_ok("ic16ih10oc16kh3");
    dim_is(&d, 1, 10, 8, 3, 1, 0, 0, 0);
    /* dilation 1: the kernel spans 5; o = (9 - 5 + 4) / 1 + 1 = 9;
     * p_r = 8 - 9 + 5 - 2 = 2 */
    d = parse_ok("ic8ih9oc8kh3dh1ph2");
    dim_is(&d, 1, 9, 9, 3, 1, 2, 2, 1);
    str_is(&d, "ic8ih9oc8oh9kh3ph2dh1");
}

Test(conv_desc, negative_right_padding) {
    /* o = (5 - 2) / 2 + 1 = 2; p_r = 2 - 5 + 2 = -1: raised to 0 for lgraph,
     * which leaves o = (5 + 0 - 2) / 2 + 1 = 2. */
    lgb_conv_desc d = parse_ok("mb1ic16ih5oc16kh2sh2");
    dim_is(&d, 1, 5, 2, 2, 2, 0, -1, 0);
    lg_conv_params p;
    int64_t src[5], wei[6], dst[5];
    int wnd;
    char err[200];
    cr_assert(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    cr_assert_eq(p.pad_r[0], 0);
    cr_assert_eq(p.pad_r[1], 0);
    /* An explicit output far below what the input gives: p_r = 2 - 10 + 3 = -5. */
    d = parse_ok("ic4ih10oc4oh3kh3ph0");
    cr_assert_eq(d.p_r[1], -5);
    cr_assert_not(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    cr_assert(strstr(err, "right padding -5"), "%s", err);
}

Test(conv_desc, three_d_one_d_rectangular) {
    lgb_conv_desc d = parse_ok("mb1ic4id6oc4od6kd3pd1");
    cr_assert_eq(d.ndims, 5);
    for (int x = 0; x < 3; x++) dim_is(&d, x, 6, 6, 3, 1, 1, 1, 0); /* cubic */
    str_is(&d, "mb1ic4id6oc4od6kd3pd1");
    d = parse_ok("mb1ic4id6ih7iw8oc4kd1kh3kw3ph1pw1");
    cr_assert_eq(d.ndims, 5);
    dim_is(&d, 0, 6, 6, 1, 1, 0, 0, 0);
    dim_is(&d, 1, 7, 7, 3, 1, 1, 1, 0);
    dim_is(&d, 2, 8, 8, 3, 1, 1, 1, 0);
    str_is(&d, "mb1ic4id6ih7iw8oc4od6oh7ow8kd1kh3kw3pd0ph1pw1");

    d = parse_ok("mb1ic4iw10oc4kw3");
    cr_assert_eq(d.ndims, 3);
    dim_is(&d, 0, 1, 1, 1, 1, 0, 0, 0);
    dim_is(&d, 1, 1, 1, 1, 1, 0, 0, 0);
    dim_is(&d, 2, 10, 8, 3, 1, 0, 0, 0);
    str_is(&d, "mb1ic4iw10oc4ow8kw3pw0");
    lg_conv_params p;
    int64_t src[5], wei[6], dst[5];
    int wnd;
    char err[100];
    cr_assert(lgb_conv_desc_lg(&d, &p, src, wei, &wnd, dst, err, sizeof err));
    int64_t ws[3] = {1, 4, 10}, ww[3] = {4, 4, 3}, wd[3] = {1, 4, 8};
    cr_assert_arr_eq(src, ws, sizeof ws);
    cr_assert_arr_eq(wei, ww, sizeof ww);
    cr_assert_arr_eq(dst, wd, sizeof wd);

    d = parse_ok("ic16ih10iw20oc16kh3kw5ph1pw2");
    dim_is(&d, 1, 10, 10, 3, 1, 1, 1, 0);
    dim_is(&d, 2, 20, 20, 5, 1, 2, 2, 0);
    str_is(&d, "ic16ih10iw20oc16oh10ow20kh3kw5ph1pw2");
}

Test(conv_desc, names) {
    lgb_conv_desc d = parse_ok("mb1ic3ih4oc8kh1n\"my:conv 1\"");
    cr_assert_str_eq(d.name, "my:conv 1");
    d = parse_ok("mb1ic3ih4oc8kh1nplain_name");
    cr_assert_str_eq(d.name, "plain_name");
}

Test(conv_desc, flops) {
    /* 3x3 pad 1 on 3x3: per dim the valid (output, tap) pairs are
     * 2 + 3 + 2 = 7, so 49 in 2D, times 2 * mb * oc * ic/g. */
    lgb_conv_desc d = parse_ok("mb1ic1ih3oc1oh3kh3ph1");
    cr_assert_float_eq(lgb_conv_desc_flops(&d), 98.0, 0);
    d = parse_ok("g2mb3ic4ih3oc6oh3kh3ph1");
    cr_assert_float_eq(lgb_conv_desc_flops(&d), 2.0 * 3 * 6 * 2 * 49, 0);
    d = parse_ok("mb8ic64ih56oc64oh56kh1");
    cr_assert_float_eq(lgb_conv_desc_flops(&d), 2.0 * 8 * 64 * 64 * 56 * 56, 0);
}

Test(conv_desc, errors) {
    parse_bad("ic0ih5oc4kh1", "must be positive");
    parse_bad("ic4ih5oc0kh1", "must be positive");
    parse_bad("g0ic4ih5oc4kh1", "must be positive");
    parse_bad("mb2ic4oc4", "no spatial dim");
    parse_bad("ic4ih3oc4kh5", "does not fit");
    parse_bad("g3ic4ih5oc6kh1", "does not divide");
    parse_bad("ic4id5ih5oc4kd1kh1", "needs both h and w");
    parse_bad("ic4ihxoc4kh1", "needs a non-negative number");
    parse_bad("ic4ih5oc4kh1zz3", "unknown entry");
    parse_bad("ic4ih5oc4", "needs ih and kh");
    parse_bad("ic4ih5oc4kh1sh0", "strides must be positive");
    parse_bad("ic4ih-5oc4kh1", "needs a non-negative number");
    parse_bad("ic4ih99999999999999999999oc4kh1", "too large");
}
