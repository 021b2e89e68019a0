/* The scalar convolution reference (conv.h): normalised shape, offset
 * tables, the post-op chain on one value, and the whole-tensor truth. */
#include "primitives/conv/conv.h"

#include "primitives/eltwise/eltwise.h"
#include "primitives/layout.h"

#include <omp.h>
#include <string.h>

static const int64_t zero_tab[1] = {0};

void lg__conv_shape_of(const lg__conv_pd *pd, lg__conv_shape *s) {
    const lg_md *src = &pd->src, *dst = &pd->dst, *wei = &pd->wei;
    int nsp = pd->nsp, wg = pd->groups > 1; /* weights have a leading G dim */
    memset(s, 0, sizeof *s);
    s->n = src->dims[0];
    s->g = pd->groups;
    s->ic = src->dims[1];
    s->oc = dst->dims[1];
    s->ocg = wei->dims[wg];
    s->icg = wei->dims[wg + 1];
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pl[3] = {0, 0, 0};
    for (int i = 0; i < nsp; i++) {
        int j = 3 - nsp + i;
        in[j] = src->dims[2 + i];
        out[j] = dst->dims[2 + i];
        k[j] = wei->dims[wg + 2 + i];
        st[j] = pd->strides[i];
        dl[j] = pd->dilates[i] + 1;
        pl[j] = pd->pad_l[i];
    }
    s->id = in[0], s->ih = in[1], s->iw = in[2];
    s->od = out[0], s->oh = out[1], s->ow = out[2];
    s->kd = k[0], s->kh = k[1], s->kw = k[2];
    s->sd = st[0], s->sh = st[1], s->sw = st[2];
    s->dd = dl[0], s->dh = dl[1], s->dw = dl[2];
    s->pd = pl[0], s->ph = pl[1], s->pw = pl[2];
}

float lg__conv_post_scalar(const lg__conv_pd *pd, float v, float old) {
    return lg__post_chain_scalar(pd->npost, pd->post, v, old);
}

/* Point out[0..n) at the normalised tables of md: dims [0, lead) map to
 * themselves, the nsp spatial dims to the last nsp of the three spatial
 * slots; dims md lacks get the one-entry zero table. */
static void map_tabs(const int64_t *raw, int lead, int skip, int nsp, const int64_t **out) {
    /* skip: normalised slots before the md's first dim (weights without G). */
    int n = lead + 3;
    for (int i = 0; i < n; i++) out[i] = zero_tab;
    for (int d = 0; d < lead - skip; d++) out[skip + d] = lg__offtab_dim(raw, d);
    for (int i = 0; i < nsp; i++) out[lead + 3 - nsp + i] = lg__offtab_dim(raw, lead - skip + i);
}

lg_status lg__conv_tabs_init(const lg__conv_pd *pd, lg__conv_tabs *t) {
    memset(t, 0, sizeof *t);
    int64_t *src = lg__offtab_new(&pd->src, pd->src.dims, false);
    int64_t *wei = lg__offtab_new(&pd->wei, pd->wei.dims, false);
    int64_t *dst = lg__offtab_new(&pd->dst, pd->dst.padded_dims, false);
    int64_t *bias = pd->has_bias ? lg__offtab_new(&pd->bias, pd->bias.dims, false) : NULL;
    if (!src || !wei || !dst || (pd->has_bias && !bias)) {
        lg__free(src);
        lg__free(wei);
        lg__free(dst);
        lg__free(bias);
        return LG_OUT_OF_MEMORY;
    }
    map_tabs(src, 2, 0, pd->nsp, t->src);
    map_tabs(dst, 2, 0, pd->nsp, t->dst);
    map_tabs(wei, 3, pd->groups > 1 ? 0 : 1, pd->nsp, t->wei);
    t->bias = bias ? lg__offtab_dim(bias, 0) : zero_tab;
    t->raw[0] = src;
    t->raw[1] = wei;
    t->raw[2] = dst;
    t->raw[3] = bias;
    return LG_OK;
}

