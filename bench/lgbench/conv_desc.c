/* benchdnn's convolution problem descriptors (see conv_desc.h). */
#include "conv_desc.h"

#include <stdio.h>
#include <string.h>

enum { D, H, W };

/* The entry names and where each value goes; "g" is matched last among
 * the two-letter ones only because no other name starts with 'g'. */
static int64_t *field(lgb_conv_desc *d, const char *s, size_t *n) {
    static const char *const sp = "dhw";
    *n = 2;
    if (s[0] == 'g') {
        *n = 1;
        return &d->g;
    }
    if (!strncmp(s, "mb", 2)) return &d->mb;
    if (!strncmp(s, "ic", 2)) return &d->ic;
    if (!strncmp(s, "oc", 2)) return &d->oc;
    const char *x = s[1] ? strchr(sp, s[1]) : NULL;
    if (!x) return NULL;
    int k = (int)(x - sp);
    switch (s[0]) {
    case 'i':
        return &d->i[k];
    case 'o':
        return &d->o[k];
    case 'k':
        return &d->k[k];
    case 's':
        return &d->s[k];
    case 'p':
        return &d->p[k];
    case 'd':
        return &d->d[k];
    default:
        return NULL;
    }
}

static int64_t keff(const lgb_conv_desc *d, int x) {
    return (d->k[x] - 1) * (d->d[x] + 1) + 1;
}

/* Fill in the output or the padding of spatial dim x, if present. */
static bool complete_dim(lgb_conv_desc *d, int x, char *err, size_t len) {
    static const char names[] = "dhw";
    if (!d->i[x] || !d->k[x]) {
        snprintf(err, len, "spatial dim '%c' needs i%c and k%c", names[x], names[x], names[x]);
        return false;
    }
    if (!d->o[x]) {
        if (d->p[x] < 0) d->p[x] = 0;
        d->o[x] = (d->i[x] - keff(d, x) + 2 * d->p[x]) / d->s[x] + 1;
        if (d->o[x] <= 0) {
            snprintf(err, len, "o%c would be %lld: the kernel does not fit", names[x],
                     (long long)d->o[x]);
            return false;
        }
    } else if (d->p[x] < 0) {
        d->p[x] = ((d->o[x] - 1) * d->s[x] - d->i[x] + keff(d, x)) / 2;
    }
    return true;
}

static void copy_dim(lgb_conv_desc *d, int to, int from) {
    d->i[to] = d->i[from];
    d->o[to] = d->o[from];
    d->k[to] = d->k[from];
    d->s[to] = d->s[from];
    d->p[to] = d->p[from];
    d->d[to] = d->d[from];
}

static void unit_dim(lgb_conv_desc *d, int x) {
    d->i[x] = d->o[x] = d->k[x] = d->s[x] = 1;
    d->p[x] = d->d[x] = 0;
}

bool lgb_conv_desc_parse(const char *str, lgb_conv_desc *out, char *err, size_t len) {
    lgb_conv_desc d;
    memset(&d, 0, sizeof d);
    d.g = 1;
    d.mb = 2;
    for (int x = 0; x < 3; x++) {
        d.s[x] = 1;
        d.p[x] = -1;
    }
    const char *s = str;
    while (*s) {
        if (*s == '_') {
            s++;
            continue;
        }
        if (*s == 'n') {
            const char *nm = s + 1;
            size_t n = strlen(nm);
            if (n >= 2 && nm[0] == '"' && nm[n - 1] == '"') {
                nm++;
                n -= 2;
            }
            if (n >= sizeof d.name) n = sizeof d.name - 1;
            memcpy(d.name, nm, n);
            d.name[n] = '\0';
            break;
        }
        size_t n;
        int64_t *f = field(&d, s, &n);
        if (!f) {
            snprintf(err, len, "'%s': unknown entry at '%s'", str, s);
            return false;
        }
        const char *num = s + n;
        if (*num < '0' || *num > '9') {
            snprintf(err, len, "'%s': '%.*s' needs a non-negative number", str, (int)n, s);
            return false;
        }
        int64_t v = 0;
        while (*num >= '0' && *num <= '9') {
            if (v > (INT64_MAX - 9) / 10) {
                snprintf(err, len, "'%s': number too large", str);
                return false;
            }
            v = v * 10 + (*num++ - '0');
        }
        if (f == &d.g) d.has_groups = true;
        *f = v;
        s = num;
    }
    if (d.g <= 0 || d.ic <= 0 || d.oc <= 0 || d.mb < 0) {
        snprintf(err, len, "'%s': g, ic and oc must be positive", str);
        return false;
    }
    if (d.ic % d.g || d.oc % d.g) {
        snprintf(err, len, "'%s': g%lld does not divide ic%lld and oc%lld", str, (long long)d.g,
                 (long long)d.ic, (long long)d.oc);
        return false;
    }
    for (int x = 0; x < 3; x++)
        if (d.s[x] <= 0) {
            snprintf(err, len, "'%s': strides must be positive", str);
            return false;
        }
    bool present[3];
    for (int x = 0; x < 3; x++) {
        present[x] = (d.i[x] | d.k[x] | d.o[x] | d.d[x]) != 0 || d.s[x] != 1 || d.p[x] > 0;
        if (present[x] && !complete_dim(&d, x, err, len)) return false;
    }
    if (present[D]) {
        if (!present[H] && !present[W]) {
            copy_dim(&d, H, D);
            copy_dim(&d, W, D);
        } else if (!present[H] || !present[W]) {
            snprintf(err, len, "'%s': a 3D problem needs both h and w, or neither", str);
            return false;
        }
        d.ndims = 5;
    } else if (present[H]) {
        if (!present[W]) copy_dim(&d, W, H);
        unit_dim(&d, D);
        d.ndims = 4;
    } else if (present[W]) {
        unit_dim(&d, D);
        unit_dim(&d, H);
        d.ndims = 3;
    } else {
        snprintf(err, len, "'%s': no spatial dim (give at least ih/iw/id and kh/kw/kd)", str);
        return false;
    }
    for (int x = 0; x < 3; x++) d.p_r[x] = (d.o[x] - 1) * d.s[x] - d.i[x] + keff(&d, x) - d.p[x];
    *out = d;
    return true;
}

