/* Layout helpers the strategies and node hooks share. */
#include "graph/graph.h"
#include "primitives/cpu.h"

#include <string.h>

void lg__md_plain(const lg_md *like, lg_md *out) {
    lg_md md;
    /* Cannot fail: like's dims and type come from a valid md. */
    if (lg_md_init_strides(&md, like->ndims, like->dims, like->dtype, NULL) != LG_OK) md = *like;
    lg__md_canon(&md, out);
}

bool lg__md_dense_concrete(const lg_md *md) {
    return md->format_kind == LG_FMT_BLOCKED && lg__md_is_dense(md);
}

void lg__md_like(const lg_md *layout, const lg_md *shape, lg_md *out) {
    char tag[LG_TAG_MAX * 2];
    lg_md md;
    if (layout->ndims == shape->ndims && lg__md_dense_concrete(layout) &&
        lg__md_tag_str(layout, tag) &&
        lg_md_init_tag(&md, shape->ndims, shape->dims, shape->dtype, tag) == LG_OK) {
        lg__md_canon(&md, out);
        return;
    }
    /* Dense without a tag: an empty tensor with strides (found by fuzzing:
     * the plain fallback made an eltwise's dst differ from its src). Its
     * strides suit any tensor of the same dims. */
    bool same = layout->ndims == shape->ndims && lg__md_dense_concrete(layout);
    for (int d = 0; same && d < shape->ndims; d++) same = layout->dims[d] == shape->dims[d];
    if (same) {
        md = *layout;
        md.dtype = shape->dtype;
        lg__md_canon(&md, out);
        return;
    }
    lg__md_plain(shape, out);
}

int lg__layouts_of(const lg_md *shape, lg_md out[3]) {
    lg__md_plain(shape, &out[0]);
    int nd = shape->ndims;
    if (nd < 3 || nd > 5 || shape->dims[1] < 2) return 1;
    static const char *last[] = {"acb", "acdb", "acdeb"};
    static const char *blk[] = {"aBc%db", "aBcd%db", "aBcde%db"};
    char tag[32];
    snprintf(tag, sizeof tag, blk[nd - 3], lg__cpu_isa() >= LG_ISA_AVX512 ? 16 : 8);
    int k = 1;
    lg_md md;
    if (lg_md_init_tag(&md, nd, shape->dims, shape->dtype, last[nd - 3]) == LG_OK)
        lg__md_canon(&md, &out[k++]);
    if (lg_md_init_tag(&md, nd, shape->dims, shape->dtype, tag) == LG_OK)
        lg__md_canon(&md, &out[k++]);
    return k;
}

lg_status lg__layout_all_plain(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    for (int i = 0; i < node->nin; i++) lg__md_plain(&in[i], &read[i]);
    lg__md_plain(out, out);
    return LG_OK;
}

lg_status lg__layout_keep(const lg__node *node, const lg_md *in, lg_md *read, lg_md *out) {
    for (int i = 0; i < node->nin; i++) {
        if (lg__md_dense_concrete(&in[i]))
            read[i] = in[i];
        else
            lg__md_plain(&in[i], &read[i]);
    }
    lg_md md;
    lg__md_like(&read[0], out, &md);
    *out = md;
    return LG_OK;
}

int lg__candidates_same_layout(const lg__node *node, const lg_md *in, const lg_md *out,
                               lg__layout_cfg *cfg) {
    lg_md lo[3];
    int no = lg__layouts_of(out, lo), k = 0;
    for (int a = 0; a < no; a++) {
        lg__layout_cfg c;
        memset(&c, 0, sizeof c);
        c.out = lo[a];
        lg__md_like(&lo[a], &in[0], &c.in[0]);
        if (node->nin < 2) {
            cfg[k++] = c;
            continue;
        }
        lg_md lb[3];
        int nb = 1;
        lg__md_like(&lo[a], &in[1], &lb[0]);
        for (int d = 0; d < in[1].ndims; d++)
            if (in[1].dims[d] != out->dims[d]) nb = lg__layouts_of(&in[1], lb); /* broadcast */
        for (int i = 0; i < nb; i++) {
            c.in[1] = lb[i];
            cfg[k++] = c;
        }
    }
    return k;
}
