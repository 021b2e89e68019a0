/* lg_md_submemory, lg_md_permute_axes and lg_md_reshape over seeded random
 * shapes in every layout family (plain, channels-last, blocked with padding,
 * strided). The truth is lg_md_offset of the input md: a view's element idx
 * is the parent's idx + offsets, a permuted md's element perm(idx) is the
 * input's idx, a reshaped md's k-th element (row-major) is the input's k-th.
 * Bad input gives the documented status and a message naming the call. */
#include "memory/md.h"
#include "test_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

enum { FAM_PLAIN, FAM_CLAST, FAM_BLOCKED, FAM_STRIDED, FAM_COUNT };
static const char *const fam_name[] = {"plain", "channels-last", "blocked", "strided"};

/* A random md of family f with nd (2..5) dims, some of them 1 (size-1
 * dims are where reshape has choices) and channels (dim 1) not a multiple
 * of the block. */
static void random_md(lg_rng *r, int f, int nd, lg_md *md) {
    int64_t dims[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) dims[d] = lg_rng_int(r, 0, 4) == 0 ? 1 : lg_rng_int(r, 2, 7);
    if (f == FAM_BLOCKED) dims[1] = lg_rng_int(r, 2, 40);
    char tag[32];
    int n = 0;
    switch (f) {
    case FAM_PLAIN:
        for (int d = 0; d < nd; d++) tag[n++] = (char)('a' + d);
        tag[n] = 0;
        break;
    case FAM_CLAST:
        tag[n++] = 'a';
        for (int d = 2; d < nd; d++) tag[n++] = (char)('a' + d);
        tag[n++] = 'b';
        tag[n] = 0;
        break;
    case FAM_BLOCKED:
        tag[n++] = 'a';
        tag[n++] = 'B';
        for (int d = 2; d < nd; d++) tag[n++] = (char)('a' + d);
        snprintf(tag + n, sizeof tag - (size_t)n, "%db", lg_rng_int(r, 0, 1) ? 8 : 16);
        break;
    default: {
        /* Row-major with a gap after every dim of a random subset. */
        int64_t st[LG_MAX_NDIMS], s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            st[d] = s;
            s *= dims[d] + (lg_rng_int(r, 0, 1) ? lg_rng_int(r, 1, 3) : 0);
        }
        cr_assert_eq(lg_md_init_strides(md, nd, dims, LG_F32, st), LG_OK, "%s", lg_last_error());
        return;
    }
    }
    cr_assert_eq(lg_md_init_tag(md, nd, dims, LG_F32, tag), LG_OK, "%s: %s", tag, lg_last_error());
}

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static void unravel(int64_t k, const int64_t *dims, int nd, int64_t *idx) {
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = k % dims[d];
        k /= dims[d];
    }
}

/* The largest element offset of md plus one, by walking every element. */
static int64_t walked_end(const lg_md *md) {
    int64_t idx[LG_MAX_NDIMS] = {0}, end = 0;
    if (lg__md_nelems(md) == 0) return 0;
    do {
        int64_t o = lg_md_offset(md, idx) + 1;
        if (o > end) end = o;
    } while (next_index(idx, md->dims, md->ndims));
    return end;
}

static void expect_error(lg_status got, lg_status want, const char *fn, const char *needle) {
    cr_assert_eq(got, want, "%s: status %s, expected %s (%s)", fn, lg_status_str(got),
                 lg_status_str(want), lg_last_error());
    cr_assert(strstr(lg_last_error(), fn) != NULL, "message '%s' lacks '%s'", lg_last_error(), fn);
    cr_assert(strstr(lg_last_error(), needle) != NULL, "message '%s' lacks '%s'", lg_last_error(),
              needle);
}

/* ---------------------------------------------------------------- views */

