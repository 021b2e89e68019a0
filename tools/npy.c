/* .npy reading and writing (format versions 1.0 to 3.0, '<f4', C order). */
#include "npy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t len, const char *path, const char *what) {
    snprintf(err, len, "%s: %s", path, what);
    return -1;
}

int npy_read(const char *path, npy_array *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, path, strerror(errno));
    unsigned char pre[12];
    int rc = -1;
    char *hdr = NULL;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fail(err, errlen, path, "not a .npy file");
        goto done;
    }
    size_t hlen;
    if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            fail(err, errlen, path, "truncated header");
            goto done;
        }
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        fail(err, errlen, path, "unknown .npy version");
        goto done;
    }
    if (hlen > 65536 || !(hdr = malloc(hlen + 1)) || fread(hdr, 1, hlen, f) != hlen) {
        fail(err, errlen, path, "bad or truncated header");
        goto done;
    }
    hdr[hlen] = 0;
    if (!strstr(hdr, "'descr': '<f4'")) {
        fail(err, errlen, path,
             "data type is not float32 ('<f4'); convert with "
             "numpy.asarray(x, dtype='<f4')");
        goto done;
    }
    if (!strstr(hdr, "'fortran_order': False")) {
        fail(err, errlen, path, "Fortran order; save a C-ordered array");
        goto done;
    }
    char *s = strstr(hdr, "'shape': (");
    if (!s) {
        fail(err, errlen, path, "no shape in the header");
        goto done;
    }
    s += 10;
    a->n = 1;
    while (*s && *s != ')') {
        char *end;
        long long d = strtoll(s, &end, 10);
        if (end == s || d < 0 || a->nd == NPY_MAX_NDIMS ||
            __builtin_mul_overflow(a->n, (int64_t)d, &a->n) || a->n > ((int64_t)1 << 34)) {
            fail(err, errlen, path, "bad shape");
            goto done;
        }
        a->dims[a->nd++] = d;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    a->data = malloc((size_t)(a->n ? a->n : 1) * sizeof(float));
    if (!a->data) {
        fail(err, errlen, path, "out of memory");
        goto done;
    }
    if (fread(a->data, sizeof(float), (size_t)a->n, f) != (size_t)a->n) {
        fail(err, errlen, path, "truncated data");
        goto done;
    }
    rc = 0;
done:
    free(hdr);
    fclose(f);
    if (rc) {
        free(a->data);
        a->data = NULL;
    }
    return rc;
}

int npy_write(const char *path, int nd, const int64_t *dims, const float *data) {
    char shape[256] = "";
    size_t len = 0;
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        len += (size_t)snprintf(shape + len, sizeof shape - len, "%lld,%s", (long long)dims[d],
                                d + 1 < nd ? " " : "");
        n *= dims[d];
    }
    if (nd > 1) shape[len - 1] = 0; /* "(2, 3)"; a 1-tuple keeps its comma */
    char hdr[384];
    int h = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }",
                     shape);
    int total = 10 + h + 1, pad = (64 - total % 64) % 64; /* data 64-byte aligned */
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    pre[8] = (unsigned char)((h + pad + 1) & 0xff);
    pre[9] = (unsigned char)((h + pad + 1) >> 8);
    fwrite(pre, 1, 10, f);
    fwrite(hdr, 1, (size_t)h, f);
    for (int k = 0; k < pad; k++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, sizeof(float), (size_t)n, f);
    return fclose(f) == 0 ? 0 : -1;
}
