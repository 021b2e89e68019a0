/* Fuzz target: the tag parser and the descriptor constructors
 * (lg_md_init_tag, lg_md_init_strides), on any ndims, any dims (small,
 * near powers of two, raw 64-bit, the sweep's extremes), any data type value, any tag bytes and
 * any strides. Properties:
 *  - a refusal is LG_INVALID_ARGUMENT, with a message naming the function,
 *    and leaves the md untouched;
 *  - an accepted md is well formed, equal to itself and to its copy;
 *  - when small enough to enumerate, every logical index has an offset
 *    inside lg_md_size, no two share one, and indices out of range give -1;
 *  - lg_md_tag's canonical tag, when it has one, builds an equal md;
 *  - on an accepted md, lg_md_submemory, lg_md_permute_axes and
 *    lg_md_reshape with input-chosen (mostly valid) arguments either refuse
 *    (the documented status, a message naming the call, out untouched) or
 *    give an md whose offsets are the input's at the mapped index (a view's
 *    idx + offsets, a permuted idx, the same row-major position), checked
 *    when small enough to walk. */
#include "fuzz/fuzz.h"

#include "memory/md.h"

#include <stdlib.h>
#include <string.h>

#define T "md"

/* A dim: small, near a power of two, raw, or negative. */
static int64_t wide_dim(fz *f) {
    uint8_t m = fz_u8(f);
    switch (m % 8) {
    case 0:
        return (int64_t)fz_u64(f);
    case 1:
        return ((int64_t)1 << (fz_u8(f) % 63)) + (fz_u8(f) % 7) - 3;
    case 2:
        return -(int64_t)(fz_u8(f) % 4) - 1;
    case 3: /* the sweep's extremes: limits, overflowing products */
        return fz_x64(f);
    default:
        return m % 40 < 20 ? m % 40 / 4 : m % 40 - 17; /* 0..4, 3..22 */
    }
}

static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static void check_ops(fz *f, const lg_md *md);

static void check_accepted(fz *f, const lg_md *md, int nd, const int64_t *dims, lg_dtype dt,
                           const char *how) {
    if (!lg__md_ok(md) || md->ndims != nd || md->dtype != dt)
        fz_fail(T, "%s: accepted md is malformed", how);
    for (int d = 0; d < nd; d++)
        if (md->dims[d] != dims[d] || md->padded_dims[d] < dims[d])
            fz_fail(T, "%s: dims[%d] = %lld, padded %lld, asked %lld", how, d,
                    (long long)md->dims[d], (long long)md->padded_dims[d], (long long)dims[d]);
    lg_md copy = *md;
    if (!lg_md_equal(md, md) || !lg_md_equal(md, &copy)) fz_fail(T, "%s: md != itself", how);
    check_ops(f, md);
    size_t size = lg_md_size(md), esz = lg_dtype_size(dt);
    if (lg_md_is_any(md)) {
        if (size != 0) fz_fail(T, "%s: 'any' md has size %zu", how, size);
        return;
    }
    /* Offsets, when the tensor is small enough to walk. */
    int64_t n = lg__md_nelems(md);
    if (n > 0 && n <= 4096 && size / esz <= (1u << 16)) {
        size_t nel = size / esz;
        uint8_t *used = calloc(nel, 1);
        if (!used) abort();
        int64_t idx[LG_MAX_NDIMS] = {0};
        do {
            int64_t off = lg_md_offset(md, idx);
            if (off < 0 || (size_t)off >= nel)
                fz_fail(T, "%s: offset %lld outside the %zu-element buffer", how, (long long)off,
                        nel);
            if (used[off]) fz_fail(T, "%s: two indices share offset %lld", how, (long long)off);
            used[off] = 1;
        } while (next_index(idx, dims, nd));
        free(used);
        int64_t out[LG_MAX_NDIMS] = {0};
        out[nd - 1] = dims[nd - 1];
        if (lg_md_offset(md, out) != -1) fz_fail(T, "%s: index out of range has an offset", how);
    }
    /* The canonical tag, when there is one, describes the same layout. */
    char tag[2 * LG_TAG_MAX];
    lg_status s = lg_md_tag(md, tag, sizeof tag);
    if (s == LG_OK) {
        lg_md back;
        if (lg_md_init_tag(&back, nd, dims, dt, tag) != LG_OK)
            fz_fail(T, "%s: canonical tag '%s' refused: %s", how, tag, lg_last_error());
        if (!lg_md_equal(&back, md))
            fz_fail(T, "%s: canonical tag '%s' is another layout", how, tag);
    } else if (s != LG_UNIMPLEMENTED) {
        fz_fail(T, "%s: lg_md_tag gave %s", how, lg_status_str(s));
    }
}