Test(md_ops, submemory_random) {
    lg_rng r = {21};
    for (int it = 0; it < 400; it++) {
        int f = it % FAM_COUNT, nd = (int)lg_rng_int(&r, 2, 5);
        lg_md parent, view;
        random_md(&r, f, nd, &parent);
        int64_t blk[LG_MAX_NDIMS], dims[LG_MAX_NDIMS], off[LG_MAX_NDIMS];
        lg__md_dim_blocks(&parent, blk);
        for (int d = 0; d < nd; d++) {
            int64_t nb = (parent.dims[d] + blk[d] - 1) / blk[d]; /* blocks, the last partial */
            int64_t b0 = lg_rng_int(&r, 0, nb - 1);
            bool to_end = blk[d] == 1 ? false : lg_rng_int(&r, 0, 1) == 1;
            off[d] = b0 * blk[d];
            if (blk[d] == 1) {
                off[d] = lg_rng_int(&r, 0, parent.dims[d] - 1);
                dims[d] = lg_rng_int(&r, 1, parent.dims[d] - off[d]);
            } else if (to_end || (b0 + 1) * blk[d] > parent.dims[d]) {
                dims[d] = parent.dims[d] - off[d];
            } else {
                int64_t whole = parent.dims[d] / blk[d] - b0; /* whole blocks left */
                dims[d] = lg_rng_int(&r, 1, whole) * blk[d];
            }
        }
        cr_assert_eq(lg_md_submemory(&parent, dims, off, &view), LG_OK, "%s: %s", fam_name[f],
                     lg_last_error());
        cr_assert_eq(view.ndims, nd);
        cr_assert(lg_md_size(&view) <= lg_md_size(&parent), "%s: view size %zu > parent %zu",
                  fam_name[f], lg_md_size(&view), lg_md_size(&parent));
        cr_assert((int64_t)lg_md_size(&view) >= walked_end(&view) * 4,
                  "%s: size %zu, last element ends at byte %lld", fam_name[f], lg_md_size(&view),
                  (long long)walked_end(&view) * 4);
        int64_t idx[LG_MAX_NDIMS] = {0}, pidx[LG_MAX_NDIMS];
        do {
            for (int d = 0; d < nd; d++) pidx[d] = idx[d] + off[d];
            cr_assert_eq(lg_md_offset(&view, idx), lg_md_offset(&parent, pidx), "%s it %d",
                         fam_name[f], it);
        } while (next_index(idx, dims, nd));
        /* Nested: shrink every unblocked dim by one from the front where possible. */
        int64_t d2[LG_MAX_NDIMS], o2[LG_MAX_NDIMS];
        for (int d = 0; d < nd; d++) {
            o2[d] = blk[d] == 1 && dims[d] > 1 ? 1 : 0;
            d2[d] = dims[d] - o2[d];
        }
        lg_md inner;
        cr_assert_eq(lg_md_submemory(&view, d2, o2, &inner), LG_OK, "%s", lg_last_error());
        memset(idx, 0, sizeof idx);
        do {
            for (int d = 0; d < nd; d++) pidx[d] = idx[d] + o2[d] + off[d];
            cr_assert_eq(lg_md_offset(&inner, idx), lg_md_offset(&parent, pidx));
        } while (next_index(idx, d2, nd));
    }
}

Test(md_ops, submemory_blocked_padding) {
    /* nChw16c with 40 channels (padded to 48): channels 32..39 own the padding. */
    lg_md p, v;
    int64_t dims[4] = {2, 40, 3, 3};
    cr_assert_eq(lg_md_init_tag(&p, 4, dims, LG_F32, "nChw16c"), LG_OK);
    int64_t vd[4] = {2, 8, 3, 3}, vo[4] = {0, 32, 0, 0};
    cr_assert_eq(lg_md_submemory(&p, vd, vo, &v), LG_OK, "%s", lg_last_error());
    cr_assert_eq(v.padded_dims[1], 16);
    cr_assert_eq(v.offset0, 2 * 9 * 16);
    cr_assert(lg__md_has_padding(&v));
    /* channels 16..31: whole blocks, no padding */
    int64_t vd2[4] = {1, 16, 2, 3}, vo2[4] = {1, 16, 1, 0};
    cr_assert_eq(lg_md_submemory(&p, vd2, vo2, &v), LG_OK);
    cr_assert_eq(v.padded_dims[1], 16);
    cr_assert_eq(v.offset0, 1 * 3 * 9 * 16 + 1 * 9 * 16 + 1 * 3 * 16);
    cr_assert(!lg__md_has_padding(&v));
    /* out may be parent */
    lg_md q = p;
    cr_assert_eq(lg_md_submemory(&q, vd2, vo2, &q), LG_OK);
    cr_assert(lg_md_equal(&q, &v));
}

