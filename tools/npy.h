/* NumPy .npy files of float32 in C order: the only kind lgraph-run reads
 * and writes. A file to read is untrusted input: every refusal is a -1 with
 * a message, and no file makes the reader allocate more than the data it
 * holds (the shape is checked against the bytes left in a seekable stream
 * before the array is allocated). */
#ifndef LG_TOOLS_NPY_H
#define LG_TOOLS_NPY_H

#include <stdint.h>
#include <stdio.h>

#define NPY_MAX_NDIMS 12
/* The most elements a shape may name (2^34 floats, 64 GiB). */
#define NPY_MAX_ELEMS ((int64_t)1 << 34)

typedef struct npy_array {
    int nd;
    int64_t dims[NPY_MAX_NDIMS];
    int64_t n; /* elements */
    float *data;
} npy_array;

/* Read path into a (a->data from malloc). 0 on success; else -1 with a
 * message in err naming the file and what is wrong with it, a->data NULL. */
int npy_read(const char *path, npy_array *a, char *err, size_t errlen);

/* npy_read on an open stream f (read from its current position; name is
 * what messages call it). Versions 1.0 to 3.0, descr '<f4', C order, any
 * shape of up to NPY_MAX_NDIMS dims (a 0-dim array holds one value). Bytes
 * after the data are ignored, as numpy.load does. */
int npy_read_file(FILE *f, const char *name, npy_array *a, char *err, size_t errlen);

/* Write n floats of dims to path (version 1.0, data 64-byte aligned).
 * 0 on success, -1 with errno set. */
int npy_write(const char *path, int nd, const int64_t *dims, const float *data);

/* npy_write to an open stream (not closed). -1 also when nd is outside
 * [0, NPY_MAX_NDIMS] or a dim is negative (errno EINVAL). */
int npy_write_file(FILE *f, int nd, const int64_t *dims, const float *data);

#endif
