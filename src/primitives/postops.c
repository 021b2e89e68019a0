/* Post-op chains of the eltwise, binary and typed conv kernels (postops.h). */
#include "primitives/postops.h"

#include "memory/convert.h"
#include "primitives/layout.h"
#include "primitives/kernel.h"

#include <string.h>

lg_status lg__binary_any_like(const lg_md *like, const lg_md *md, lg_md *out) {
    char tag[2 * LG_TAG_MAX + 2];
    if (lg_md_tag(like, tag, sizeof tag) == LG_OK &&
        lg_md_init_tag(out, md->ndims, md->dims, md->dtype, tag) == LG_OK)
        return LG_OK;
    int64_t st[LG_MAX_NDIMS], s = 1;
    for (int d = md->ndims - 1; d >= 0; d--) {
        st[d] = s;
        s *= md->dims[d] ? md->dims[d] : 1;
    }
    return lg_md_init_strides(out, md->ndims, md->dims, md->dtype, st);
}

/* The weights md of a prelu post-op (position i) with `mask` against dst:
 * f32, dst's extent on the mask's dims and 1 elsewhere, in oneDNN's plain
 * layout for prelu weights: a, ab, acb, acdb, acdeb (dim 1 innermost from
 * 3 dims on). */
static lg_status prelu_md(int mask, const lg_md *dst, int i, const char *where, lg_md *out) {
    if (mask < 0 || mask >= (1 << dst->ndims))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "attr post-op %d (prelu): mask 0x%x names a dim a %d-dim dst lacks", i,
                         mask, dst->ndims);
    const int nd = dst->ndims;
    int64_t dims[LG_MAX_NDIMS], st[LG_MAX_NDIMS], s = 1;
    int order[LG_MAX_NDIMS], n = 0; /* innermost first */
    if (nd >= 3) order[n++] = 1;
    for (int d = nd - 1; d >= 0; d--)
        if (nd < 3 || d != 1) order[n++] = d;
    for (int d = 0; d < nd; d++) dims[d] = mask & (1 << d) ? dst->dims[d] : 1;
    for (int j = 0; j < nd; j++) {
        st[order[j]] = s;
        s *= dims[order[j]] ? dims[order[j]] : 1;
    }
    lg_md m;
    if (lg_md_init_strides(&m, dst->ndims, dims, LG_F32, st) != LG_OK)
        return lg__error(LG_INVALID_ARGUMENT, where, "attr post-op %d (prelu): weights md: %s", i,
                         lg_last_error());
    lg__md_canon(&m, out);
    return LG_OK;
}

lg_status lg__po_spec_init(lg__po_spec *spec, const struct lg_attr *attr, const lg_md *dst,
                           const char *where) {
    memset(spec, 0, sizeof *spec);
    if (!attr) return LG_OK;
    LG_CHECK(lg__attr_check_conv_only(attr, where));
    if (attr->npost < 0 || attr->npost > LG_MAX_POST_OPS)
        return lg__error(LG_INVALID_ARGUMENT, where, "attr has %d post-ops", attr->npost);
    for (int i = 0; i < attr->npost; i++) {
        const lg__post_op *op = &attr->post[i];
        lg__post_op *o = &spec->post[i];
        o->kind = op->kind;
        if (op->kind == LG_POST_SUM) {
            o->scale = op->scale;
        } else if (op->kind == LG_POST_ELTWISE) {
            bool ints;
            if (!lg__eltwise_alg_known(op->alg, &ints))
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "attr post-op %d: eltwise alg %d is unknown", i, op->alg);
            if (op->alg == LG_ELTWISE_SOFT_RELU && !(op->alpha != 0.0f))
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "attr post-op %d: soft_relu divides by alpha, which is 0", i);
            o->alg = op->alg;
            o->alpha = op->alpha;
            o->beta = op->beta;
        } else if (op->kind == LG_POST_BINARY) {
            const lg_md *m = &attr->post_md[i];
            o->alg = op->alg;
            if (m->ndims != dst->ndims)
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "attr post-op %d (binary): src1 has %d dims, dst %d", i, m->ndims,
                                 dst->ndims);
            for (int d = 0; d < dst->ndims; d++)
                if (m->dims[d] != dst->dims[d] && m->dims[d] != 1)
                    return lg__error(LG_INVALID_ARGUMENT, where,
                                     "attr post-op %d (binary): src1 dims[%d] = %lld is neither "
                                     "dst's %lld nor 1",
                                     i, d, (long long)m->dims[d], (long long)dst->dims[d]);
            lg_md c;
            if (lg_md_is_any(m)) {
                if (lg__binary_any_like(dst, m, &c) != LG_OK)
                    return lg__error(LG_INVALID_ARGUMENT, where,
                                     "attr post-op %d (binary): src1 'any': %s", i,
                                     lg_last_error());
                lg__md_canon(&c, &spec->src1[i]);
            } else {
                lg__md_canon(m, &spec->src1[i]);
            }
        } else if (op->kind == LG_POST_PRELU) {
            LG_CHECK(prelu_md(op->alg, dst, i, where, &spec->src1[i]));
            o->alg = op->alg;
        } else {
            return lg__error(LG_INVALID_ARGUMENT, where, "attr post-op %d has kind %d", i,
                             op->kind);
        }
    }
    spec->npost = attr->npost;
    return LG_OK;
}