Test(md_ops, submemory_errors) {
    lg_md p, v, any;
    int64_t dims[4] = {2, 40, 3, 3};
    cr_assert_eq(lg_md_init_tag(&p, 4, dims, LG_F32, "nChw16c"), LG_OK);
    cr_assert_eq(lg_md_init_tag(&any, 4, dims, LG_F32, "any"), LG_OK);
    const char *fn = "lg_md_submemory";
    int64_t vd[4] = {2, 16, 3, 3}, vo[4] = {0, 8, 0, 0};
    memset(&v, 0x5a, sizeof v);
    lg_md before = v;
    expect_error(lg_md_submemory(&p, vd, vo, &v), LG_INVALID_ARGUMENT, fn, "not a multiple");
    cr_assert(memcmp(&v, &before, sizeof v) == 0, "out written on failure");
    int64_t vd2[4] = {2, 8, 3, 3}, vo2[4] = {0, 16, 0, 0};
    expect_error(lg_md_submemory(&p, vd2, vo2, &v), LG_INVALID_ARGUMENT, fn, "does not reach");
    int64_t vd3[4] = {2, 16, 3, 3}, vo3[4] = {0, 32, 0, 0};
    expect_error(lg_md_submemory(&p, vd3, vo3, &v), LG_INVALID_ARGUMENT, fn, "exceeds");
    int64_t vd4[4] = {2, 16, -1, 3}, vo4[4] = {0, 0, 0, 0};
    expect_error(lg_md_submemory(&p, vd4, vo4, &v), LG_INVALID_ARGUMENT, fn, "dims[2]");
    int64_t vo5[4] = {0, 0, 0, -2};
    expect_error(lg_md_submemory(&p, vd, vo5, &v), LG_INVALID_ARGUMENT, fn, "offsets[3]");
    expect_error(lg_md_submemory(&any, vd, vo4, &v), LG_INVALID_ARGUMENT, fn, "'any'");
    expect_error(lg_md_submemory(NULL, vd, vo4, &v), LG_INVALID_ARGUMENT, fn, "parent");
    expect_error(lg_md_submemory(&p, NULL, vo4, &v), LG_INVALID_ARGUMENT, fn, "dims");
    expect_error(lg_md_submemory(&p, vd, NULL, &v), LG_INVALID_ARGUMENT, fn, "offsets");
    expect_error(lg_md_submemory(&p, vd, vo4, NULL), LG_INVALID_ARGUMENT, fn, "out");
    lg_md junk;
    memset(&junk, 0, sizeof junk);
    expect_error(lg_md_submemory(&junk, vd, vo4, &v), LG_INVALID_ARGUMENT, fn, "initialised");
}

/* ---------------------------------------------------------- permutation */

static void random_perm(lg_rng *r, int n, int *perm) {
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int k = (int)lg_rng_int(r, 0, i), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
}

