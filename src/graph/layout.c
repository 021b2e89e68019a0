/* Layout helpers the strategies and node hooks share. */
#include "graph/graph.h"

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

lg_status lg__layout_all_plain(lg__graph *ir, int n) {
    lg__node *node = &ir->nodes[n];
    for (int i = 0; i < node->nin; i++) lg__md_plain(&ir->vals[node->in[i]].md, &node->in_md[i]);
    lg__md_plain(&ir->vals[node->out].md, &ir->vals[node->out].md);
    return LG_OK;
}

lg_status lg__layout_keep(lg__graph *ir, int n) {
    lg__node *node = &ir->nodes[n];
    for (int i = 0; i < node->nin; i++) {
        const lg_md *v = &ir->vals[node->in[i]].md;
        if (lg__md_dense_concrete(v))
            node->in_md[i] = *v;
        else
            lg__md_plain(v, &node->in_md[i]);
    }
    lg_md out;
    lg__md_like(&node->in_md[0], &ir->vals[node->out].md, &out);
    ir->vals[node->out].md = out;
    return LG_OK;
}
