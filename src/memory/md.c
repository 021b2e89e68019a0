/* Memory descriptors: construction from tags and strides, sizes, offsets,
 * equality and the canonical tag. */
#include "memory/md.h"

#include <stdio.h>
#include <string.h>

/* Why md is not a valid descriptor (a static phrase plus the field, into
 * why[len]), or true if it is. Every field any function reads is checked, so
 * a hand-filled md with nonsense in it is refused rather than followed:
 * ndims, dtype, format kind, dims; for a blocked md the inner blocks (count,
 * dims they split, sizes), padded dims (dims rounded up to the blocks),
 * strides and offset0 (not negative), every size in int64 bytes, and every
 * element of the padded tensor inside the buffer lg_md_size reports. */
static bool md_valid(const lg_md *md, char *why, size_t len) {
#define BAD(...) (why ? (void)snprintf(why, len, __VA_ARGS__) : (void)0, false)
    if (md->ndims == 0 && md->format_kind == LG_FMT_UNDEF)
        return BAD("not initialised (ndims 0, format_kind undef)");
    if (md->ndims < 1 || md->ndims > LG_MAX_NDIMS)
        return BAD("ndims %d is outside 1..%d", md->ndims, LG_MAX_NDIMS);
    int nd = md->ndims;
    if (lg_dtype_size(md->dtype) == 0) return BAD("dtype %d is not an lg_dtype", (int)md->dtype);
    if (md->format_kind != LG_FMT_ANY && md->format_kind != LG_FMT_BLOCKED)
        return BAD("format_kind %d is neither 'any' nor blocked", (int)md->format_kind);
    int64_t n = (int64_t)lg_dtype_size(md->dtype);
    for (int d = 0; d < nd; d++) {
        if (md->dims[d] < 0) return BAD("dims[%d] = %lld is negative", d, (long long)md->dims[d]);
        if (!lg__mul_ok(n, md->dims[d] ? md->dims[d] : 1, &n))
            return BAD("the byte size of dims overflows int64");
    }
    if (md->format_kind == LG_FMT_ANY) return true;
    const int nb = md->blocking.inner_nblks;
    if (nb < 0 || nb > LG_MAX_NDIMS)
        return BAD("blocking.inner_nblks %d is outside 0..%d", nb, LG_MAX_NDIMS);
    int64_t blk[LG_MAX_NDIMS], inner = 1;
    for (int d = 0; d < nd; d++) blk[d] = 1;
    for (int i = 0; i < nb; i++) {
        int d = md->blocking.inner_idxs[i];
        int64_t b = md->blocking.inner_blks[i];
        if (d < 0 || d >= nd)
            return BAD("blocking.inner_idxs[%d] = %d is outside 0..%d", i, d, nd - 1);
        if (b < 1) return BAD("blocking.inner_blks[%d] = %lld is not positive", i, (long long)b);
        if (!lg__mul_ok(blk[d], b, &blk[d]) || !lg__mul_ok(inner, b, &inner))
            return BAD("the product of blocking.inner_blks overflows int64");
    }
    if (md->offset0 < 0) return BAD("offset0 = %lld is negative", (long long)md->offset0);
    /* The largest offset of the padded tensor, + 1, must fit in the span. */
    int64_t last = md->offset0, span = 0;
    bool empty = false;
    for (int d = 0; d < nd; d++) {
        int64_t up, s = md->blocking.strides[d], t;
        if (!lg__add_ok(md->dims[d], blk[d] - 1, &up) || md->padded_dims[d] != up / blk[d] * blk[d])
            return BAD("padded_dims[%d] = %lld is not dims[%d] = %lld rounded up to its blocks "
                       "(%lld)",
                       d, (long long)md->padded_dims[d], d, (long long)md->dims[d],
                       (long long)blk[d]);
        if (s < 0) return BAD("blocking.strides[%d] = %lld is negative", d, (long long)s);
        int64_t extent = md->padded_dims[d] / blk[d];
        empty = empty || extent == 0;
        if (extent == 0) continue;
        if (!lg__mul_ok(s, extent - 1, &t) || !lg__add_ok(last, t, &last) ||
            !lg__mul_ok(s, extent, &t))
            return BAD("blocking.strides[%d] = %lld times the extent overflows int64", d,
                       (long long)s);
        if (t > span) span = t;
    }
    /* An empty tensor has no element, but kernels still move base pointers
     * by offset0: its byte offset must fit as every other size does. */
    int64_t off_bytes;
    if (!lg__mul_ok(md->offset0, (int64_t)lg_dtype_size(md->dtype), &off_bytes))
        return BAD("offset0 = %lld elements overflows int64 in bytes", (long long)md->offset0);
    if (empty) return true;
    /* No two elements share an address: along the stride order, each outer
     * dim of extent > 1 starts past the whole extent of the one inside it
     * (the innermost past the inner blocks), as lg_md_init_strides asks. */
    int64_t ext[LG_MAX_NDIMS], str[LG_MAX_NDIMS];
    int no = 0;
    for (int d = 0; d < nd; d++) {
        int64_t e = md->padded_dims[d] / blk[d];
        if (e <= 1) continue;
        int i = no++;
        for (; i > 0 && str[i - 1] > md->blocking.strides[d]; i--) {
            str[i] = str[i - 1];
            ext[i] = ext[i - 1];
        }
        str[i] = md->blocking.strides[d];
        ext[i] = e;
    }
    int64_t in_span = inner;
    for (int i = 0; i < no; i++) {
        if (str[i] < in_span)
            return BAD("blocking.strides overlap: stride %lld lies inside the %lld elements of the "
                       "dims within it",
                       (long long)str[i], (long long)in_span);
        in_span = str[i] * ext[i]; /* fits: checked above */
    }
    if (inner > span) span = inner;
    int64_t bytes;
    if (!lg__add_ok(last, inner - 1, &last) || !lg__add_ok(span, md->offset0, &span) ||
        !lg__mul_ok(span, (int64_t)lg_dtype_size(md->dtype), &bytes))
        return BAD("the buffer size overflows int64");
    if (last >= span)
        return BAD("blocking.strides overlap: element offset %lld lies past the %lld elements of "
                   "the buffer",
                   (long long)last, (long long)span);
    return true;
#undef BAD
}