Test(md_ops, permute_random) {
    lg_rng r = {2121};
    for (int it = 0; it < 400; it++) {
        int f = it % FAM_COUNT, nd = (int)lg_rng_int(&r, 2, 5), perm[LG_MAX_NDIMS];
        lg_md md, out, back;
        random_md(&r, f, nd, &md);
        if (it % 7 == 0) { /* sometimes a view */
            int64_t vd[LG_MAX_NDIMS], vo[LG_MAX_NDIMS] = {0};
            for (int d = 0; d < nd; d++) vd[d] = md.dims[d];
            vo[0] = md.dims[0] > 1 ? 1 : 0;
            vd[0] -= vo[0];
            cr_assert_eq(lg_md_submemory(&md, vd, vo, &md), LG_OK);
        }
        random_perm(&r, nd, perm);
        cr_assert_eq(lg_md_permute_axes(&md, perm, &out), LG_OK, "%s", lg_last_error());
        cr_assert_eq(lg_md_size(&out), lg_md_size(&md));
        int64_t idx[LG_MAX_NDIMS] = {0}, pidx[LG_MAX_NDIMS];
        do {
            for (int d = 0; d < nd; d++) pidx[perm[d]] = idx[d];
            cr_assert_eq(lg_md_offset(&out, pidx), lg_md_offset(&md, idx), "%s it %d", fam_name[f],
                         it);
        } while (next_index(idx, md.dims, nd));
        /* The inverse permutation gives the md back. */
        int inv[LG_MAX_NDIMS];
        for (int d = 0; d < nd; d++) inv[perm[d]] = d;
        cr_assert_eq(lg_md_permute_axes(&out, inv, &back), LG_OK);
        cr_assert(lg_md_equal(&back, &md), "%s: permute and back differ", fam_name[f]);
    }
}