float lg__po_scalar(const lg__po_spec *spec, const int64_t *idx, float v, float old,
                    const void *const *src1) {
    for (int i = 0; i < spec->npost; i++) {
        const lg__post_op *op = &spec->post[i];
        if (op->kind == LG_POST_SUM) {
            float t = op->scale * old;
            v = v + t;
        } else if (op->kind == LG_POST_ELTWISE) {
            v = lg__eltwise_fwd(op->alg, op->alpha, op->beta, v);
        } else {
            const lg_md *m = &spec->src1[i];
            int64_t i1[LG_MAX_NDIMS];
            for (int d = 0; d < m->ndims; d++) i1[d] = m->dims[d] == 1 ? 0 : idx[d];
            float w = lg__load_f32(src1[i], m->dtype, lg__md_off(m, i1));
            if (op->kind == LG_POST_PRELU)
                v = v > 0.0f ? v : w * v;
            else
                v = lg__binary_fwd(op->alg, v, w);
        }
    }
    return v;
}

bool lg__po_has_sum(const lg__po_spec *spec) {
    for (int i = 0; i < spec->npost; i++)
        if (spec->post[i].kind == LG_POST_SUM) return true;
    return false;
}

double lg__po_ulp_bound(const lg__po_spec *spec) {
    double b = 0;
    for (int i = 0; i < spec->npost; i++)
        if (spec->post[i].kind == LG_POST_ELTWISE) {
            double e = lg__eltwise_ulp_bound(spec->post[i].alg);
            b = e > b ? e : b;
        }
    return b;
}

int lg__po_arg(const lg__po_spec *spec, int i) {
    return spec->post[i].kind == LG_POST_PRELU ? LG_ARG_ATTR_POST_OP_WEIGHTS(i)
                                               : LG_ARG_ATTR_POST_OP_SRC1(i);
}

int lg__po_ntensors(const lg__po_spec *spec) {
    int n = 0;
    for (int i = 0; i < spec->npost; i++) n += lg__post_reads_tensor(spec->post[i].kind);
    return n;
}

void lg__po_add_slots(lg_kernel *k, const lg__po_spec *spec, int *slot) {
    for (int i = 0; i < spec->npost; i++)
        slot[i] = lg__post_reads_tensor(spec->post[i].kind)
                      ? lg__kernel_add_slot(k, lg__po_arg(spec, i), true, &spec->src1[i], 0)
                      : -1;
}

/* True if a and b have one layout (dims, blocking, offset), whatever their
 * data types. */
static bool same_layout(const lg_md *a, const lg_md *b) {
    lg_md t = *b;
    t.dtype = a->dtype;
    return lg_md_equal(a, &t);
}

lg_status lg__po_operand_init(const lg__po_plan *p, lg__po_operand *o, const lg_md *md) {
    memset(o, 0, sizeof *o);
    o->md = *md;
    bool scalar = true;
    for (int d = 0; d < md->ndims; d++) scalar = scalar && md->dims[d] == 1;
    if (scalar) {
        o->mode = LG_PO_SCALAR;
    } else if (same_layout(md, &p->dst)) {
        o->mode = LG_PO_SAME;
    } else {
        o->mode = LG_PO_GATHER;
        o->tab = lg__offtab_new(md, p->dst.dims, true);
        if (!o->tab) return LG_OUT_OF_MEMORY;
    }
    return LG_OK;
}

void lg__po_operand_free(lg__po_operand *o) {
    lg__free(o->tab);
    o->tab = NULL;
}

