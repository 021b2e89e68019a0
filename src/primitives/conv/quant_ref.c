/* The scalar truth of the typed / quantised convolution and the epilogue it
 * shares with the conversion path (quant.h). */
#include "primitives/conv/quant.h"

#include "memory/convert.h"
#include "primitives/layout.h"
#include "primitives/simd/cvt.h"

#include <omp.h>

int64_t lg__convq_count(const lg__convq_pd *q, int i, bool zp) {
    int mask = zp ? q->zmask[i] : q->smask[i];
    if (mask < 0) return 0;
    const lg_md *md = i == LG_CQ_SRC ? &q->src : i == LG_CQ_WEI ? &q->wei : &q->dst;
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= md->dims[d];
    return n;
}

static inline float load_f32(lg_dtype dt, const void *base, int64_t off) {
    switch (dt) {
    case LG_F32:
        return ((const float *)base)[off];
    case LG_BF16:
        return lg__bf16_to_f32(((const uint16_t *)base)[off]);
    case LG_F16:
        return lg__f16_to_f32(((const uint16_t *)base)[off]);
    default: {
        float f;
        lg__cvt_scalar(dt, (const char *)base + off * (int64_t)lg_dtype_size(dt), LG_F32, &f, 1);
        return f;
    }
    }
}

static inline int32_t load_int(lg_dtype dt, const void *base, int64_t off) {
    switch (dt) {
    case LG_U8:
        return ((const uint8_t *)base)[off];
    case LG_S8:
        return ((const int8_t *)base)[off];
    default:
        return ((const int32_t *)base)[off];
    }
}

void lg__convq_store(const lg__convq_pd *q, const lg__convq_args *a, float acc, const int64_t *idx,
                     int64_t off) {
    int64_t oc = idx[1];
    float v = acc;
    if (a->scale[LG_CQ_SRC]) v = v * a->scale[LG_CQ_SRC][0];
    if (a->scale[LG_CQ_WEI]) v = v * a->scale[LG_CQ_WEI][q->smask[LG_CQ_WEI] ? oc : 0];
    if (q->has_bias) v = v + load_f32(q->bias.dtype, a->bias, q->bias.offset0 + oc);
    float old = 0.0f;
    if (lg__po_has_sum(&q->po)) {
        old = load_f32((lg_dtype)q->sum_dt, a->dst, q->dst.offset0 + off);
        if (q->sum_zp) old = old - (float)q->sum_zp;
    }
    v = lg__po_scalar(&q->po, idx, v, old, a->src1);
    if (a->scale[LG_CQ_DST]) v = v / a->scale[LG_CQ_DST][0];
    if (a->zp[LG_CQ_DST]) v = v + (float)a->zp[LG_CQ_DST][q->zmask[LG_CQ_DST] ? oc : 0];
    lg_dtype dt = q->dst.dtype;
    lg__cvt_scalar(LG_F32, &v, dt,
                   (char *)a->dst + (q->dst.offset0 + off) * (int64_t)lg_dtype_size(dt), 1);
}

void lg__convq_ref(const lg__convq_pd *q, const lg__conv_tabs *t, const lg__convq_args *a) {
    lg__conv_shape s;
    lg__conv_shape_of(&q->f, &s);
    const int64_t *const *ts = t->src, *const *td = t->dst, *const *tw = t->wei;
    lg_dtype sdt = q->src.dtype, wdt = q->wei.dtype;
    int64_t so = q->src.offset0, wo = q->wei.offset0;
    int nsp = q->f.nsp;
    int64_t rows = s.n * s.oc * s.od * s.oh;
    int nthr = rows > 1 && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1)
    for (int64_t r = 0; r < rows; r++) {
        int64_t n, oc, od, oh;
        lg__convq_row(&s, r, &n, &oc, &od, &oh);
        int64_t g = oc / s.ocg, o = oc % s.ocg;
        int32_t zw = a->zp[LG_CQ_WEI] ? a->zp[LG_CQ_WEI][0] : 0;
        for (int64_t ow = 0; ow < s.ow; ow++) {
            int64_t iacc = 0;
            float facc = 0.0f;
            for (int64_t i = 0; i < s.icg; i++) {
                int64_t ic = g * s.icg + i;
                int32_t zs = a->zp[LG_CQ_SRC] ? a->zp[LG_CQ_SRC][q->zmask[LG_CQ_SRC] ? ic : 0] : 0;
                for (int64_t kd = 0; kd < s.kd; kd++) {
                    int64_t id = od * s.sd - s.pd + kd * s.dd;
                    if (id < 0 || id >= s.id) continue;
                    for (int64_t kh = 0; kh < s.kh; kh++) {
                        int64_t ih = oh * s.sh - s.ph + kh * s.dh;
                        if (ih < 0 || ih >= s.ih) continue;
                        for (int64_t kw = 0; kw < s.kw; kw++) {
                            int64_t iw = ow * s.sw - s.pw + kw * s.dw;
                            if (iw < 0 || iw >= s.iw) continue;
                            int64_t soff =
                                so + ts[0][n] + ts[1][ic] + ts[2][id] + ts[3][ih] + ts[4][iw];
                            int64_t woff = wo + tw[0][g] + tw[1][o] + tw[2][i] + tw[3][kd] +
                                           tw[4][kh] + tw[5][kw];
                            if (q->int8) {
                                int64_t sv = (int64_t)load_int(sdt, a->src, soff) - zs;
                                int64_t wv = (int64_t)load_int(wdt, a->wei, woff) - zw;
                                iacc += sv * wv;
                            } else {
                                float p = load_f32(sdt, a->src, soff) * load_f32(wdt, a->wei, woff);
                                facc = facc + p;
                            }
                        }
                    }
                }
            }
            int64_t idx[5] = {n, oc, 0, 0, 0};
            const int64_t sp[3] = {od, oh, ow};
            for (int i = 0; i < nsp; i++) idx[2 + i] = sp[3 - nsp + i];
            int64_t off = td[0][n] + td[1][oc] + td[2][od] + td[3][oh] + td[4][ow];
            lg__convq_store(q, a, q->int8 ? (float)iacc : facc, idx, off);
        }
    }
    if (lg__md_has_padding(&q->dst)) lg__zero_padding(&q->dst, t->raw[2], a->dst);
}