Test(md_ops, permute_tags_and_errors) {
    lg_md md, out;
    int64_t dims[4] = {2, 3, 4, 5};
    char tag[64];
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nchw"), LG_OK);
    int perm[4] = {0, 3, 1, 2};
    cr_assert_eq(lg_md_permute_axes(&md, perm, &out), LG_OK);
    cr_assert_eq(out.dims[1], 4);
    cr_assert_eq(out.dims[3], 3);
    cr_assert_eq(lg_md_tag(&out, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "adbc");
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nChw8c"), LG_OK);
    int swap[4] = {1, 0, 2, 3};
    cr_assert_eq(lg_md_permute_axes(&md, swap, &out), LG_OK);
    cr_assert_eq(lg_md_tag(&out, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "bAcd8a");
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_permute_axes(&md, perm, &md), LG_OK);
    cr_assert(lg_md_is_any(&md));
    cr_assert_eq(md.dims[3], 3);

    const char *fn = "lg_md_permute_axes";
    int bad1[4] = {0, 1, 2, 4}, bad2[4] = {0, 1, 1, 2}, bad3[4] = {-1, 0, 1, 2};
    expect_error(lg_md_permute_axes(&md, bad1, &out), LG_INVALID_ARGUMENT, fn, "perm[3] = 4");
    expect_error(lg_md_permute_axes(&md, bad2, &out), LG_INVALID_ARGUMENT, fn, "twice");
    expect_error(lg_md_permute_axes(&md, bad3, &out), LG_INVALID_ARGUMENT, fn, "perm[0]");
    expect_error(lg_md_permute_axes(&md, NULL, &out), LG_INVALID_ARGUMENT, fn, "perm");
    expect_error(lg_md_permute_axes(NULL, perm, &out), LG_INVALID_ARGUMENT, fn, "md");
    expect_error(lg_md_permute_axes(&md, perm, NULL), LG_INVALID_ARGUMENT, fn, "out");
}

/* -------------------------------------------------------------- reshape */

/* Check that out is md reshaped: the k-th row-major element of each has
 * the same offset. */
static void check_reshape(const lg_md *md, const lg_md *out, const char *what) {
    cr_assert_eq(lg__md_nelems(md), lg__md_nelems(out), "%s", what);
    int64_t a[LG_MAX_NDIMS], b[LG_MAX_NDIMS];
    for (int64_t k = 0; k < lg__md_nelems(md); k++) {
        unravel(k, md->dims, md->ndims, a);
        unravel(k, out->dims, out->ndims, b);
        cr_assert_eq(lg_md_offset(out, b), lg_md_offset(md, a), "%s: element %lld", what,
                     (long long)k);
    }
    cr_assert(lg_md_size(out) <= lg_md_size(md), "%s: size grew", what);
}

/* A reshape that keeps the blocked dim (1) and the channels-last order
 * possible: merges and splits the dims after channels for plain, those
 * before it for every family, and adds / drops size-1 dims. Returns ndims. */
static int random_reshape(lg_rng *r, const lg_md *md, int f, int64_t *dims) {
    int n = 0, nd = md->ndims;
    int64_t lead = md->dims[0];
    /* dim 0 split into two factors when possible */
    if (lead % 2 == 0 && lead > 2 && lg_rng_int(r, 0, 1)) {
        dims[n++] = 2;
        dims[n++] = lead / 2;
    } else {
        dims[n++] = lead;
    }
    if (lg_rng_int(r, 0, 1)) dims[n++] = 1;
    if (f == FAM_CLAST) { /* spatial dims merge behind C in memory, C stays */
        dims[n++] = md->dims[1];
        for (int d = 2; d < nd; d++) dims[n++] = md->dims[d];
        return n;
    }
    dims[n++] = md->dims[1];
    int64_t sp = 1;
    for (int d = 2; d < nd; d++) sp *= md->dims[d];
    if (f == FAM_STRIDED) { /* gaps: keep the spatial dims */
        for (int d = 2; d < nd; d++) dims[n++] = md->dims[d];
    } else {
        dims[n++] = sp; /* merge every spatial dim */
    }
    if (lg_rng_int(r, 0, 1)) dims[n++] = 1;
    return n;
}

Test(md_ops, reshape_random) {
    lg_rng r = {4242};
    for (int it = 0; it < 400; it++) {
        int f = it % FAM_COUNT, nd = (int)lg_rng_int(&r, 2, 5);
        lg_md md, out, back;
        random_md(&r, f, nd, &md);
        int64_t dims[LG_MAX_NDIMS];
        int n = random_reshape(&r, &md, f, dims);
        char what[64];
        snprintf(what, sizeof what, "%s it %d", fam_name[f], it);
        cr_assert_eq(lg_md_reshape(&md, n, dims, &out), LG_OK, "%s: %s", what, lg_last_error());
        check_reshape(&md, &out, what);
        /* and back to the original shape */
        cr_assert_eq(lg_md_reshape(&out, nd, md.dims, &back), LG_OK, "%s back: %s", what,
                     lg_last_error());
        check_reshape(&md, &back, what);
        cr_assert(lg_md_equal(&back, &md), "%s: reshape and back differ", what);
    }
}

Test(md_ops, reshape_plain_any_shape) {
    /* A dense row-major md reshapes to any factorisation. */
    lg_rng r = {77};
    int64_t dims[4] = {4, 6, 10, 3}, total = 720;
    lg_md md, out;
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_S8, "abcd"), LG_OK);
    for (int it = 0; it < 100; it++) {
        int64_t nd[LG_MAX_NDIMS], left = total;
        int n = 0;
        while (left > 1 && n < LG_MAX_NDIMS - 1) {
            int64_t f = lg_rng_int(&r, 1, 9);
            if (left % f) continue;
            nd[n++] = f;
            left /= f;
        }
        nd[n++] = left;
        cr_assert_eq(lg_md_reshape(&md, n, nd, &out), LG_OK, "%s", lg_last_error());
        check_reshape(&md, &out, "plain");
        char tag[64];
        cr_assert_eq(lg_md_tag(&out, tag, sizeof tag), LG_OK);
        for (int d = 0; d < n; d++) cr_assert_eq(tag[d], 'a' + d, "tag %s", tag);
    }
}