lg_status lg__po_plan_init(lg__po_plan *p, const lg__po_spec *spec, const lg_md *dst, lg__isa isa) {
    memset(p, 0, sizeof *p);
    p->dst = *dst;
    p->spec = *spec;
    p->vv = isa == LG_ISA_AVX512 ? lg__binary_vv_avx512
            : isa == LG_ISA_AVX2 ? lg__binary_vv_avx2
                                 : lg__binary_vv_scalar;
    p->pat = isa == LG_ISA_AVX512 ? lg__binary_pat_avx512
             : isa == LG_ISA_AVX2 ? lg__binary_pat_avx2
                                  : lg__binary_pat_scalar;
    p->elt = isa == LG_ISA_AVX512 ? lg__eltwise_f32_avx512
             : isa == LG_ISA_AVX2 ? lg__eltwise_f32_avx2
                                  : lg__eltwise_f32_scalar;
    p->cvt = lg__cvt_for_isa(isa);
    /* Physical dims: outer dims by decreasing stride, then the inner blocks. */
    int nd = dst->ndims;
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(dst, blk);
    bool used[LG_MAX_NDIMS] = {false};
    for (int n = 0; n < nd; n++) {
        int best = -1;
        for (int d = 0; d < nd; d++)
            if (!used[d] && (best < 0 || dst->blocking.strides[d] > dst->blocking.strides[best]))
                best = d;
        used[best] = true;
        int64_t ext = blk[best] ? dst->padded_dims[best] / blk[best] : 0;
        if (ext != 1) {
            p->pld[p->np] = best;
            p->pmul[p->np] = blk[best];
            p->pext[p->np++] = ext;
        }
    }
    const int nb = dst->blocking.inner_nblks;
    for (int j = 0; j < nb; j++) {
        int d = dst->blocking.inner_idxs[j];
        int64_t mul = 1;
        for (int k = j + 1; k < nb; k++)
            if (dst->blocking.inner_idxs[k] == d) mul *= dst->blocking.inner_blks[k];
        if (dst->blocking.inner_blks[j] != 1) {
            p->pld[p->np] = d;
            p->pmul[p->np] = mul;
            p->pext[p->np++] = dst->blocking.inner_blks[j];
        }
    }
    if (p->np == 0) {
        p->pld[0] = 0;
        p->pmul[0] = 1;
        p->pext[p->np++] = 1;
    }
    for (int i = 0; i < spec->npost; i++) {
        const lg__post_op *op = &spec->post[i];
        if (op->kind == LG_POST_ELTWISE) {
            p->epd[i].md = *dst;
            p->epd[i].alg = op->alg;
            p->epd[i].alpha = op->alpha;
            p->epd[i].beta = op->beta;
        } else if (lg__post_reads_tensor(op->kind)) {
            LG_CHECK(lg__po_operand_init(p, &p->opnd[i], &spec->src1[i]));
        }
    }
    return LG_OK;
}

void lg__po_plan_free(lg__po_plan *p) {
    for (int i = 0; i < LG_MAX_POST_OPS; i++) lg__po_operand_free(&p->opnd[i]);
}

/* Gathered values of o at flat positions [x, x + m) into out: runs of the
 * innermost physical dim, along which one logical dim advances. Positions
 * in dst's padding get 0. */
static void gather(const lg__po_plan *p, const lg__po_operand *o, const void *buf, int64_t x,
                   int64_t m, float *out) {
    const lg_md *md = &o->md, *dst = &p->dst;
    const int np = p->np, in = np - 1, din = p->pld[in], nd = dst->ndims;
    const int64_t mul = p->pmul[in], lim = dst->dims[din];
    const int64_t *tin = lg__offtab_dim(o->tab, din);
    const bool f32 = md->dtype == LG_F32, bc = md->dims[din] == 1;
    int64_t c[2 * LG_MAX_NDIMS], q = x;
    for (int k = np - 1; k >= 0; k--) {
        c[k] = q % p->pext[k];
        q /= p->pext[k];
    }
    for (int64_t pos = 0; pos < m;) {
        int64_t len = p->pext[in] - c[in];
        len = len < m - pos ? len : m - pos;
        int64_t li[LG_MAX_NDIMS] = {0};
        for (int k = 0; k < np; k++) li[p->pld[k]] += c[k] * p->pmul[k];
        bool pad = false;
        int64_t base = md->offset0;
        for (int d = 0; d < nd; d++) {
            if (d == din) continue;
            if (li[d] >= dst->dims[d])
                pad = true;
            else
                base += lg__offtab_dim(o->tab, d)[li[d]];
        }
        float *r = out + pos;
        if (pad) {
            for (int64_t j = 0; j < len; j++) r[j] = 0.0f;
        } else if (bc) {
            float v = lg__load_f32(buf, md->dtype, base);
            for (int64_t j = 0; j < len; j++) r[j] = v;
        } else if (f32) {
            const float *s = (const float *)buf + base;
            for (int64_t j = 0, i = li[din]; j < len; j++, i += mul)
                r[j] = i < lim ? s[tin[i]] : 0.0f;
        } else {
            for (int64_t j = 0, i = li[din]; j < len; j++, i += mul)
                r[j] = i < lim ? lg__load_f32(buf, md->dtype, base + tin[i]) : 0.0f;
        }
        pos += len;
        c[in] += len;
        for (int k = in; k > 0 && c[k] >= p->pext[k]; k--) {
            c[k] = 0;
            c[k - 1]++;
        }
    }
}