static void unravel(int64_t k, const int64_t *dims, int nd, int64_t *idx) {
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = k % dims[d];
        k /= dims[d];
    }
}

/* A refusal of one of the descriptor operations. */
static void op_refused(lg_status s, bool unimpl_ok, const lg_md *out, const lg_md *before,
                       const char *fn) {
    if (s != LG_INVALID_ARGUMENT && !(unimpl_ok && s == LG_UNIMPLEMENTED))
        fz_fail(T, "%s: refused with %s", fn, lg_status_str(s));
    if (!strstr(lg_last_error(), fn)) fz_fail(T, "%s: message '%s'", fn, lg_last_error());
    if (memcmp(out, before, sizeof *out) != 0) fz_fail(T, "%s: out changed on failure", fn);
}

/* Views, permutation and reshape of an accepted md. */
static void check_ops(fz *f, const lg_md *md) {
    int nd = md->ndims;
    bool walk = lg__md_nelems(md) <= 4096;
    lg_md out, before;
    memset(&out, 0x3c, sizeof out);
    before = out;
    /* a view: mostly in range */
    int64_t vd[LG_MAX_NDIMS], vo[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) {
        uint8_t a = fz_u8(f), b = fz_u8(f);
        int64_t D = md->dims[d];
        int64_t left;
        vo[d] = a == 255 ? -1 : (D ? a % (D < 255 ? D + 1 : 256) : 0);
        left = vo[d] >= 0 ? D - vo[d] : D;
        vd[d] = b == 255 ? -2 : b == 254 ? D : (left > 0 ? b % (left < 255 ? left + 1 : 256) : 0);
    }
    lg_status s = lg_md_submemory(md, vd, vo, &out);
    if (s != LG_OK) {
        op_refused(s, false, &out, &before, "lg_md_submemory");
    } else {
        if (lg_md_size(&out) > lg_md_size(md)) fz_fail(T, "view larger than its parent");
        int64_t idx[LG_MAX_NDIMS], pidx[LG_MAX_NDIMS];
        int64_t n = lg__md_nelems(&out);
        for (int64_t k = 0; walk && k < n; k++) {
            unravel(k, vd, nd, idx);
            for (int d = 0; d < nd; d++) pidx[d] = idx[d] + vo[d];
            if (lg_md_offset(&out, idx) != lg_md_offset(md, pidx))
                fz_fail(T, "view element %lld misplaced", (long long)k);
        }
        out = before;
    }
    /* a permutation: a shuffle of 0..nd-1, sometimes broken */
    int perm[LG_MAX_NDIMS];
    for (int d = 0; d < nd; d++) perm[d] = d;
    for (int d = nd - 1; d > 0; d--) {
        int k = fz_u8(f) % (d + 1), t = perm[d];
        perm[d] = perm[k];
        perm[k] = t;
    }
    if (fz_u8(f) == 7) perm[0] = nd;
    s = lg_md_permute_axes(md, perm, &out);
    if (s != LG_OK) {
        op_refused(s, false, &out, &before, "lg_md_permute_axes");
    } else if (!lg_md_is_any(md)) {
        int64_t idx[LG_MAX_NDIMS], pidx[LG_MAX_NDIMS];
        for (int64_t k = 0; walk && k < lg__md_nelems(md); k++) {
            unravel(k, md->dims, nd, idx);
            for (int d = 0; d < nd; d++) pidx[perm[d]] = idx[d];
            if (lg_md_offset(&out, pidx) != lg_md_offset(md, idx))
                fz_fail(T, "permuted element %lld misplaced", (long long)k);
        }
    }
    out = before;
    /* a reshape: merge two neighbours, split one by a factor, add a 1, or random */
    int64_t rd[LG_MAX_NDIMS];
    int rn = 0;
    uint8_t how = fz_u8(f), at = (uint8_t)(fz_u8(f) % nd), fac = (uint8_t)(fz_u8(f) % 5 + 1);
    for (int d = 0; d < nd; d++) {
        int64_t both;
        if (how % 4 == 0 && d == at && d + 1 < nd &&
            lg__mul_ok(md->dims[d], md->dims[d + 1], &both)) {
            rd[rn++] = both;
            d++;
        } else if (how % 4 == 1 && d == at && md->dims[d] % fac == 0 && nd < LG_MAX_NDIMS) {
            rd[rn++] = fac;
            rd[rn++] = md->dims[d] / fac;
        } else {
            if (how % 4 == 2 && d == at && nd < LG_MAX_NDIMS) rd[rn++] = 1;
            rd[rn++] = how % 4 == 3 && d == at ? fac : md->dims[d];
        }
    }
    s = lg_md_reshape(md, rn, rd, &out);
    if (s != LG_OK) {
        op_refused(s, true, &out, &before, "lg_md_reshape");
    } else if (!lg_md_is_any(md)) {
        int64_t a[LG_MAX_NDIMS], b[LG_MAX_NDIMS];
        for (int64_t k = 0; walk && k < lg__md_nelems(md); k++) {
            unravel(k, md->dims, nd, a);
            unravel(k, rd, rn, b);
            if (lg_md_offset(&out, b) != lg_md_offset(md, a))
                fz_fail(T, "reshaped element %lld misplaced", (long long)k);
        }
    }
}

