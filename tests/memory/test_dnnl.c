/* Cross-check of lgraph's memory descriptors with oneDNN's (built only when
 * oneDNN is found).
 *
 * For every oneDNN format tag (dnnl_a .. dnnl_format_tag_last), named by its
 * generic string from dnnl_fmt_tag2str, lg_md_init_tag and
 * dnnl_memory_desc_init_by_tag must agree on padded dims, outer strides, the
 * inner blocks and the buffer size. Then, by data: a row-major buffer holding
 * 1, 2, 3, ... is reordered by oneDNN into the tag's layout, and every
 * logical element must sit where lg_md_offset says (and every other element
 * of the buffer, the padding, must hold 0). Domain aliases ("nChw16c",
 * "OIhw16i16o", ...) must give the same layout as oneDNN's enum of that name. */
#include "memory/md.h"

#include <criterion/criterion.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DN_OK(call)                                                                                \
    do {                                                                                           \
        dnnl_status_t st_ = (call);                                                                \
        cr_assert_eq(st_, dnnl_success, "%s: %s", #call, dnnl_status2str(st_));                    \
    } while (0)

/* Two sets of dims, all > 1; the leading ones (3, 17, 5, 7) are odd, so a
 * multiple of no block (the trailing 2s are a multiple only of a block of 2).
 * Each set has a largest padded element count checked by data: the main set (about 20000
 * elements at most), and a smaller one with a larger limit so that tags with
 * large blocks on two dims (64 x 64, padded from 3 and 5) and the 12D plain
 * tags are checked by data too. */
static const int64_t dims_main[LG_MAX_NDIMS] = {3, 17, 5, 7, 2, 2, 2, 2, 2, 2, 2, 2};
static const int64_t dims_small[LG_MAX_NDIMS] = {3, 5, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2};
#define DATA_LIMIT_MAIN  20000
#define DATA_LIMIT_SMALL (1 << 18)

/* ndims of a generic tag string: the letters before the first digit, if
 * every character is a generic letter (a..l, A..L) or a digit; else -1. */
static int generic_ndims(const char *s) {
    int n = 0;
    bool digits = false;
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++) {
        bool letter = (*p >= 'a' && *p <= 'l') || (*p >= 'A' && *p <= 'L');
        bool digit = *p >= '0' && *p <= '9';
        if (!letter && !digit) return -1;
        if (digit) digits = true;
        if (letter && !digits) n++;
    }
    return n >= 1 && n <= LG_MAX_NDIMS ? n : -1;
}

/* Structure: padded dims, strides, inner blocks, size. */
static void compare_structure(const lg_md *md, const dnnl_memory_desc_t *dm, const char *what) {
    cr_assert_eq(dm->ndims, md->ndims, "%s: ndims", what);
    cr_assert_eq(dm->format_kind, dnnl_blocked, "%s: oneDNN format kind", what);
    cr_assert_eq(md->format_kind, LG_FMT_BLOCKED, "%s: lgraph format kind", what);
    cr_assert_eq(dm->offset0, md->offset0, "%s: offset0", what);
    const dnnl_blocking_desc_t *b = &dm->format_desc.blocking;
    for (int d = 0; d < md->ndims; d++) {
        cr_assert_eq(dm->dims[d], md->dims[d], "%s: dims[%d]", what, d);
        cr_assert_eq(dm->padded_dims[d], md->padded_dims[d], "%s: padded_dims[%d]: %lld vs %lld",
                     what, d, (long long)dm->padded_dims[d], (long long)md->padded_dims[d]);
        cr_assert_eq(b->strides[d], md->blocking.strides[d], "%s: strides[%d]: %lld vs %lld", what,
                     d, (long long)b->strides[d], (long long)md->blocking.strides[d]);
    }
    cr_assert_eq(b->inner_nblks, md->blocking.inner_nblks, "%s: inner_nblks %d vs %d", what,
                 b->inner_nblks, md->blocking.inner_nblks);
    for (int i = 0; i < b->inner_nblks; i++) {
        cr_assert_eq(b->inner_blks[i], md->blocking.inner_blks[i], "%s: inner_blks[%d]", what, i);
        cr_assert_eq(b->inner_idxs[i], md->blocking.inner_idxs[i], "%s: inner_idxs[%d]", what, i);
    }
    cr_assert_eq(dnnl_memory_desc_get_size(dm), lg_md_size(md), "%s: size %zu vs %zu", what,
                 dnnl_memory_desc_get_size(dm), lg_md_size(md));
}

