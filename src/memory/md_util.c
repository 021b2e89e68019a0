/* Descriptor helpers for the rest of the library: canonical copies (cache
 * keys) and short descriptions (messages, verbose lines). */
#include "memory/md.h"

#include <stdio.h>
#include <string.h>

void lg__md_canon(const lg_md *in, lg_md *out) {
    lg_md copy = *in; /* out may be in */
    const lg_md *md = &copy;
    memset(out, 0, sizeof *out);
    out->ndims = md->ndims;
    out->dtype = md->dtype;
    out->format_kind = md->format_kind;
    for (int d = 0; d < md->ndims; d++) {
        out->dims[d] = md->dims[d];
        out->padded_dims[d] = md->padded_dims[d];
    }
    if (md->format_kind != LG_FMT_BLOCKED) return;
    out->offset0 = md->offset0;
    for (int d = 0; d < md->ndims; d++) out->blocking.strides[d] = md->blocking.strides[d];
    out->blocking.inner_nblks = md->blocking.inner_nblks;
    for (int i = 0; i < md->blocking.inner_nblks; i++) {
        out->blocking.inner_blks[i] = md->blocking.inner_blks[i];
        out->blocking.inner_idxs[i] = md->blocking.inner_idxs[i];
    }
}

void lg__md_describe(const lg_md *md, char *buf, size_t len) {
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(md, tag)) snprintf(tag, sizeof tag, "strided");
    int n = snprintf(buf, len, "%s:%s:", lg_dtype_str(md->dtype), tag);
    for (int d = 0; d < md->ndims && n > 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, d ? "x%lld" : "%lld", (long long)md->dims[d]);
}