bool lg__md_ok(const lg_md *md) {
    return md && md_valid(md, NULL, 0);
}

lg_status lg__md_check(const lg_md *md, const char *where, const char *what) {
    if (!md) return lg__error(LG_INVALID_ARGUMENT, where, "%s is NULL", what);
    char why[160];
    if (!md_valid(md, why, sizeof why))
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is %s%s", what,
                         strncmp(why, "not initialised", 15) ? "invalid: " : "", why);
    return LG_OK;
}

void lg__md_dim_blocks(const lg_md *md, int64_t *blk) {
    for (int d = 0; d < md->ndims; d++) blk[d] = 1;
    if (md->format_kind != LG_FMT_BLOCKED) return;
    for (int i = 0; i < md->blocking.inner_nblks; i++)
        blk[md->blocking.inner_idxs[i]] *= md->blocking.inner_blks[i];
}

int64_t lg__md_nelems(const lg_md *md) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++) n *= md->dims[d];
    return n;
}

/* Elements the buffer spans (without offset0), from the outer strides; 0 for
 * an empty tensor. Valid mds never overflow here (checked at init). */
static int64_t span_elems(const lg_md *md) {
    int64_t blk[LG_MAX_NDIMS], span = 0, inner = 1;
    lg__md_dim_blocks(md, blk);
    for (int d = 0; d < md->ndims; d++) {
        if (md->dims[d] == 0) return 0;
        int64_t extent = md->padded_dims[d] / blk[d];
        int64_t s = md->blocking.strides[d] * extent;
        if (s > span) span = s;
    }
    for (int i = 0; i < md->blocking.inner_nblks; i++) inner *= md->blocking.inner_blks[i];
    return span > inner ? span : inner;
}

/* One past the offset of the last element (padding included), offset0 left
 * out; 0 for an empty tensor. */
static int64_t last_elem_end(const lg_md *md) {
    int64_t blk[LG_MAX_NDIMS], end = 1;
    lg__md_dim_blocks(md, blk);
    for (int d = 0; d < md->ndims; d++) {
        if (md->dims[d] == 0) return 0;
        end += (md->padded_dims[d] / blk[d] - 1) * md->blocking.strides[d];
    }
    int64_t inner = 1;
    for (int i = 0; i < md->blocking.inner_nblks; i++) inner *= md->blocking.inner_blks[i];
    return end - 1 + inner;
}

int64_t lg__md_nelems_padded(const lg_md *md) {
    if (!lg__md_ok(md) || md->format_kind != LG_FMT_BLOCKED) return 0;
    int64_t span = span_elems(md);
    if (!span) return 0;
    /* The larger of the outer-stride span (which a view's parent always
     * covers) and a view's end at its last element (inside its parent). */
    int64_t end = md->offset0 + last_elem_end(md);
    return end > span ? end : span;
}

