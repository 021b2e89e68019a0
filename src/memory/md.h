/* Internal view of memory descriptors: the parsed form of a tag and the
 * helpers kernels use to walk a layout. */
#ifndef LG_MEMORY_MD_H
#define LG_MEMORY_MD_H

#include "common/common.h"

/* Longest tag string accepted (a longer one is invalid). */
#define LG_TAG_MAX 128

/* A tag in generic form: the order of the outer dims (outermost first) and
 * the inner blocks (outermost first). */
typedef struct lg__tag {
    int ndims;
    int order[LG_MAX_NDIMS];
    int nblks;
    int64_t blks[LG_MAX_NDIMS];
    int blk_dims[LG_MAX_NDIMS];
} lg__tag;

/* Parse `tag` (generic, with "x" shorthand, or a domain alias; not "any")
 * for a tensor of `ndims` dims. On error sets lg_last_error, naming `where`,
 * and returns LG_INVALID_ARGUMENT. */
LG_INTERNAL lg_status lg__tag_parse(const char *tag, int ndims, lg__tag *out, const char *where);

/* Translate a domain alias ("nChw16c", "OIhw16i16o", "x") into its generic
 * tag in buf (size LG_TAG_MAX + 1), and its ndims. Returns false if `tag` is
 * not an alias; *why then says what is wrong with it. */
LG_INTERNAL bool lg__alias_to_generic(const char *tag, char *buf, int *ndims, const char **why);

/* True if md is a valid descriptor: every field checked (see lg__md_check),
 * so that a hand-filled md can be followed without reading or writing out of
 * bounds. Sets no error. */
LG_INTERNAL bool lg__md_ok(const lg_md *md);

/* The check every public function taking an lg_md makes: LG_OK, or
 * LG_INVALID_ARGUMENT with "where: what is ..." naming the field at fault (a
 * NULL md, ndims, dtype, format kind, a negative dim, inner blocks and their
 * dims, padded dims, strides, offset0, sizes overflowing int64, strides
 * placing an element past the buffer's size). */
LG_INTERNAL lg_status lg__md_check(const lg_md *md, const char *where, const char *what);

/* Product of the inner blocks on each dim (1 where none), into blk[ndims]. */
LG_INTERNAL void lg__md_dim_blocks(const lg_md *md, int64_t *blk);

/* The alignment rule for the caller's buffers (include/lgraph.h): a buffer
 * must be aligned to its element size (1-byte types: any address). True if
 * p, a buffer of elements of `elt` bytes, follows it. */
static inline bool lg__buf_aligned(const void *p, size_t elt) {
    return elt <= 1 || (uintptr_t)p % elt == 0;
}

/* Number of logical elements (product of dims). */
LG_INTERNAL int64_t lg__md_nelems(const lg_md *md);

/* Number of elements of the buffer, padding included (lg_md_size / elt). */
LG_INTERNAL int64_t lg__md_nelems_padded(const lg_md *md);

/* Element offset of idx without range checks: any idx inside padded_dims
 * is accepted, so this also locates padding. md must be blocked. */
LG_INTERNAL int64_t lg__md_off(const lg_md *md, const int64_t *idx);

/* True if md is dense: a blocked md whose buffer has no gaps beyond padding
 * (the padded element count equals the buffer's element count). */
LG_INTERNAL bool lg__md_is_dense(const lg_md *md);

/* True if the md has padding (some padded dim exceeds its dim). */
LG_INTERNAL bool lg__md_has_padding(const lg_md *md);

/* Copy md into *out with every unused byte zeroed (dims past ndims, blocks
 * past inner_nblks, struct padding), so that equal descriptors have equal
 * bytes: kernel-cache keys are hashed and compared as raw memory. */
LG_INTERNAL void lg__md_canon(const lg_md *md, lg_md *out);

/* md's canonical tag into tag (at least LG_TAG_MAX * 2 bytes): "any" for
 * an "any" md; false (and no error set) if no tag expresses the layout. */
LG_INTERNAL bool lg__md_tag_str(const lg_md *md, char *tag);

/* A short human-readable form for messages and verbose lines, e.g.
 * "f32:aBcd16b:8x256x56x56", into buf (len bytes). */
LG_INTERNAL void lg__md_describe(const lg_md *md, char *buf, size_t len);

/* lg_md_init_tag with its errors naming `where` (NULL: a quiet probe,
 * nothing recorded). */
LG_INTERNAL lg_status lg__md_init_tag(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                                      const char *tag, const char *where);

/* lg_md_submemory with its errors naming `where` (NULL: a quiet probe,
 * nothing recorded: the compiler asks whether a view exists). */
LG_INTERNAL lg_status lg__md_submemory(const lg_md *parent, const int64_t *dims,
                                       const int64_t *offsets, lg_md *out, const char *where);

#endif /* LG_MEMORY_MD_H */
