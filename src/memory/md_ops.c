/* Operations on descriptors that keep the bytes where they are: views
 * (lg_md_submemory), axis permutation (lg_md_permute_axes) and reshape
 * (lg_md_reshape). Each builds the result in a local md and copies it out on
 * success, so out may alias the input. */
#include "memory/md.h"

#include <string.h>

/* The input md: present and valid in every field (lg__md_check). */
static lg_status check_md(const lg_md *md, const char *what, const char *where) {
    return lg__md_check(md, where, what);
}

lg_status lg_md_submemory(const lg_md *parent, const int64_t *dims, const int64_t *offsets,
                          lg_md *out) {
    return lg__md_submemory(parent, dims, offsets, out, "lg_md_submemory");
}

lg_status lg__md_submemory(const lg_md *parent, const int64_t *dims, const int64_t *offsets,
                           lg_md *out, const char *where) {
    LG_CHECK(check_md(parent, "parent", where));
    if (!dims || !offsets || !out)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL",
                         !dims      ? "dims"
                         : !offsets ? "offsets"
                                    : "out");
    if (parent->format_kind != LG_FMT_BLOCKED)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "parent is 'any': a view needs a concrete layout");
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(parent, blk);
    lg_md r = *parent;
    /* An empty view addresses nothing: it keeps parent's first element (a
     * dim of extent 1 in parent may carry any stride, so offset x stride
     * means nothing there). */
    bool empty = false;
    for (int d = 0; d < parent->ndims; d++) empty |= dims[d] == 0;
    for (int d = 0; d < parent->ndims; d++) {
        if (dims[d] < 0 || offsets[d] < 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "%s[%d] = %lld is negative",
                             dims[d] < 0 ? "dims" : "offsets", d,
                             (long long)(dims[d] < 0 ? dims[d] : offsets[d]));
        if (dims[d] > parent->dims[d] || offsets[d] > parent->dims[d] - dims[d])
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dim %d: offset %lld + extent %lld exceeds parent's %lld", d,
                             (long long)offsets[d], (long long)dims[d], (long long)parent->dims[d]);
        bool border = offsets[d] + dims[d] == parent->dims[d];
        if (blk[d] > 1 && offsets[d] % blk[d] != 0)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dim %d is blocked by %lld: offset %lld is not a multiple of it", d,
                             (long long)blk[d], (long long)offsets[d]);
        if (blk[d] > 1 && dims[d] % blk[d] != 0 && !border)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dim %d is blocked by %lld: extent %lld is not a multiple of it and "
                             "does not reach parent's end (%lld)",
                             d, (long long)blk[d], (long long)dims[d], (long long)parent->dims[d]);
        r.dims[d] = dims[d];
        /* At the border the view keeps parent's padding; elsewhere its
         * extent is whole blocks (or the dim is not blocked). */
        r.padded_dims[d] = border && blk[d] > 1 ? parent->padded_dims[d] - offsets[d] : dims[d];
        int64_t step;
        if (empty) continue;
        if (!lg__mul_ok(offsets[d] / blk[d], parent->blocking.strides[d], &step) ||
            !lg__add_ok(r.offset0, step, &r.offset0))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dim %d: offset %lld times stride %lld overflows", d,
                             (long long)offsets[d], (long long)parent->blocking.strides[d]);
    }
    /* A parent whose strides reach near INT64_MAX (a dim of extent 1 may
     * carry any stride) can give a view whose offset plus span overflows. */
    LG_CHECK(lg__md_check(&r, where, "the view"));
    lg__md_canon(&r, out);
    return LG_OK;
}

lg_status lg_md_permute_axes(const lg_md *md, const int *perm, lg_md *out) {
    static const char where[] = "lg_md_permute_axes";
    LG_CHECK(check_md(md, "md", where));
    if (!perm || !out)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL", !perm ? "perm" : "out");
    int n = md->ndims;
    bool seen[LG_MAX_NDIMS] = {false};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n)
            return lg__error(LG_INVALID_ARGUMENT, where, "perm[%d] = %d is outside 0..%d", i,
                             perm[i], n - 1);
        if (seen[perm[i]])
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "perm[%d] = %d appears twice: not a permutation", i, perm[i]);
        seen[perm[i]] = true;
    }
    lg_md r = *md;
    for (int i = 0; i < n; i++) {
        r.dims[perm[i]] = md->dims[i];
        r.padded_dims[perm[i]] = md->padded_dims[i];
        r.blocking.strides[perm[i]] = md->blocking.strides[i];
    }
    if (md->format_kind == LG_FMT_BLOCKED)
        for (int k = 0; k < md->blocking.inner_nblks; k++)
            r.blocking.inner_idxs[k] = perm[md->blocking.inner_idxs[k]];
    lg__md_canon(&r, out);
    return LG_OK;
}

/* Reshape of an empty md: any shape with no elements, dense row-major. */
static lg_status reshape_empty(const lg_md *md, int ndims, const int64_t *dims, lg_md *out,
                               const char *where) {
    if (md->format_kind == LG_FMT_BLOCKED && md->blocking.inner_nblks > 0)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "an empty md with inner blocks cannot be reshaped without a copy");
    lg_md r;
    memset(&r, 0, sizeof r);
    r.ndims = ndims;
    r.dtype = md->dtype;
    r.format_kind = md->format_kind;
    int64_t s = 1;
    for (int d = ndims - 1; d >= 0; d--) {
        r.dims[d] = r.padded_dims[d] = dims[d];
        if (md->format_kind == LG_FMT_BLOCKED) r.blocking.strides[d] = s;
        s *= dims[d] ? dims[d] : 1;
    }
    r.offset0 = md->format_kind == LG_FMT_BLOCKED ? md->offset0 : 0;
    lg__md_canon(&r, out);
    return LG_OK;
}