size_t lg_md_size(const lg_md *md) {
    return (size_t)lg__md_nelems_padded(md) * (md && lg__md_ok(md) ? lg_dtype_size(md->dtype) : 0);
}

bool lg__md_has_padding(const lg_md *md) {
    for (int d = 0; d < md->ndims; d++)
        if (md->padded_dims[d] != md->dims[d]) return true;
    return false;
}

bool lg__md_is_dense(const lg_md *md) {
    if (md->format_kind != LG_FMT_BLOCKED || md->offset0 != 0) return false;
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++) n *= md->padded_dims[d];
    return n == span_elems(md);
}

int64_t lg__md_off(const lg_md *md, const int64_t *idx) {
    int64_t blk[LG_MAX_NDIMS], div[LG_MAX_NDIMS];
    lg__md_dim_blocks(md, blk);
    int64_t off = md->offset0;
    for (int d = 0; d < md->ndims; d++) {
        off += (idx[d] / blk[d]) * md->blocking.strides[d];
        div[d] = 1;
    }
    int64_t mult = 1;
    for (int i = md->blocking.inner_nblks - 1; i >= 0; i--) {
        int d = md->blocking.inner_idxs[i];
        int64_t b = md->blocking.inner_blks[i];
        off += ((idx[d] / div[d]) % b) * mult;
        div[d] *= b;
        mult *= b;
    }
    return off;
}

int64_t lg_md_offset(const lg_md *md, const int64_t *idx) {
    if (!md || !idx || !lg__md_ok(md) || md->format_kind != LG_FMT_BLOCKED) return -1;
    for (int d = 0; d < md->ndims; d++)
        if (idx[d] < 0 || idx[d] >= md->dims[d]) return -1;
    return lg__md_off(md, idx);
}

bool lg_md_is_any(const lg_md *md) {
    return md && md->format_kind == LG_FMT_ANY;
}

/* Checks shared by both constructors: pointers, ndims, dims, dtype. */
static lg_status check_common(const lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                              const char *where) {
    if (!md) return lg__error(LG_INVALID_ARGUMENT, where, "md is NULL");
    if (!dims) return lg__error(LG_INVALID_ARGUMENT, where, "dims is NULL");
    if (ndims < 1 || ndims > LG_MAX_NDIMS)
        return lg__error(LG_INVALID_ARGUMENT, where, "ndims %d is outside 1..%d", ndims,
                         LG_MAX_NDIMS);
    for (int d = 0; d < ndims; d++)
        if (dims[d] < 0)
            return lg__error(LG_INVALID_ARGUMENT, where, "dims[%d] = %lld is negative", d,
                             (long long)dims[d]);
    if (lg_dtype_size(dt) == 0)
        return lg__error(LG_INVALID_ARGUMENT, where, "unknown data type %d", (int)dt);
    return LG_OK;
}

/* Check that `elems` elements of dt (and the logical element count) fit. */
static lg_status check_bytes(int64_t elems, lg_dtype dt, const int64_t *dims, int ndims,
                             const char *where, const char *from) {
    int64_t bytes, n = 1;
    for (int d = 0; d < ndims; d++)
        if (!lg__mul_ok(n, dims[d] ? dims[d] : 1, &n))
            return lg__error(LG_INVALID_ARGUMENT, where, "dims: the element count overflows int64");
    if (!lg__mul_ok(elems, (int64_t)lg_dtype_size(dt), &bytes))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "%s: the byte size overflows int64 (%lld elements of %s)", from,
                         (long long)elems, lg_dtype_str(dt));
    return LG_OK;
}

/* Fill the blocking of r (ndims, dims, dtype already set) from a parsed tag:
 * blocks, padded dims, dense strides. Overflow errors name `where` (NULL:
 * quiet). */
