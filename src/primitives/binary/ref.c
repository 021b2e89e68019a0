/* The scalar binary truth: the whole-tensor reference and the scalar f32
 * kernels. */
#include "primitives/binary/binary.h"

#include "memory/convert.h"
#include "primitives/postops.h"

#include <string.h>

/* Advance idx over the box [0, ext) row-major; false after the last index. */
static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

void lg__binary_ref(const lg__binary_pd *pd, const void *src0, const void *src1, void *dst) {
    lg__po_spec none;
    memset(&none, 0, sizeof none);
    lg__binary_ref_po(pd, NULL, NULL, &none, src0, src1, dst, NULL);
}

void lg__binary_ref_po(const lg__binary_pd *pd, const float *scale0, const float *scale1,
                       const lg__po_spec *po, const void *src0, const void *src1, void *dst,
                       const void *const *po_src1) {
    lg__binary_ref_select(pd, NULL, NULL, scale0, scale1, po, src0, src1, dst, po_src1);
}

void lg__binary_ref_select(const lg__binary_pd *pd, const lg_md *cmd, const void *cond,
                           const float *scale0, const float *scale1, const lg__po_spec *po,
                           const void *src0, const void *src1, void *dst,
                           const void *const *po_src1) {
    const lg_md *m0 = &pd->src0, *m1 = &pd->src1, *md = &pd->dst;
    int nd = md->ndims;
    if (lg__md_nelems(md) == 0) return;
    int64_t idx[LG_MAX_NDIMS] = {0}, idx0[LG_MAX_NDIMS] = {0}, idx1[LG_MAX_NDIMS] = {0},
            idx2[LG_MAX_NDIMS] = {0};
    do {
        for (int d = 0; d < nd; d++) {
            idx0[d] = m0->dims[d] == 1 ? 0 : idx[d];
            idx1[d] = m1->dims[d] == 1 ? 0 : idx[d];
            if (cond) idx2[d] = cmd->dims[d] == 1 ? 0 : idx[d];
        }
        float a = lg__load_f32(src0, m0->dtype, lg__md_off(m0, idx0));
        float b = lg__load_f32(src1, m1->dtype, lg__md_off(m1, idx1));
        if (scale0) a = a * *scale0;
        if (scale1) b = b * *scale1;
        int64_t off = lg__md_off(md, idx);
        float r = cond ? (lg__load_f32(cond, cmd->dtype, lg__md_off(cmd, idx2)) != 0.0f ? a : b)
                       : lg__binary_fwd(pd->alg, a, b);
        if (po->npost) r = lg__po_scalar(po, idx, r, lg__load_f32(dst, md->dtype, off), po_src1);
        lg__store_f32(dst, md->dtype, off, r);
    } while (next_index(idx, md->dims, nd));
    if (!lg__md_has_padding(md)) return;
    size_t esz = lg_dtype_size(md->dtype);
    memset(idx, 0, sizeof idx);
    do {
        bool pad = false;
        for (int k = 0; k < nd; k++) pad = pad || idx[k] >= md->dims[k];
        if (pad) memset((char *)dst + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, md->padded_dims, nd));
}

void lg__binary_vv_scalar(int alg, const float *a, const float *b, float *d, int64_t n,
                          bool stream) {
    (void)stream;
    for (int64_t i = 0; i < n; i++) d[i] = lg__binary_fwd(alg, a[i], b[i]);
}

void lg__binary_pat_scalar(int alg, const float *a, const float *p, const int32_t *valid, int plen,
                           float *d, int64_t n, bool stream) {
    (void)stream;
    for (int64_t i = 0; i < n; i++) {
        int j = (int)(i % plen);
        d[i] = valid[j] ? lg__binary_fwd(alg, a[i], p[j]) : 0.0f;
    }
}