/* One group of a reshape: input dims in[0..nin) (in order, size-1 dims left
 * out) map onto output dims [o0, o1] of the same element count. Sets the
 * group's output strides (and moves the blocks of an untouched dim), or
 * fails when the group would need a copy. */
static lg_status map_group(const lg_md *md, const int64_t *blk, const int *in, int nin,
                           const int64_t *dims, int o0, int o1, lg_md *r, const char *where) {
    int last = in[nin - 1];
    if (nin == 1 && o0 == o1) { /* untouched: keep blocks and padding */
        r->padded_dims[o0] = md->padded_dims[last];
        r->blocking.strides[o0] = md->blocking.strides[last];
        for (int k = 0; k < md->blocking.inner_nblks; k++)
            if (md->blocking.inner_idxs[k] == last) r->blocking.inner_idxs[k] = o0;
        return LG_OK;
    }
    for (int k = 0; k < nin; k++)
        if (blk[in[k]] > 1)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "dim %d is blocked: it must stay one dim of the same size", in[k]);
    for (int k = 0; k + 1 < nin; k++) {
        int a = in[k], b = in[k + 1];
        if (md->blocking.strides[a] != md->blocking.strides[b] * md->dims[b])
            return lg__error(LG_UNIMPLEMENTED, where,
                             "dims %d and %d are not contiguous (stride %lld, not %lld x %lld): "
                             "merging or splitting them needs a copy",
                             a, b, (long long)md->blocking.strides[a],
                             (long long)md->blocking.strides[b], (long long)md->dims[b]);
    }
    int64_t s = md->blocking.strides[last];
    for (int o = o1; o >= o0; o--) {
        r->padded_dims[o] = dims[o];
        r->blocking.strides[o] = s;
        s *= dims[o];
    }
    return LG_OK;
}

lg_status lg_md_reshape(const lg_md *md, int ndims, const int64_t *dims, lg_md *out) {
    static const char where[] = "lg_md_reshape";
    LG_CHECK(check_md(md, "md", where));
    if (!dims || !out)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL", !dims ? "dims" : "out");
    if (ndims < 1 || ndims > LG_MAX_NDIMS)
        return lg__error(LG_INVALID_ARGUMENT, where, "ndims %d is outside 1..%d", ndims,
                         LG_MAX_NDIMS);
    int64_t n_in = lg__md_nelems(md), n_out = 1;
    bool empty = false;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "dims[%d] = %lld is negative", d,
                             (long long)dims[d]);
        if (dims[d] == 0)
            empty = true;
        else if (!lg__mul_ok(n_out, dims[d], &n_out))
            return lg__error(LG_INVALID_ARGUMENT, where, "element count overflows int64");
    }
    if (empty) n_out = 0;
    if (n_in != n_out)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "md has %lld elements, the new dims %lld: a reshape keeps the count",
                         (long long)n_in, (long long)n_out);
    if (n_in == 0) return reshape_empty(md, ndims, dims, out, where);

    lg_md r;
    memset(&r, 0, sizeof r);
    r.ndims = ndims;
    r.dtype = md->dtype;
    r.format_kind = md->format_kind;
    for (int d = 0; d < ndims; d++) r.dims[d] = r.padded_dims[d] = dims[d];
    if (md->format_kind == LG_FMT_ANY) {
        lg__md_canon(&r, out);
        return LG_OK;
    }
    r.offset0 = md->offset0;
    r.blocking.inner_nblks = md->blocking.inner_nblks;
    for (int k = 0; k < md->blocking.inner_nblks; k++) {
        r.blocking.inner_blks[k] = md->blocking.inner_blks[k];
        r.blocking.inner_idxs[k] = -1;
    }
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(md, blk);
    bool done[LG_MAX_NDIMS] = {false};
    /* Walk both shapes: input dims of size 1 (unblocked) take no part; each
     * group of input dims and output dims with equal products maps as one. */
    int i = 0, o = 0;
    for (;;) {
        while (i < md->ndims && md->dims[i] == 1 && blk[i] == 1) i++;
        if (i == md->ndims) break;
        /* A size-1 output dim starts a group only for a size-1 blocked input. */
        while (o < ndims && dims[o] == 1 && md->dims[i] != 1) o++;
        if (o == ndims)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "blocked dim %d of size 1 has no output dim to keep its block", i);
        int in[LG_MAX_NDIMS], nin = 0, o0 = o;
        int64_t pin = md->dims[i], pout = dims[o];
        in[nin++] = i++;
        while (pin != pout) {
            if (pin < pout) {
                while (i < md->ndims && md->dims[i] == 1 && blk[i] == 1) i++;
                pin *= md->dims[i];
                in[nin++] = i++;
            } else {
                pout *= dims[++o];
            }
        }
        LG_CHECK(map_group(md, blk, in, nin, dims, o0, o, &r, where));
        for (int k = o0; k <= o; k++) done[k] = true;
        o++;
    }
    for (int k = 0; k < r.blocking.inner_nblks; k++)
        if (r.blocking.inner_idxs[k] < 0)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "blocked dim %d has no output dim of the same size",
                             md->blocking.inner_idxs[k]);
    /* The remaining output dims have size 1: strides as a dense layout
     * would give them (their value never changes an address). */
    int64_t oblk[LG_MAX_NDIMS];
    lg__md_dim_blocks(&r, oblk);
    for (int d = ndims - 1; d >= 0; d--)
        if (!done[d])
            r.blocking.strides[d] =
                d + 1 < ndims ? r.blocking.strides[d + 1] * (r.padded_dims[d + 1] / oblk[d + 1])
                              : 1;
    lg__md_canon(&r, out);
    return LG_OK;
}