const float *lg__po_values(const lg__po_plan *p, const lg__po_operand *o, const void *buf,
                           int64_t x, int64_t m, float *out, bool *scalar) {
    *scalar = false;
    switch (o->mode) {
    case LG_PO_SCALAR: {
        int64_t idx[LG_MAX_NDIMS] = {0};
        out[0] = lg__load_f32(buf, o->md.dtype, lg__md_off(&o->md, idx));
        *scalar = true;
        return out;
    }
    case LG_PO_SAME:
        if (o->md.dtype == LG_F32) return (const float *)buf + o->md.offset0 + x;
        p->cvt(o->md.dtype,
               (const char *)buf + (o->md.offset0 + x) * (int64_t)lg_dtype_size(o->md.dtype),
               LG_F32, out, m);
        return out;
    default:
        gather(p, o, buf, x, m, out);
        return out;
    }
}

void lg__po_binary(const lg__po_plan *p, int alg, float *acc, const float *v, bool scalar,
                   int64_t m) {
    if (!scalar) {
        p->vv(alg, acc, v, acc, m, false);
        return;
    }
    float tile[16];
    int32_t valid[16];
    for (int j = 0; j < 16; j++) tile[j] = v[0], valid[j] = -1;
    p->pat(alg, acc, tile, valid, 16, acc, m, false);
}

void lg__po_load(const lg__po_plan *p, lg_dtype dt, const void *buf, int64_t x, int64_t m,
                 float *out) {
    const char *s = (const char *)buf + (p->dst.offset0 + x) * (int64_t)lg_dtype_size(dt);
    if (dt == LG_F32)
        memcpy(out, s, (size_t)m * sizeof(float));
    else
        p->cvt(dt, s, LG_F32, out, m);
}

void lg__po_store(const lg__po_plan *p, const float *in, void *buf, int64_t x, int64_t m) {
    lg_dtype dt = p->dst.dtype;
    char *d = (char *)buf + (p->dst.offset0 + x) * (int64_t)lg_dtype_size(dt);
    if (dt == LG_F32)
        memcpy(d, in, (size_t)m * sizeof(float));
    else
        p->cvt(LG_F32, in, dt, d, m);
}

/* acc[j] = acc[j] > 0 ? acc[j] : w[j] * acc[j] (w[0] for all j when
 * scalar); a select the compiler keeps in vector registers. */
static void prelu_run(float *restrict acc, const float *restrict w, bool scalar, int64_t m) {
    if (scalar) {
        const float s = w[0];
        for (int64_t j = 0; j < m; j++) acc[j] = acc[j] > 0.0f ? acc[j] : s * acc[j];
    } else {
        for (int64_t j = 0; j < m; j++) acc[j] = acc[j] > 0.0f ? acc[j] : w[j] * acc[j];
    }
}

void lg__po_run(const lg__po_plan *p, float *acc, int64_t x, int64_t m, const void *dst,
                const void *const *src1) {
    float vbuf[LG_PO_CHUNK], old[LG_PO_CHUNK];
    bool have_old = false;
    for (int i = 0; i < p->spec.npost; i++) {
        const lg__post_op *op = &p->spec.post[i];
        if (op->kind == LG_POST_SUM) {
            if (!have_old) lg__po_load(p, p->dst.dtype, dst, x, m, old);
            have_old = true;
            const float s = op->scale;
            for (int64_t j = 0; j < m; j++) {
                float t = s * old[j];
                acc[j] = acc[j] + t;
            }
        } else if (op->kind == LG_POST_ELTWISE) {
            p->elt(&p->epd[i], acc, acc, m, false);
        } else {
            bool sc;
            const float *v = lg__po_values(p, &p->opnd[i], src1[i], x, m, vbuf, &sc);
            if (op->kind == LG_POST_PRELU)
                prelu_run(acc, v, sc, m);
            else
                lg__po_binary(p, op->alg, acc, v, sc, m);
        }
    }
}