static void check_refused(lg_status s, const lg_md *md, const lg_md *before, const char *fn,
                          const char *how) {
    if (s != LG_INVALID_ARGUMENT) fz_fail(T, "%s: refused with %s", how, lg_status_str(s));
    if (strncmp(lg_last_error(), fn, strlen(fn)) != 0)
        fz_fail(T, "%s: message '%s' does not name %s", how, lg_last_error(), fn);
    if (memcmp(md, before, sizeof *md) != 0) fz_fail(T, "%s: md changed on failure", how);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz f = {data, size, 0};
    uint8_t mode = fz_u8(&f);
    int nd = (int)(fz_u8(&f) % 15) - 1; /* -1..13: a few invalid */
    int64_t dims[16] = {0}, strides[16] = {0};
    for (int d = 0; d < nd && d < 16; d++) dims[d] = wide_dim(&f);
    lg_dtype dt = (lg_dtype)(fz_u8(&f) % 10); /* 0 and 9 are invalid */
    lg_md md, before;
    memset(&md, 0x5a, sizeof md);
    before = md;
    lg_status s;
    if (mode & 1) {
        bool dense = mode & 2;
        for (int d = 0; d < nd && d < 16; d++) strides[d] = wide_dim(&f);
        s = lg_md_init_strides(&md, nd, dims, dt, dense ? NULL : strides);
        if (s == LG_OK)
            check_accepted(&f, &md, nd, dims, dt, "lg_md_init_strides");
        else
            check_refused(s, &md, &before, "lg_md_init_strides", "lg_md_init_strides");
        return 0;
    }
    /* The tag: the rest of the input, up to a NUL, at most 200 bytes. */
    char tag[201];
    size_t n = 0;
    while (n < 200 && f.at < f.n && f.p[f.at]) tag[n++] = (char)f.p[f.at++];
    tag[n] = '\0';
    s = lg_md_init_tag(&md, nd, dims, dt, tag);
    if (s == LG_OK)
        check_accepted(&f, &md, nd, dims, dt, tag);
    else
        check_refused(s, &md, &before, "lg_md_init_tag", tag);
    return 0;
}
