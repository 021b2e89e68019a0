/* tools/npy.c: files written by npy_write read back as they were, with the
 * header numpy writes; every malformed file is refused with a message that
 * says what is wrong, and none makes the reader allocate more than the
 * file holds. The bad files are built byte by byte here (the layout of the
 * format is NumPy's NEP 1). */
#include "npy.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* A file of format version ver with header dictionary dict (padded with
 * spaces and a newline to a multiple of 64 bytes, as numpy does) and nval
 * floats 0, 1, 2, ...; returns an open memory stream over it (fclose it;
 * the bytes are freed then). */
static FILE *npy_bytes(int ver, const char *dict, int64_t nval, char **buf) {
    size_t pre = ver == 1 ? 10 : 12, dl = strlen(dict);
    size_t hl = dl + 1 + (64 - (pre + dl + 1) % 64) % 64;
    size_t total = pre + hl + (size_t)nval * sizeof(float);
    *buf = malloc(total);
    cr_assert(*buf);
    unsigned char *p = (unsigned char *)*buf;
    memcpy(p, "\x93NUMPY", 6);
    p[6] = (unsigned char)ver, p[7] = 0;
    for (size_t k = 0; k < pre - 8; k++) p[8 + k] = (unsigned char)(hl >> (8 * k));
    memcpy(p + pre, dict, dl);
    memset(p + pre + dl, ' ', hl - dl - 1);
    p[pre + hl - 1] = '\n';
    for (int64_t i = 0; i < nval; i++) {
        float v = (float)i;
        memcpy(p + pre + hl + (size_t)i * sizeof v, &v, sizeof v);
    }
    FILE *f = fmemopen(*buf, total, "rb");
    cr_assert(f);
    return f;
}

/* Read a file built by npy_bytes; returns npy_read_file's status. */
static int read_dict(int ver, const char *dict, int64_t nval, npy_array *a, char *err) {
    char *buf;
    FILE *f = npy_bytes(ver, dict, nval, &buf);
    int rc = npy_read_file(f, "t.npy", a, err, 512);
    fclose(f);
    free(buf);
    return rc;
}

#define DICT(shape) "{'descr': '<f4', 'fortran_order': False, 'shape': " shape ", }"

/* Expect a refusal whose message holds `what`. */
static void refused(int ver, const char *dict, int64_t nval, const char *what) {
    npy_array a;
    char err[512] = "";
    cr_assert_eq(read_dict(ver, dict, nval, &a, err), -1, "accepted: %s", dict);
    cr_assert_null(a.data);
    cr_assert(strncmp(err, "t.npy: ", 7) == 0 && strstr(err, what), "message '%s' for %s", err,
              dict);
}

