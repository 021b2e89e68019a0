/* The blocked engine's plan (segments of every dst block) and its scalar
 * rows (concat.h). */
#include "primitives/concat/concat.h"

#include <stdio.h>
#include <string.h>

/* True if md is exactly the dense natural-order layout with one block of B
 * on the axis (aBcd<B>b for axis 1). */
static bool natural_blocked(const lg_md *md, int axis, int64_t B) {
    if (md->format_kind != LG_FMT_BLOCKED || md->offset0 != 0) return false;
    char tag[LG_MAX_NDIMS + 24];
    int k = 0;
    for (int d = 0; d < md->ndims; d++) tag[k++] = (char)((d == axis ? 'A' : 'a') + d);
    snprintf(tag + k, sizeof tag - (size_t)k, "%lld%c", (long long)B, 'a' + axis);
    lg_md want, have;
    if (lg_md_init_tag(&want, md->ndims, md->dims, md->dtype, tag) != LG_OK) return false;
    lg__md_canon(&want, &want);
    lg__md_canon(md, &have);
    return lg_md_equal(&want, &have);
}

void lg__cc_blocked_free(lg__cc_blocked *b) {
    lg__free(b->scb);
    lg__free(b->seg0);
    lg__free(b->segs);
    lg__free(b->masks);
    memset(b, 0, sizeof *b);
}

bool lg__cc_blocked_plan(const lg__cc_pd *pd, const lg__cc_piece *pc, lg__cc_blocked *b) {
    const lg_md *dm = &pd->dst;
    const int ax = pd->axis, nsrc = pd->slice ? 1 : pd->n, npc = pd->n;
    memset(b, 0, sizeof *b);
    if (dm->format_kind != LG_FMT_BLOCKED || dm->blocking.inner_nblks != 1 ||
        dm->blocking.inner_idxs[0] != ax)
        return false;
    const int64_t B = dm->blocking.inner_blks[0];
    const int64_t es = (int64_t)lg_dtype_size(dm->dtype);
    if (!natural_blocked(dm, ax, B)) return false;
    for (int i = 0; i < nsrc; i++)
        if (!natural_blocked(&pd->src[i], ax, B)) return false;
    b->N = b->R = 1;
    for (int d = 0; d < ax; d++) b->N *= dm->dims[d];
    for (int d = ax + 1; d < dm->ndims; d++) b->R *= dm->dims[d];
    b->BB = B * es;
    b->dcb = dm->padded_dims[ax] / B;
    b->nsrc = nsrc;
    /* Segments per dst block: at most two per piece (a piece's source
     * range may straddle one source block boundary within a dst block). */
    int64_t maxseg = 0;
    for (int64_t j = 0; j < b->dcb; j++)
        for (int p = 0; p < npc; p++) {
            int64_t lo = j * B > pc[p].d0 ? j * B : pc[p].d0;
            int64_t hi = (j + 1) * B < pc[p].d0 + pc[p].len ? (j + 1) * B : pc[p].d0 + pc[p].len;
            if (lo < hi) maxseg += 2;
        }
    b->scb = lg__calloc((size_t)nsrc, sizeof *b->scb);
    b->seg0 = lg__calloc((size_t)b->dcb + 1, sizeof *b->seg0);
    b->segs = lg__calloc((size_t)maxseg + 1, sizeof *b->segs);
    b->masks = lg__calloc((size_t)(maxseg + 1) * (size_t)b->BB, 1);
    if (!b->scb || !b->seg0 || !b->segs || !b->masks || maxseg > INT32_MAX) {
        lg__cc_blocked_free(b);
        return false;
    }
    for (int i = 0; i < nsrc; i++) b->scb[i] = pd->src[i].padded_dims[ax] / B;
    int32_t ns = 0;
    for (int64_t j = 0; j < b->dcb; j++) {
        b->seg0[j] = ns;
        for (int p = 0; p < npc; p++) {
            int64_t c = j * B > pc[p].d0 ? j * B : pc[p].d0;
            int64_t hi = (j + 1) * B < pc[p].d0 + pc[p].len ? (j + 1) * B : pc[p].d0 + pc[p].len;
            while (c < hi) {
                int64_t sc = c - pc[p].d0 + pc[p].s0, sl = sc % B;
                int64_t take = hi - c < B - sl ? hi - c : B - sl;
                lg__cc_seg *s = &b->segs[ns];
                s->src = pd->slice ? 0 : p;
                s->sblk = sc / B;
                s->so = (int32_t)(sl * es);
                s->dof = (int32_t)((c - j * B) * es);
                s->len = (int32_t)(take * es);
                memset(b->masks + (size_t)ns * (size_t)b->BB + (size_t)s->dof, 0xff,
                       (size_t)s->len);
                ns++;
                c += take;
            }
        }
    }
    b->seg0[b->dcb] = ns;
    b->nseg = ns;
    return true;
}

void lg__cc_rows_scalar(const lg__cc_blocked *b, const void *const *srcs, void *dst, int64_t n,
                        int64_t j, int64_t r0, int64_t r1) {
    const lg__cc_seg *s0 = b->segs + b->seg0[j], *s1 = b->segs + b->seg0[j + 1];
    int64_t cover = 0;
    for (const lg__cc_seg *s = s0; s < s1; s++) cover += s->len;
    uint8_t *d = (uint8_t *)dst + ((n * b->dcb + j) * b->R + r0) * b->BB;
    for (int64_t r = r0; r < r1; r++, d += b->BB) {
        if (cover < b->BB) memset(d, 0, (size_t)b->BB);
        for (const lg__cc_seg *s = s0; s < s1; s++)
            memcpy(d + s->dof, lg__cc_src_row(b, srcs, s, n, r) + s->so, (size_t)s->len);
    }
}