/* Print one group of spatial entries ("ih56" or "ih56iw28") at buf + *o. */
static void put_group(char *buf, size_t len, size_t *o, const char *pre, const int64_t *v,
                      int first, bool square) {
    static const char names[] = "dhw";
    for (int x = first; x < 3 && *o < len; x++) {
        int w = snprintf(buf + *o, len - *o, "%s%c%lld", pre, names[x], (long long)v[x]);
        if (w > 0) *o += (size_t)w;
        if (square) break;
    }
}

void lgb_conv_desc_str(const lgb_conv_desc *d, char *buf, size_t len) {
    size_t o = 0;
    int first = 5 - d->ndims; /* first spatial index present */
    bool square = true;
    const int64_t *groups[] = {d->i, d->o, d->k, d->s, d->p, d->d};
    for (int g = 0; g < 6; g++)
        for (int x = first; x < 2; x++) square = square && groups[g][x] == groups[g][x + 1];
    bool strided = false, dilated = false;
    for (int x = first; x < 3; x++) {
        strided = strided || d->s[x] != 1;
        dilated = dilated || d->d[x] != 0;
    }
    buf[0] = '\0';
    int w = 0;
    if (d->has_groups) w = snprintf(buf, len, "g%lld", (long long)d->g);
    if (w > 0) o = (size_t)w;
    if (d->mb != 2 && o < len) o += (size_t)snprintf(buf + o, len - o, "mb%lld", (long long)d->mb);
    if (o < len) o += (size_t)snprintf(buf + o, len - o, "ic%lld", (long long)d->ic);
    put_group(buf, len, &o, "i", d->i, first, square);
    if (o < len) o += (size_t)snprintf(buf + o, len - o, "oc%lld", (long long)d->oc);
    put_group(buf, len, &o, "o", d->o, first, square);
    put_group(buf, len, &o, "k", d->k, first, square);
    if (strided) put_group(buf, len, &o, "s", d->s, first, square);
    put_group(buf, len, &o, "p", d->p, first, square);
    if (dilated) put_group(buf, len, &o, "d", d->d, first, square);
    if (d->name[0] && o < len) snprintf(buf + o, len - o, "n%s", d->name);
}

bool lgb_conv_desc_lg(const lgb_conv_desc *d, lg_conv_params *p, int64_t *src, int64_t *wei,
                      int *wnd, int64_t *dst, char *err, size_t len) {
    int sp = d->ndims - 2, first = 3 - sp;
    memset(p, 0, sizeof *p);
    p->groups = d->g;
    src[0] = dst[0] = d->mb;
    src[1] = d->ic;
    dst[1] = d->oc;
    int w = 0;
    if (d->g > 1) wei[w++] = d->g;
    wei[w++] = d->oc / d->g;
    wei[w++] = d->ic / d->g;
    for (int j = 0; j < sp; j++) {
        int x = first + j;
        src[2 + j] = d->i[x];
        dst[2 + j] = d->o[x];
        wei[w++] = d->k[x];
        p->strides[j] = d->s[x];
        p->dilates[j] = d->d[x];
        p->pad_l[j] = d->p[x];
        p->pad_r[j] = d->p_r[x];
        if (d->p[x] < 0) {
            snprintf(err, len, "negative padding");
            return false;
        }
        if (p->pad_r[j] < 0) {
            int64_t o0 = (d->i[x] + d->p[x] - keff(d, x)) / d->s[x] + 1;
            if (d->i[x] + d->p[x] - keff(d, x) < 0 || o0 != d->o[x]) {
                snprintf(err, len,
                         "right padding %lld on spatial dim %d: lgraph takes none below 0",
                         (long long)p->pad_r[j], j);
                return false;
            }
            p->pad_r[j] = 0;
        }
    }
    *wnd = w;
    return true;
}

double lgb_conv_desc_flops(const lgb_conv_desc *d) {
    /* Per spatial dim, the number of (output, tap) pairs that land inside
     * the input; the dims are independent, so the product counts them all. */
    double taps = 1;
    for (int x = 0; x < 3; x++) {
        double n = 0;
        for (int64_t o = 0; o < d->o[x]; o++)
            for (int64_t k = 0; k < d->k[x]; k++) {
                int64_t i = o * d->s[x] - d->p[x] + k * (d->d[x] + 1);
                n += i >= 0 && i < d->i[x];
            }
        taps *= n;
    }
    return 2.0 * (double)d->mb * (double)d->oc * (double)(d->ic / d->g) * taps;
}
