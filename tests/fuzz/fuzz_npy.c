/* Fuzz target: lgraph-run's .npy reader (tools/npy.c) on any bytes; an
 * input file is untrusted. Seeds are small valid files (shapes (), (5,),
 * (2, 3), version 1 and 2 headers). Properties:
 *  - a refusal is -1 with a message naming the file, and no array;
 *  - an accepted file gives at most NPY_MAX_NDIMS dims whose product is the
 *    element count, and its data came from the input (no allocation larger
 *    than the bytes given: libFuzzer's malloc limit catches one);
 *  - writing the array back with npy_write_file and reading that gives the
 *    same shape and the same bytes;
 *  - no crash, leak, hang or sanitizer report (ASan + UBSan). */
#include "fuzz/fuzz.h"

#include "npy.h"

#include <stdlib.h>
#include <string.h>

/* Read size bytes of data through a memory stream; -1 when the stream
 * cannot be opened (not a finding). */
static int read_bytes(const void *data, size_t size, npy_array *a, char *err, size_t errlen) {
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f) return -2;
    int rc = npy_read_file(f, "input", a, err, errlen);
    fclose(f);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0; /* fmemopen refuses an empty buffer */
    npy_array a;
    char err[512] = "";
    int rc = read_bytes(data, size, &a, err, sizeof err);
    if (rc == -2) return 0;
    if (rc != 0) {
        if (a.data || strncmp(err, "input: ", 7) != 0 || !err[7]) abort();
        return 0;
    }
    int64_t n = 1;
    if (a.nd < 0 || a.nd > NPY_MAX_NDIMS || !a.data) abort();
    for (int d = 0; d < a.nd; d++) {
        if (a.dims[d] < 0) abort();
        n *= a.dims[d];
    }
    if (n != a.n || (uint64_t)n * sizeof(float) > size) abort();
    /* round trip through the writer */
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    if (!w) abort();
    if (npy_write_file(w, a.nd, a.dims, a.data) != 0) abort();
    if (fclose(w) != 0) abort();
    npy_array b;
    if (read_bytes(buf, len, &b, err, sizeof err) != 0) abort();
    if (b.nd != a.nd || b.n != a.n || memcmp(b.dims, a.dims, sizeof a.dims[0] * (size_t)a.nd) ||
        memcmp(b.data, a.data, sizeof(float) * (size_t)a.n))
        abort();
    free(b.data);
    free(buf);
    free(a.data);
    return 0;
}