Test(npy, write_then_read_keeps_shape_values_and_numpy_header) {
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    const int64_t dims[2] = {2, 3};
    const float v[6] = {1.5f, -2, 3, -4e-30f, 5e30f, 0};
    cr_assert_eq(npy_write_file(w, 2, dims, v), 0);
    fclose(w);
    /* numpy's own header for this array (59 bytes), padded with spaces and
     * a newline so that the data starts at 128: a header length of 118 */
    const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    cr_assert_eq(strlen(hdr), 59);
    cr_assert_eq(len, 128 + sizeof v);
    cr_assert(memcmp(buf, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    cr_assert(memcmp(buf + 10, hdr, 59) == 0);
    cr_assert_eq(buf[69], ' ');
    cr_assert_eq(buf[127], '\n');
    FILE *r = fmemopen(buf, len, "rb");
    npy_array a;
    char err[512];
    cr_assert_eq(npy_read_file(r, "m", &a, err, sizeof err), 0, "%s", err);
    fclose(r);
    cr_assert_eq(a.nd, 2);
    cr_assert(a.dims[0] == 2 && a.dims[1] == 3 && a.n == 6);
    cr_assert(memcmp(a.data, v, sizeof v) == 0);
    free(a.data);
    free(buf);
}

Test(npy, one_tuple_and_scalar_shapes) {
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    const int64_t five = 5;
    const float v[5] = {1, 2, 3, 4, 5};
    cr_assert_eq(npy_write_file(w, 1, &five, v), 0);
    fclose(w);
    cr_assert(strstr(buf + 10, "'shape': (5,), }"));
    free(buf);
    npy_array a;
    char err[512];
    cr_assert_eq(read_dict(1, DICT("()"), 1, &a, err), 0, "%s", err);
    cr_assert(a.nd == 0 && a.n == 1 && a.data[0] == 0);
    free(a.data);
    cr_assert_eq(read_dict(1, DICT("(0, 4)"), 0, &a, err), 0, "%s", err);
    cr_assert(a.nd == 2 && a.n == 0 && a.data);
    free(a.data);
}

Test(npy, versions_two_and_three_and_old_long_dims) {
    npy_array a;
    char err[512];
    cr_assert_eq(read_dict(2, DICT("(2, 2)"), 4, &a, err), 0, "%s", err);
    cr_assert(a.n == 4 && a.data[3] == 3);
    free(a.data);
    cr_assert_eq(read_dict(3, DICT("(3,)"), 3, &a, err), 0, "%s", err);
    cr_assert(a.n == 3 && a.data[2] == 2);
    free(a.data);
    cr_assert_eq(read_dict(1, DICT("(2L, 1L)"), 2, &a, err), 0, "%s", err);
    cr_assert(a.nd == 2 && a.dims[0] == 2 && a.dims[1] == 1);
    free(a.data);
}

Test(npy, bad_headers_are_refused_with_the_reason) {
    refused(4, DICT("(2,)"), 2, "unknown .npy version 4.0");
    refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 4, "not float32");
    refused(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 2, "Fortran order");
    refused(1, "{'descr': '<f4', 'fortran_order': False, }", 2, "no shape");
    refused(1, DICT("(2, -3)"), 6, "bad shape");
    refused(1, DICT("(2, 3"), 6, "bad shape");                       /* no closing parenthesis */
    refused(1, DICT("(2; 3)"), 6, "bad shape");                      /* not a comma */
    refused(1, DICT("(+2, 3)"), 6, "bad shape");                     /* only plain digits */
    refused(1, DICT("(1,1,1,1,1,1,1,1,1,1,1,1,1)"), 1, "bad shape"); /* 13 dims */
    refused(1, DICT("(4294967296, 4294967296)"), 0, "bad shape");    /* 2^64 elements */
    refused(1, DICT("(99999999999999999999,)"), 0, "bad shape");     /* past int64 */
}

Test(npy, short_files_are_refused) {
    char err[512];
    npy_array a;
    FILE *f = fmemopen("\x93NUMPY\x01", 7, "rb");
    cr_assert_eq(npy_read_file(f, "t.npy", &a, err, sizeof err), -1);
    fclose(f);
    cr_assert(strstr(err, "not a .npy file"), "%s", err);
    f = fmemopen("PK\x03\x04 not numpy at all", 22, "rb");
    cr_assert_eq(npy_read_file(f, "t.npy", &a, err, sizeof err), -1);
    fclose(f);
    cr_assert(strstr(err, "not a .npy file"), "%s", err);
    /* a header length past the end of the file */
    f = fmemopen("\x93NUMPY\x01\x00\x00\x01{'descr'", 17, "rb");
    cr_assert_eq(npy_read_file(f, "t.npy", &a, err, sizeof err), -1);
    fclose(f);
    cr_assert(strstr(err, "truncated header"), "%s", err);
    /* six values named, five given */
    refused(1, DICT("(2, 3)"), 5, "truncated data: the shape needs 24 bytes, the file holds 20");
}

/* A 128-byte file naming 2^34 values (64 GiB) is refused from its size,
 * before any allocation: the message gives both sizes. */
Test(npy, a_huge_shape_in_a_small_file_allocates_nothing) {
    refused(1, DICT("(131072, 131072)"), 0,
            "truncated data: the shape needs 68719476736 bytes, the file holds 0");
}

Test(npy, missing_file_and_bad_writes) {
    npy_array a;
    char err[512];
    cr_assert_eq(npy_read("/nonexistent/x.npy", &a, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/x.npy: No such file"), "%s", err);
    cr_assert_null(a.data);
    const int64_t bad[1] = {-1};
    FILE *w = fopen("/dev/null", "wb");
    cr_assert(w);
    cr_assert_eq(npy_write_file(w, 1, bad, NULL), -1);
    cr_assert_eq(npy_write_file(w, NPY_MAX_NDIMS + 1, bad, NULL), -1);
    fclose(w);
}
