/* NumPy .npy files of float32 in C order: the only kind lgraph-run reads
 * and writes. */
#ifndef LG_TOOLS_NPY_H
#define LG_TOOLS_NPY_H

#include <stdint.h>
#include <stdio.h>

#define NPY_MAX_NDIMS 12

typedef struct npy_array {
    int nd;
    int64_t dims[NPY_MAX_NDIMS];
    int64_t n; /* elements */
    float *data;
} npy_array;

/* Read path into a (a->data from malloc). 0 on success; else -1 with a
 * message in err (what is wrong with the file). */
int npy_read(const char *path, npy_array *a, char *err, size_t errlen);

/* Write n floats of dims to path. 0 on success, -1 with errno set. */
int npy_write(const char *path, int nd, const int64_t *dims, const float *data);

#endif
