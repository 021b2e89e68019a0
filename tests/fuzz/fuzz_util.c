/* The fuzz targets' shared pieces (fuzz.h): failure reporting, the control
 * byte, small dims and descriptors, and the kernel-target runner. */
#include "fuzz/fuzz.h"

#include "memory/md.h"
#include "primitives/cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *target, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz %s: ", target);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

void fz_begin(fz *f) {
    uint8_t c = fz_u8(f);
    lg__cpu_set_isa_cap(c % 3); /* capped by the hardware */
    if ((c & 0xf0) == 0xf0) lg_kernel_cache_set_capacity((c >> 2) & 3);
}

void fz_end(void) {
    lg__cpu_set_isa_cap(-1);
    if (lg_kernel_cache_capacity() < 4) lg_kernel_cache_set_capacity(1024);
}

void fz_dims(fz *f, int max_nd, int *nd, int64_t *dims) {
    *nd = fz_int(f, 1, max_nd);
    for (int d = 0; d < *nd; d++) {
        uint8_t v = fz_u8(f);
        dims[d] = v == 255 ? 0 : v >= 200 ? 13 + v % 24 : 1 + v % 12;
    }
}

lg_dtype fz_dtype(fz *f, unsigned allowed) {
    lg_dtype list[6];
    int n = 0;
    for (int i = 0; i < 6; i++)
        if (allowed & (1u << i)) list[n++] = (lg_dtype)(i + 1);
    return n ? list[fz_u8(f) % n] : LG_F32;
}

/* A permutation of [0, nd) from the bytes (Fisher-Yates). */
static void permutation(fz *f, int nd, int *order) {
    for (int i = 0; i < nd; i++) order[i] = i;
    for (int i = nd - 1; i > 0; i--) {
        int j = fz_u8(f) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static const char *const aliases[] = {
    "x",        "nc",         "cn",      "ncw",   "nwc",       "nCw8c",    "nchw", "nhwc",
    "chwn",     "nChw8c",     "nChw16c", "ncdhw", "ndhwc",     "nCdhw16c", "oihw", "hwio",
    "OIhw8i8o", "OIhw16i16o", "Ohwi16o", "goihw", "gOIhw8i8o", "Goihw8g"};

bool fz_md(fz *f, int nd, const int64_t *dims, lg_dtype dt, lg_md *md) {
    static const int64_t blocks[5] = {2, 3, 4, 8, 16};
    int order[LG_MAX_NDIMS];
    char tag[64];
    lg_status s;
    switch (fz_u8(f) % 5) {
    case 0:
    case 1: { /* plain, permuted */
        permutation(f, nd, order);
        for (int i = 0; i < nd; i++) tag[i] = (char)('a' + order[i]);
        tag[nd] = '\0';
        s = lg_md_init_tag(md, nd, dims, dt, tag);
        break;
    }
    case 2: { /* blocked: one or two inner blocks */
        permutation(f, nd, order);
        int nblk = fz_int(f, 1, 2), bd[2];
        int64_t bs[2];
        bool blocked[LG_MAX_NDIMS] = {false};
        for (int i = 0; i < nblk; i++) {
            bd[i] = fz_u8(f) % nd;
            bs[i] = blocks[fz_u8(f) % 5];
            blocked[bd[i]] = true;
        }
        int n = 0;
        for (int i = 0; i < nd; i++) tag[n++] = (char)((blocked[order[i]] ? 'A' : 'a') + order[i]);
        for (int i = 0; i < nblk; i++)
            n += snprintf(tag + n, sizeof tag - (size_t)n, "%lld%c", (long long)bs[i], 'a' + bd[i]);
        s = lg_md_init_tag(md, nd, dims, dt, tag);
        break;
    }
    case 3: { /* strides with gaps of 0..3 elements, permuted order */
        permutation(f, nd, order);
        int64_t strides[LG_MAX_NDIMS], st = 1;
        for (int i = nd - 1; i >= 0; i--) {
            int d = order[i];
            st += fz_u8(f) % 4;
            strides[d] = st;
            st *= dims[d] ? dims[d] : 1;
        }
        s = lg_md_init_strides(md, nd, dims, dt, strides);
        break;
    }
    default: /* an alias (its ndims may not match: then false) */
        s = lg_md_init_tag(md, nd, dims, dt,
                           aliases[fz_u8(f) % (sizeof aliases / sizeof aliases[0])]);
        break;
    }
    return s == LG_OK && lg_md_size(md) <= FZ_MAX_BYTES;
}

/* A one-line account of p for failure messages. */
static void describe(const rel_problem *p, char *buf, size_t len) {
    int n = snprintf(buf, len, "%s isa %s alg %d alpha %a beta %a", rel_kind_name(p->kind),
                     lg__isa_name(lg__cpu_isa()), p->alg, (double)p->alpha, (double)p->beta);
    for (int i = 0; i < 3 && n > 0 && (size_t)n < len; i++) {
        if (!p->md[i].ndims) continue;
        char d[128];
        lg__md_describe(&p->md[i], d, sizeof d);
        n += snprintf(buf + n, len - (size_t)n, " md%d %s", i, d);
    }
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 " scales %d/%d zp %d/%d sum %d(%a) prop %d axis %d group %lld%s%s",
                 p->scale_mask[0], p->scale_mask[1], p->zp_mask[0], p->zp_mask[1], p->sum,
                 (double)p->sum_beta, (int)p->prop, p->axis, (long long)p->group,
                 p->inplace ? " in place" : "", p->null_dst ? " dst NULL" : "");
}

void fz_run(const char *target, const rel_problem *p, fz_expect expect, fz *f) {
    char what[768];
    lg_kernel *k = NULL;
    lg_status s = rel_create(p, &k);
    if (s != LG_OK) {
        describe(p, what, sizeof what);
        if (expect == FZ_MUST_CREATE ||
            (expect == FZ_MAY_REFUSE && s != LG_UNIMPLEMENTED && s != LG_INVALID_ARGUMENT))
            fz_fail(target, "%s: create gave %s (%s)", what, lg_status_str(s), lg_last_error());
        if (expect == FZ_MUST_REFUSE && s != LG_INVALID_ARGUMENT)
            fz_fail(target, "%s: bad argument gave %s (%s)", what, lg_status_str(s),
                    lg_last_error());
        if (!lg_last_error()[0]) fz_fail(target, "%s: refused without a message", what);
        if (k) fz_fail(target, "%s: kernel pointer set on failure", what);
        return;
    }
    if (expect == FZ_MUST_REFUSE) {
        describe(p, what, sizeof what);
        fz_fail(target, "%s: bad argument accepted", what);
    }
    /* The rest of the input is the data (raw bits); none left: seeded values. */
    rel_data data = {f->p + f->at, f->n - f->at, 0x9e3779b9u + f->n};
    char msg[256];
    if (rel_check(p, k, &data, 8 * (size_t)FZ_MAX_BYTES, NULL, msg, sizeof msg) != 0) {
        describe(p, what, sizeof what);
        fz_fail(target, "%s (impl %s): %s", what, lg_kernel_impl(k), msg);
    }
    lg_kernel_destroy(k);
}