static lg_status build_from_tag(lg_md *r, const lg__tag *t, const char *where) {
    int ndims = r->ndims;
    r->format_kind = LG_FMT_BLOCKED;
    int64_t blk[LG_MAX_NDIMS], inner = 1;
    for (int d = 0; d < ndims; d++) blk[d] = 1;
    for (int i = 0; i < t->nblks; i++) {
        if (!lg__mul_ok(blk[t->blk_dims[i]], t->blks[i], &blk[t->blk_dims[i]]) ||
            !lg__mul_ok(inner, t->blks[i], &inner))
            return lg__error(LG_INVALID_ARGUMENT, where, "tag: block sizes overflow int64");
        r->blocking.inner_blks[i] = t->blks[i];
        r->blocking.inner_idxs[i] = t->blk_dims[i];
    }
    r->blocking.inner_nblks = t->nblks;
    for (int d = 0; d < ndims; d++) {
        int64_t padded;
        if (!lg__add_ok(r->dims[d], blk[d] - 1, &padded))
            return lg__error(LG_INVALID_ARGUMENT, where, "padded dims[%d] overflows", d);
        r->padded_dims[d] = padded / blk[d] * blk[d];
    }
    /* Dense strides: innermost outer dim first; an extent of 0 counts as 1 so
     * that an empty tensor still has meaningful strides. */
    int64_t s = inner;
    for (int i = ndims - 1; i >= 0; i--) {
        int d = t->order[i];
        r->blocking.strides[d] = s;
        int64_t extent = r->padded_dims[d] / blk[d];
        if (!lg__mul_ok(s, extent ? extent : 1, &s))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dims padded to the tag's blocks: the element count overflows int64");
    }
    return check_bytes(s, r->dtype, r->dims, ndims, where, "dims");
}

lg_status lg_md_init_tag(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt, const char *tag) {
    return lg__md_init_tag(md, ndims, dims, dt, tag, "lg_md_init_tag");
}

lg_status lg__md_init_tag(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt, const char *tag,
                          const char *where) {
    LG_CHECK(check_common(md, ndims, dims, dt, where));
    if (!tag) return lg__error(LG_INVALID_ARGUMENT, where, "tag is NULL");
    lg_md r;
    memset(&r, 0, sizeof r);
    r.ndims = ndims;
    r.dtype = dt;
    for (int d = 0; d < ndims; d++) r.dims[d] = r.padded_dims[d] = dims[d];
    if (strcmp(tag, "any") == 0) {
        LG_CHECK(check_bytes(1, dt, dims, ndims, where, "dims")); /* the element count fits */
        int64_t n = 1;
        for (int d = 0; d < ndims; d++) n *= dims[d] ? dims[d] : 1;
        LG_CHECK(check_bytes(n, dt, dims, ndims, where, "dims")); /* and so do its bytes */
        r.format_kind = LG_FMT_ANY;
        *md = r;
        return LG_OK;
    }
    lg__tag t;
    LG_CHECK(lg__tag_parse(tag, ndims, &t, where));
    LG_CHECK(build_from_tag(&r, &t, where));
    *md = r;
    return LG_OK;
}

/* Order dims by decreasing stride; ties put the dim of extent > 1 first (an
 * extent-1 dim shares its stride with the dim outside it), then by index. */
static void order_by_stride(const lg_md *md, int *order) {
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(md, blk);
    int n = md->ndims;
    for (int d = 0; d < n; d++) order[d] = d;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j];
            int64_t sa = md->blocking.strides[a], sb = md->blocking.strides[b];
            bool big_a = md->padded_dims[a] / blk[a] > 1, big_b = md->padded_dims[b] / blk[b] > 1;
            bool swap = sb > sa || (sb == sa && big_b && !big_a);
            if (!swap) break;
            order[j - 1] = b;
            order[j] = a;
        }
}

lg_status lg_md_init_strides(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                             const int64_t *strides) {
    static const char where[] = "lg_md_init_strides";
    LG_CHECK(check_common(md, ndims, dims, dt, where));
    lg_md r;
    memset(&r, 0, sizeof r);
    r.ndims = ndims;
    r.dtype = dt;
    r.format_kind = LG_FMT_BLOCKED;
    int64_t s = 1;
    for (int d = ndims - 1; d >= 0; d--) {
        r.dims[d] = r.padded_dims[d] = dims[d];
        if (strides) {
            if (strides[d] < 0)
                return lg__error(LG_INVALID_ARGUMENT, where, "strides[%d] = %lld is negative", d,
                                 (long long)strides[d]);
            r.blocking.strides[d] = strides[d];
        } else {
            r.blocking.strides[d] = s;
            if (!lg__mul_ok(s, dims[d] ? dims[d] : 1, &s))
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "dims: the element count overflows int64");
        }
    }
    /* Non-overlap: along the stride order, each dim of extent > 1 must start
     * past the whole extent of the next one inside it. */
    int order[LG_MAX_NDIMS];
    order_by_stride(&r, order);
    int inner = -1;
    int64_t span = 1;
    for (int i = ndims - 1; i >= 0; i--) {
        int d = order[i];
        if (dims[d] <= 1) continue;
        if (inner >= 0 && r.blocking.strides[d] < span)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "strides overlap: dim %d (stride %lld) is inside the extent of dim "
                             "%d (stride %lld x %lld)",
                             d, (long long)r.blocking.strides[d], inner,
                             (long long)r.blocking.strides[inner], (long long)dims[inner]);
        if (r.blocking.strides[d] == 0)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "strides overlap: dim %d has extent %lld and stride 0", d,
                             (long long)dims[d]);
        if (!lg__mul_ok(r.blocking.strides[d], dims[d], &span))
            return lg__error(LG_INVALID_ARGUMENT, where, "strides x dims overflow int64");
        inner = d;
    }
    int64_t total = 1;
    for (int d = 0; d < ndims; d++) {
        int64_t e;
        if (!lg__mul_ok(r.blocking.strides[d], dims[d] ? dims[d] : 1, &e))
            return lg__error(LG_INVALID_ARGUMENT, where, "strides x dims overflow int64");
        if (e > total) total = e;
    }
    LG_CHECK(check_bytes(total, dt, dims, ndims, where, strides ? "strides x dims" : "dims"));
    *md = r;
    return LG_OK;
}