void lg__conv_tabs_free(lg__conv_tabs *t) {
    for (int i = 0; i < 4; i++) lg__free(t->raw[i]);
    memset(t, 0, sizeof *t);
}

/* Clamp the taps k of one spatial dim so that o * s - p + k * dl lies in
 * [0, in): k in [*lo, *hi). */
static void tap_range(int64_t o, int64_t s, int64_t p, int64_t dl, int64_t k, int64_t in,
                      int64_t *lo, int64_t *hi) {
    int64_t start = o * s - p;
    /* ceil(x / dl) as (x - 1) / dl + 1: no overflow for any dilation */
    int64_t a = start < 0 ? (-start - 1) / dl + 1 : 0;
    int64_t b = in - start <= 0 ? 0 : (in - start - 1) / dl + 1;
    *lo = a;
    *hi = b < k ? b : k;
    if (*hi < *lo) *hi = *lo;
}

void lg__conv_ref(const lg__conv_pd *pd, const lg__conv_tabs *t, const float *src, const float *wei,
                  const float *bias, float *dst) {
    lg__conv_shape s;
    lg__conv_shape_of(pd, &s);
    src += pd->src.offset0;
    wei += pd->wei.offset0;
    dst += pd->dst.offset0;
    if (bias) bias += pd->bias.offset0;
    const int64_t *const *ts = t->src, *const *td = t->dst, *const *tw = t->wei;
    bool has_sum = false;
    for (int i = 0; i < pd->npost; i++) has_sum = has_sum || pd->post[i].kind == LG_POST_SUM;
    int64_t rows = s.n * s.oc * s.od * s.oh;
    int nthr = rows > 1 && !omp_in_parallel() ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1)
    for (int64_t r = 0; r < rows; r++) {
        int64_t q = r;
        int64_t oh = q % s.oh;
        q /= s.oh;
        int64_t od = q % s.od;
        q /= s.od;
        int64_t oc = q % s.oc;
        int64_t n = q / s.oc;
        int64_t g = oc / s.ocg, o = oc % s.ocg;
        int64_t kd0, kd1, kh0, kh1;
        tap_range(od, s.sd, s.pd, s.dd, s.kd, s.id, &kd0, &kd1);
        tap_range(oh, s.sh, s.ph, s.dh, s.kh, s.ih, &kh0, &kh1);
        int64_t dbase = td[0][n] + td[1][oc] + td[2][od] + td[3][oh];
        int64_t wbase = tw[0][g] + tw[1][o];
        float b0 = bias ? bias[t->bias[oc]] : 0.0f;
        for (int64_t ow = 0; ow < s.ow; ow++) {
            int64_t kw0, kw1;
            tap_range(ow, s.sw, s.pw, s.dw, s.kw, s.iw, &kw0, &kw1);
            float acc = b0;
            for (int64_t i = 0; i < s.icg; i++) {
                int64_t sc = ts[0][n] + ts[1][g * s.icg + i], wc = wbase + tw[2][i];
                for (int64_t kd = kd0; kd < kd1; kd++) {
                    int64_t sd = sc + ts[2][od * s.sd - s.pd + kd * s.dd], wd = wc + tw[3][kd];
                    for (int64_t kh = kh0; kh < kh1; kh++) {
                        int64_t sh = sd + ts[3][oh * s.sh - s.ph + kh * s.dh];
                        int64_t wh = wd + tw[4][kh];
                        for (int64_t kw = kw0; kw < kw1; kw++) {
                            float p =
                                src[sh + ts[4][ow * s.sw - s.pw + kw * s.dw]] * wei[wh + tw[5][kw]];
                            acc = acc + p;
                        }
                    }
                }
            }
            float *d = dst + dbase + td[4][ow];
            *d = lg__conv_post_scalar(pd, acc, has_sum ? *d : 0.0f);
        }
    }
    if (lg__md_has_padding(&pd->dst)) lg__zero_padding(&pd->dst, t->raw[2], dst - pd->dst.offset0);
}
