/* Buffers, data and checks for correctness mode (see check.h). lgbench
 * links the static library, so it reaches lgraph's internal element access
 * (lg__md_off, lg__load_f32 / lg__store_f32) the references use too. */
#include "check.h"

#include "memory/convert.h"
#include "memory/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lgb_rng lgb_rng_seed(const char *text) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = text; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    return (lgb_rng){h};
}

uint64_t lgb_rng_next(lgb_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float lgb_rng_float(lgb_rng *r, float lo, float hi) {
    return lo + (hi - lo) * (float)((lgb_rng_next(r) >> 40) * 0x1p-24);
}

bool lgb_next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

void *lgb_buf_alloc(const lg_md *md) {
    size_t sz = lg_md_size(md);
    sz = (sz + 63) & ~(size_t)63;
    if (sz == 0) sz = 64;
    void *p = aligned_alloc(64, sz);
    if (p) memset(p, 0, sz);
    return p;
}

void lgb_buf_fill(const lg_md *md, void *buf, lgb_rng *r, float lo, float hi, bool integers) {
    if (lg__md_nelems(md) == 0) return;
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        float v = lgb_rng_float(r, lo, hi);
        if (integers) v = nearbyintf(v);
        lg__store_f32(buf, md->dtype, lg__md_off(md, idx), v);
    } while (lgb_next_index(idx, md->dims, md->ndims));
}

void lgb_buf_poison(const lg_md *md, void *buf) {
    memset(buf, 0xa5, lg_md_size(md));
}

static void idx_str(const int64_t *idx, int nd, char *buf, size_t len) {
    size_t o = 0;
    buf[0] = '\0';
    for (int d = 0; d < nd && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", d ? "," : "", (long long)idx[d]);
}

bool lgb_check_padding(const lg_md *md, const void *buf, const char *name, char *msg, size_t len) {
    if (!lg__md_has_padding(md) || lg__md_nelems(md) == 0) return true;
    size_t esz = lg_dtype_size(md->dtype);
    static const char zero[16];
    int64_t idx[LG_MAX_NDIMS] = {0}, bad = 0;
    char first[160] = "";
    do {
        bool pad = false;
        for (int d = 0; d < md->ndims; d++) pad = pad || idx[d] >= md->dims[d];
        if (!pad) continue;
        int64_t off = lg__md_off(md, idx);
        if (memcmp((const char *)buf + off * (int64_t)esz, zero, esz) == 0) continue;
        if (bad++ == 0) {
            char is[96];
            idx_str(idx, md->ndims, is, sizeof is);
            snprintf(first, sizeof first, "%s(%s) [offset %lld] = %g", name, is, (long long)off,
                     (double)lg__load_f32(buf, md->dtype, off));
        }
    } while (lgb_next_index(idx, md->padded_dims, md->ndims));
    if (bad == 0) return true;
    snprintf(msg, len, "padded area of %s not zero: %lld element(s), first %s", name,
             (long long)bad, first);
    return false;
}

/* Distance of g from w in ulps of w (f32). */
static double ulp_dist(float g, float w) {
    float a = fabsf(w);
    double ulp;
    if (a < 0x1p-126f) {
        ulp = 0x1p-149;
    } else {
        int e;
        frexpf(a, &e);
        ulp = ldexp(1.0, e - 24);
    }
    return fabs((double)g - (double)w) / ulp;
}

/* Whether got matches want at one element under the rule of lgb_compare. */
static bool elem_ok(lg_dtype dt, const void *got, const void *want, int64_t off, double ulps) {
    size_t esz = lg_dtype_size(dt);
    const char *g = (const char *)got + off * (int64_t)esz,
               *w = (const char *)want + off * (int64_t)esz;
    if (memcmp(g, w, esz) == 0) return true;
    if (ulps == 0.0 || dt == LG_S32 || dt == LG_S8 || dt == LG_U8) return false;
    float gv = lg__load_f32(got, dt, off), wv = lg__load_f32(want, dt, off);
    if (isnan(gv) || isnan(wv)) return isnan(gv) && isnan(wv);
    if (isinf(gv) || isinf(wv)) return gv == wv;
    if (dt == LG_F32) return ulp_dist(gv, wv) <= ulps;
    int16_t a, b;
    memcpy(&a, g, 2);
    memcpy(&b, w, 2);
    return (a ^ b) >= 0 && abs(a - b) <= 1;
}

typedef bool (*elem_rule)(lg_dtype dt, const void *got, const void *want, int64_t off, double p0,
                          double p1);

static bool rule_ulps(lg_dtype dt, const void *got, const void *want, int64_t off, double ulps,
                      double unused) {
    (void)unused;
    return elem_ok(dt, got, want, off, ulps);
}

static bool rule_rel(lg_dtype dt, const void *got, const void *want, int64_t off, double rel,
                     double floor) {
    float g = lg__load_f32(got, dt, off), w = lg__load_f32(want, dt, off);
    if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
    if (isinf(g) || isinf(w)) return g == w;
    double scale = fabs((double)w) > floor ? fabs((double)w) : floor;
    return fabs((double)g - (double)w) <= rel * scale;
}

static bool compare(const lg_md *md, const void *got, const void *want, elem_rule rule, double p0,
                    double p1, const char *name, char *msg, size_t len) {
    if (lg__md_nelems(md) == 0) return true;
    int64_t idx[LG_MAX_NDIMS] = {0}, bad = 0, n = 0;
    char first[200] = "";
    do {
        n++;
        int64_t off = lg__md_off(md, idx);
        if (rule(md->dtype, got, want, off, p0, p1)) continue;
        if (bad++ == 0) {
            char is[96];
            idx_str(idx, md->ndims, is, sizeof is);
            snprintf(first, sizeof first, "%s(%s) [offset %lld]: got %.9g, want %.9g", name, is,
                     (long long)off, (double)lg__load_f32(got, md->dtype, off),
                     (double)lg__load_f32(want, md->dtype, off));
        }
    } while (lgb_next_index(idx, md->dims, md->ndims));
    if (bad == 0) return true;
    snprintf(msg, len, "%lld of %lld elements of %s differ from the reference; first %s",
             (long long)bad, (long long)n, name, first);
    return false;
}

bool lgb_compare(const lg_md *md, const void *got, const void *want, double ulps, const char *name,
                 char *msg, size_t len) {
    return compare(md, got, want, rule_ulps, ulps, 0.0, name, msg, len);
}

bool lgb_compare_rel(const lg_md *md, const void *got, const void *want, double rel, double floor,
                     const char *name, char *msg, size_t len) {
    return compare(md, got, want, rule_rel, rel, floor, name, msg, len);
}

void lgb_inject_fault(lgb_fault f, const lg_md *md, void *buf) {
    if (f == LGB_FAULT_NONE || lg__md_nelems(md) == 0) return;
    size_t esz = lg_dtype_size(md->dtype);
    int64_t idx[LG_MAX_NDIMS] = {0};
    if (f == LGB_FAULT_VALUE) {
        /* The last logical element: flip its lowest bit, then its sign bit
         * too, so that no tolerance can absorb the change. */
        for (int d = 0; d < md->ndims; d++) idx[d] = md->dims[d] - 1;
        unsigned char *p = (unsigned char *)buf + lg__md_off(md, idx) * (int64_t)esz;
        p[0] ^= 1;
        p[esz - 1] ^= 0x40;
        return;
    }
    if (!lg__md_has_padding(md)) return;
    for (int d = 0; d < md->ndims; d++) idx[d] = md->padded_dims[d] - 1;
    memset((char *)buf + lg__md_off(md, idx) * (int64_t)esz, 0x3c, esz);
}