typedef struct ctx {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
} ctx;

static void ctx_init(ctx *c) {
    DN_OK(dnnl_engine_create(&c->engine, dnnl_cpu, 0));
    DN_OK(dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags));
}

static void ctx_fini(ctx *c) {
    DN_OK(dnnl_stream_destroy(c->stream));
    DN_OK(dnnl_engine_destroy(c->engine));
}

/* By data: reorder 1, 2, 3, ... from row-major into dm with oneDNN, then find
 * each logical element at lg_md_offset; everything else must be 0. */
static void compare_data(ctx *c, const lg_md *md, const dnnl_memory_desc_t *dm, const char *what) {
    int nd = md->ndims;
    int64_t n = lg__md_nelems(md), npad = (int64_t)(lg_md_size(md) / sizeof(float));
    dnnl_dims_t strides;
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        strides[d] = s;
        s *= md->dims[d];
    }
    dnnl_memory_desc_t src_md;
    DN_OK(dnnl_memory_desc_init_by_strides(&src_md, nd, dm->dims, dnnl_f32, strides));
    float *src = malloc((size_t)n * sizeof(float));
    float *dst = malloc((size_t)npad * sizeof(float));
    uint8_t *hit = calloc((size_t)npad, 1);
    cr_assert(src && dst && hit);
    for (int64_t k = 0; k < n; k++) src[k] = (float)(k + 1);
    for (int64_t k = 0; k < npad; k++) dst[k] = -1.0f;

    dnnl_memory_t src_mem, dst_mem;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    DN_OK(dnnl_memory_create(&src_mem, &src_md, c->engine, src));
    DN_OK(dnnl_memory_create(&dst_mem, dm, c->engine, dst));
    DN_OK(dnnl_reorder_primitive_desc_create(&pd, &src_md, c->engine, dm, c->engine, NULL));
    DN_OK(dnnl_primitive_create(&prim, pd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src_mem}, {DNNL_ARG_TO, dst_mem}};
    DN_OK(dnnl_primitive_execute(prim, c->stream, 2, args));
    DN_OK(dnnl_stream_wait(c->stream));
    DN_OK(dnnl_primitive_destroy(prim));
    DN_OK(dnnl_primitive_desc_destroy(pd));
    DN_OK(dnnl_memory_destroy(dst_mem));
    DN_OK(dnnl_memory_destroy(src_mem));

    int64_t idx[LG_MAX_NDIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t off = lg_md_offset(md, idx);
        cr_assert(off >= 0 && off < npad, "%s: element %lld: offset %lld outside [0, %lld)", what,
                  (long long)k, (long long)off, (long long)npad);
        cr_assert(dst[off] == (float)(k + 1),
                  "%s: element %lld: lgraph offset %lld holds %g, oneDNN put %g there", what,
                  (long long)k, (long long)off, (double)dst[off], (double)(k + 1));
        hit[off] = 1;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < md->dims[d]) break;
            idx[d] = 0;
        }
    }
    for (int64_t k = 0; k < npad; k++)
        if (!hit[k])
            cr_assert(dst[k] == 0.0f, "%s: padding at %lld holds %g", what, (long long)k,
                      (double)dst[k]);
    free(hit);
    free(dst);
    free(src);
}

/* Compare one tag (oneDNN enum, lgraph string) with the given dims; returns
 * whether the data check ran. */
static bool compare_tag(ctx *c, dnnl_format_tag_t tag, const char *str, int nd, const int64_t *dims,
                        int64_t limit, const char *set) {
    char what[160];
    snprintf(what, sizeof what, "%s (%d dims, %s dims)", str, nd, set);
    dnnl_memory_desc_t dm;
    dnnl_dims_t ddims;
    for (int d = 0; d < nd; d++) ddims[d] = dims[d];
    DN_OK(dnnl_memory_desc_init_by_tag(&dm, nd, ddims, dnnl_f32, tag));
    lg_md md;
    cr_assert_eq(lg_md_init_tag(&md, nd, dims, LG_F32, str), LG_OK, "%s: %s", what,
                 lg_last_error());
    compare_structure(&md, &dm, what);
    if (lg__md_nelems_padded(&md) > limit) return false;
    compare_data(c, &md, &dm, what);
    return true;
}