bool lg_md_equal(const lg_md *a, const lg_md *b) {
    if (!a || !b || !lg__md_ok(a) || !lg__md_ok(b)) return false;
    if (a->ndims != b->ndims || a->dtype != b->dtype || a->format_kind != b->format_kind)
        return false;
    for (int d = 0; d < a->ndims; d++)
        if (a->dims[d] != b->dims[d]) return false;
    if (a->format_kind == LG_FMT_ANY) return true;
    if (a->offset0 != b->offset0 || a->blocking.inner_nblks != b->blocking.inner_nblks)
        return false;
    for (int i = 0; i < a->blocking.inner_nblks; i++)
        if (a->blocking.inner_blks[i] != b->blocking.inner_blks[i] ||
            a->blocking.inner_idxs[i] != b->blocking.inner_idxs[i])
            return false;
    /* Same blocks, so same per-dim block products; a stride only matters
     * where the outer extent exceeds 1 (the same bytes in the same places). */
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(a, blk);
    for (int d = 0; d < a->ndims; d++) {
        if (a->padded_dims[d] != b->padded_dims[d]) return false;
        if (a->padded_dims[d] / blk[d] > 1 && a->blocking.strides[d] != b->blocking.strides[d])
            return false;
    }
    return true;
}

/* The canonical tag of a valid md into tag (LG_TAG_MAX * 2 bytes); false if
 * no tag expresses the layout. Sets no error. */
bool lg__md_tag_str(const lg_md *md, char *tag) {
    if (md->format_kind != LG_FMT_BLOCKED) {
        strcpy(tag, "any");
        return true;
    }
    int order[LG_MAX_NDIMS], n = 0;
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(md, blk);
    order_by_stride(md, order);
    for (int i = 0; i < md->ndims; i++) {
        int d = order[i];
        tag[n++] = (char)((blk[d] > 1 ? 'A' : 'a') + d);
    }
    for (int i = 0; i < md->blocking.inner_nblks && n < LG_TAG_MAX; i++)
        n += snprintf(tag + n, (size_t)(LG_TAG_MAX * 2 - n), "%lld%c",
                      (long long)md->blocking.inner_blks[i], 'a' + md->blocking.inner_idxs[i]);
    tag[n] = '\0';
    /* The tag must describe exactly this layout: rebuild and compare. */
    lg__tag t;
    if (strlen(tag) > LG_TAG_MAX || lg__tag_parse(tag, md->ndims, &t, NULL) != LG_OK) return false;
    lg_md back;
    memset(&back, 0, sizeof back);
    back.ndims = md->ndims;
    back.dtype = md->dtype;
    for (int d = 0; d < md->ndims; d++) back.dims[d] = md->dims[d];
    return build_from_tag(&back, &t, NULL) == LG_OK && lg_md_equal(&back, md);
}

lg_status lg_md_tag(const lg_md *md, char *buf, size_t len) {
    static const char where[] = "lg_md_tag";
    if (!md || !buf) return lg__error(LG_INVALID_ARGUMENT, where, "md or buf is NULL");
    LG_CHECK(lg__md_check(md, where, "md"));
    char tag[LG_TAG_MAX * 2];
    if (!lg__md_tag_str(md, tag))
        return lg__error(LG_UNIMPLEMENTED, where,
                         "the layout has gaps or an offset; no tag expresses it");
    if (strlen(tag) + 1 > len)
        return lg__error(LG_INVALID_ARGUMENT, where, "buffer of %zu bytes is too small for '%s'",
                         len, tag);
    memcpy(buf, tag, strlen(tag) + 1);
    return LG_OK;
}
