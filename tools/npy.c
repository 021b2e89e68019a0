/* .npy reading and writing (format versions 1.0 to 3.0, '<f4', C order). */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Write "name: <what>" into err; returns -1. */
static int fail(char *err, size_t len, const char *name, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, len, "%s: %s", name, what);
    return -1;
}

/* The shape tuple after "'shape': (" at s: dims (non-negative decimal
 * integers, an old numpy's "3L" too) separated by commas, closed by ')'.
 * Fills a->nd, a->dims and a->n; false on anything else. */
static bool parse_shape(const char *s, npy_array *a) {
    a->n = 1;
    for (;;) {
        while (*s == ' ') s++;
        if (*s == ')') return true;
        if (*s < '0' || *s > '9' || a->nd == NPY_MAX_NDIMS) return false;
        char *end;
        errno = 0;
        long long d = strtoll(s, &end, 10);
        if (errno || __builtin_mul_overflow(a->n, (int64_t)d, &a->n) || a->n > NPY_MAX_ELEMS)
            return false;
        a->dims[a->nd++] = d;
        s = end;
        if (*s == 'L') s++;
        while (*s == ' ') s++;
        if (*s == ',') {
            s++;
        } else if (*s != ')') {
            return false;
        }
    }
}

/* Bytes left in f after its position, or -1 when f cannot seek. */
static int64_t bytes_left(FILE *f) {
    off_t here = ftello(f);
    if (here < 0 || fseeko(f, 0, SEEK_END) != 0) return -1;
    off_t end = ftello(f);
    if (fseeko(f, here, SEEK_SET) != 0 || end < here) return -1;
    return (int64_t)(end - here);
}

int npy_read_file(FILE *f, const char *name, npy_array *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    unsigned char pre[12];
    size_t hlen;
    char *hdr = NULL;
    int rc = -1;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fail(err, errlen, name, "not a .npy file");
        goto done;
    }
    if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            fail(err, errlen, name, "truncated header");
            goto done;
        }
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        fail(err, errlen, name, "unknown .npy version %d.%d", pre[6], pre[7]);
        goto done;
    }
    if (hlen > 65536) {
        fail(err, errlen, name, "header of %zu bytes (at most 65536)", hlen);
        goto done;
    }
    if (!(hdr = malloc(hlen + 1)) || fread(hdr, 1, hlen, f) != hlen) {
        fail(err, errlen, name, "truncated header");
        goto done;
    }
    hdr[hlen] = 0;
    if (!strstr(hdr, "'descr': '<f4'")) {
        fail(err, errlen, name,
             "data type is not float32 ('<f4'); convert with "
             "numpy.asarray(x, dtype='<f4')");
        goto done;
    }
    if (!strstr(hdr, "'fortran_order': False")) {
        fail(err, errlen, name, "Fortran order; save a C-ordered array");
        goto done;
    }
    const char *s = strstr(hdr, "'shape': (");
    if (!s) {
        fail(err, errlen, name, "no shape in the header");
        goto done;
    }
    if (!parse_shape(s + 10, a)) {
        fail(err, errlen, name, "bad shape (at most %d non-negative dims of %lld elements in all)",
             NPY_MAX_NDIMS, (long long)NPY_MAX_ELEMS);
        goto done;
    }
    int64_t need = a->n * (int64_t)sizeof(float), left = bytes_left(f);
    if (left >= 0 && left < need) {
        fail(err, errlen, name, "truncated data: the shape needs %lld bytes, the file holds %lld",
             (long long)need, (long long)left);
        goto done;
    }
    a->data = malloc((size_t)(a->n ? a->n : 1) * sizeof(float));
    if (!a->data) {
        fail(err, errlen, name, "out of memory for %lld values", (long long)a->n);
        goto done;
    }
    if (fread(a->data, sizeof(float), (size_t)a->n, f) != (size_t)a->n) {
        fail(err, errlen, name, "truncated data");
        goto done;
    }
    rc = 0;
done:
    free(hdr);
    if (rc) {
        free(a->data);
        a->data = NULL;
    }
    return rc;
}

int npy_read(const char *path, npy_array *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, path, "%s", strerror(errno));
    int rc = npy_read_file(f, path, a, err, errlen);
    fclose(f);
    return rc;
}

int npy_write_file(FILE *f, int nd, const int64_t *dims, const float *data) {
    if (nd < 0 || nd > NPY_MAX_NDIMS) {
        errno = EINVAL;
        return -1;
    }
    /* "(2, 3)"; a 1-tuple keeps its comma: "(5,)" */
    char shape[NPY_MAX_NDIMS * 22 + 1] = "";
    size_t len = 0;
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0) {
            errno = EINVAL;
            return -1;
        }
        len += (size_t)snprintf(shape + len, sizeof shape - len, "%lld,%s", (long long)dims[d],
                                d + 1 < nd ? " " : "");
        n *= dims[d];
    }
    if (nd > 1) shape[len - 1] = 0;
    char hdr[sizeof shape + 64];
    int h = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }",
                     shape);
    int total = 10 + h + 1, pad = (64 - total % 64) % 64; /* data 64-byte aligned */
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    pre[8] = (unsigned char)((h + pad + 1) & 0xff);
    pre[9] = (unsigned char)((h + pad + 1) >> 8);
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(hdr, 1, (size_t)h, f) != (size_t)h) return -1;
    for (int k = 0; k < pad; k++)
        if (fputc(' ', f) == EOF) return -1;
    if (fputc('\n', f) == EOF) return -1;
    if (n && fwrite(data, sizeof(float), (size_t)n, f) != (size_t)n) return -1;
    return 0;
}

int npy_write(const char *path, int nd, const int64_t *dims, const float *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int rc = npy_write_file(f, nd, dims, data);
    if (fclose(f) != 0) rc = -1;
    return rc;
}