Test(md_ops, reshape_blocked_and_views) {
    lg_md md, out;
    char tag[64];
    int64_t dims[4] = {8, 32, 7, 7}, to[3] = {8, 32, 49};
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nChw8c"), LG_OK);
    cr_assert_eq(lg_md_reshape(&md, 3, to, &out), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_tag(&out, tag, sizeof tag), LG_OK);
    cr_assert_str_eq(tag, "aBc8b");
    check_reshape(&md, &out, "nChw8c");
    /* a blocked dim of size 1 keeps its block and padding */
    int64_t d1[4] = {2, 1, 3, 3}, t1[5] = {2, 1, 1, 9, 1};
    cr_assert_eq(lg_md_init_tag(&md, 4, d1, LG_F32, "nChw16c"), LG_OK);
    cr_assert_eq(lg_md_reshape(&md, 5, t1, &out), LG_OK, "%s", lg_last_error());
    check_reshape(&md, &out, "C=1");
    cr_assert_eq(lg_md_size(&out), lg_md_size(&md));
    /* a view of rows 1..2 of a 4x6 matrix reshapes to 12 */
    int64_t m[2] = {4, 6}, vd[2] = {2, 6}, vo[2] = {1, 0}, flat[1] = {12};
    cr_assert_eq(lg_md_init_tag(&md, 2, m, LG_F32, "ab"), LG_OK);
    cr_assert_eq(lg_md_submemory(&md, vd, vo, &md), LG_OK);
    cr_assert_eq(lg_md_reshape(&md, 1, flat, &out), LG_OK, "%s", lg_last_error());
    cr_assert_eq(out.offset0, 6);
    check_reshape(&md, &out, "view");
    /* empty */
    int64_t e[3] = {2, 0, 3}, e2[2] = {0, 5};
    cr_assert_eq(lg_md_init_tag(&md, 3, e, LG_F32, "acb"), LG_OK);
    cr_assert_eq(lg_md_reshape(&md, 2, e2, &out), LG_OK, "%s", lg_last_error());
    cr_assert_eq(lg_md_size(&out), 0);
    /* any */
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "any"), LG_OK);
    cr_assert_eq(lg_md_reshape(&md, 3, to, &out), LG_OK);
    cr_assert(lg_md_is_any(&out));
    cr_assert_eq(out.dims[2], 49);
}

Test(md_ops, reshape_errors) {
    const char *fn = "lg_md_reshape";
    lg_md md, out;
    int64_t dims[4] = {2, 32, 4, 5};
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c"), LG_OK);
    int64_t merge_c[3] = {64, 4, 5};
    expect_error(lg_md_reshape(&md, 3, merge_c, &out), LG_UNIMPLEMENTED, fn, "dim 1 is blocked");
    int64_t split_c[5] = {2, 2, 16, 4, 5};
    expect_error(lg_md_reshape(&md, 5, split_c, &out), LG_UNIMPLEMENTED, fn, "blocked");
    cr_assert_eq(lg_md_init_tag(&md, 4, dims, LG_F32, "nhwc"), LG_OK);
    int64_t merge_ch[3] = {2, 128, 5};
    expect_error(lg_md_reshape(&md, 3, merge_ch, &out), LG_UNIMPLEMENTED, fn, "not contiguous");
    int64_t st[2] = {10, 1}, m[2] = {3, 4}, flat[1] = {12};
    cr_assert_eq(lg_md_init_strides(&md, 2, m, LG_F32, st), LG_OK);
    expect_error(lg_md_reshape(&md, 1, flat, &out), LG_UNIMPLEMENTED, fn, "copy");
    int64_t wrong[2] = {5, 3};
    expect_error(lg_md_reshape(&md, 2, wrong, &out), LG_INVALID_ARGUMENT, fn, "elements");
    int64_t neg[2] = {-3, -4};
    expect_error(lg_md_reshape(&md, 2, neg, &out), LG_INVALID_ARGUMENT, fn, "negative");
    expect_error(lg_md_reshape(&md, 0, flat, &out), LG_INVALID_ARGUMENT, fn, "ndims 0");
    expect_error(lg_md_reshape(&md, 13, flat, &out), LG_INVALID_ARGUMENT, fn, "ndims 13");
    expect_error(lg_md_reshape(&md, 1, NULL, &out), LG_INVALID_ARGUMENT, fn, "dims");
    expect_error(lg_md_reshape(NULL, 1, flat, &out), LG_INVALID_ARGUMENT, fn, "md");
    expect_error(lg_md_reshape(&md, 1, flat, NULL), LG_INVALID_ARGUMENT, fn, "out");
    int64_t d1[2] = {2, 1}, t1[1] = {2};
    cr_assert_eq(lg_md_init_tag(&md, 2, d1, LG_F32, "aB8b"), LG_OK);
    expect_error(lg_md_reshape(&md, 1, t1, &out), LG_UNIMPLEMENTED, fn, "blocked dim 1");
}