Test(dnnl, every_format_tag) {
    ctx c;
    ctx_init(&c);
    int compared = 0, skipped = 0, data_main = 0, data_small = 0, data_any = 0;
    for (int t = (int)dnnl_a; t < (int)dnnl_format_tag_last; t++) {
        const char *str = dnnl_fmt_tag2str((dnnl_format_tag_t)t);
        int nd = generic_ndims(str);
        if (nd < 0) {
            printf("dnnl: skipping tag %d '%s'\n", t, str ? str : "(null)");
            skipped++;
            continue;
        }
        bool a = compare_tag(&c, (dnnl_format_tag_t)t, str, nd, dims_main, DATA_LIMIT_MAIN, "main");
        bool b =
            compare_tag(&c, (dnnl_format_tag_t)t, str, nd, dims_small, DATA_LIMIT_SMALL, "small");
        compared++;
        data_main += a;
        data_small += b;
        data_any += a || b;
    }
    printf("dnnl: %d format tags compared (structure and size, two sets of dims), %d skipped; "
           "checked by data: %d with the main dims, %d with the small dims, %d with either\n",
           compared, skipped, data_main, data_small, data_any);
    cr_assert_geq(compared, 400, "only %d tags compared", compared);
    cr_assert_eq(data_any, compared, "only %d of %d tags checked by data", data_any, compared);
    ctx_fini(&c);
}

Test(dnnl, domain_aliases) {
    static const struct {
        const char *alias;
        dnnl_format_tag_t tag;
        int ndims;
    } aliases[] = {
        {"nChw16c", dnnl_nChw16c, 4},
        {"OIhw16i16o", dnnl_OIhw16i16o, 4},
        {"gOIhw16i16o", dnnl_gOIhw16i16o, 5},
        {"Goihw16g", dnnl_Goihw16g, 5},
        {"nhwc", dnnl_nhwc, 4},
        {"nCdhw8c", dnnl_nCdhw8c, 5},
        {"Ohwi16o", dnnl_Ohwi16o, 4},
        {"IOhw16o16i", dnnl_IOhw16o16i, 4},
        {"OIdhw8i8o", dnnl_OIdhw8i8o, 5},
        {"gOIw16i16o", dnnl_gOIw16i16o, 4},
        {"Goiw8g", dnnl_Goiw8g, 4},
        {"NChw16n16c", dnnl_NChw16n16c, 4},
        {"iohw", dnnl_iohw, 4},
        {"goiw", dnnl_goiw, 4},
        {"ldgoi", dnnl_ldgoi, 5},
    };
    ctx c;
    ctx_init(&c);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        int nd = aliases[i].ndims;
        const char *generic = dnnl_fmt_tag2str(aliases[i].tag);
        cr_assert_eq(generic_ndims(generic), nd, "%s is '%s' in oneDNN", aliases[i].alias, generic);
        bool data = false;
        for (int set = 0; set < 2; set++) {
            const int64_t *dims = set ? dims_small : dims_main;
            data |= compare_tag(&c, aliases[i].tag, aliases[i].alias, nd, dims,
                                set ? DATA_LIMIT_SMALL : DATA_LIMIT_MAIN, set ? "small" : "main");
            /* The alias and oneDNN's generic name give the same lgraph md. */
            lg_md a, g;
            cr_assert_eq(lg_md_init_tag(&a, nd, dims, LG_F32, aliases[i].alias), LG_OK);
            cr_assert_eq(lg_md_init_tag(&g, nd, dims, LG_F32, generic), LG_OK);
            cr_assert(lg_md_equal(&a, &g), "%s vs %s", aliases[i].alias, generic);
        }
        cr_assert(data, "%s: too large for the data check", aliases[i].alias);
    }
    ctx_fini(&c);
}
