/*
 * lgraph: a graph-level layout-propagation runtime for small neural-network
 * graphs. This is the only public header.
 *
 * A short example: describe a 4D f32 tensor with 17 channels in the blocked
 * layout nChw8c (channels padded to 24), and find where an element lives.
 *
 *     lg_md md;
 *     int64_t dims[4] = {2, 17, 5, 5};
 *     if (lg_md_init_tag(&md, 4, dims, LG_F32, "nChw8c") != LG_OK)
 *         fprintf(stderr, "%s\n", lg_last_error());
 *     size_t bytes = lg_md_size(&md);           // 2 * 24 * 5 * 5 * 4 bytes
 *     int64_t idx[4] = {1, 9, 2, 3};
 *     int64_t off = lg_md_offset(&md, idx);     // element offset into the buffer
 *
 * Conventions: every call that can fail returns lg_status; outputs are the
 * trailing pointer arguments; on failure lg_last_error() holds a message for
 * this thread saying what was wrong and where. Objects are opaque handles,
 * except lg_md, a plain struct the caller may keep on the stack and copy.
 */
#ifndef LGRAPH_H
#define LGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(LG_BUILDING_LIBRARY) && defined(__GNUC__)
#define LG_API __attribute__((visibility("default")))
#else
#define LG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

/* The result of every call that can fail. */
typedef enum lg_status {
    LG_OK = 0,
    LG_INVALID_ARGUMENT = -1, /* bad dims, bad tag, mismatched shapes, NULL where not allowed */
    LG_UNIMPLEMENTED = -2,    /* a valid request the library cannot do (lg_last_error says why) */
    LG_OUT_OF_MEMORY = -3,
    LG_INVALID_GRAPH = -4, /* cycles, dangling values, shape/dtype mismatch between nodes */
    LG_RUNTIME_ERROR = -5,
} lg_status;

/* A static name for a status, e.g. "LG_INVALID_ARGUMENT"; "LG_UNKNOWN_STATUS"
 * for a value that is not an lg_status. Never NULL. */
LG_API const char *lg_status_str(lg_status s);

/* The message of this thread's last failed call: the function, the argument
 * at fault and why. A successful call does not clear it. Never NULL (an empty
 * string before any failure). The pointer stays valid until this thread's next
 * failed lgraph call. */
LG_API const char *lg_last_error(void);

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */

typedef enum lg_dtype { LG_DT_UNDEF = 0, LG_F32, LG_F16, LG_BF16, LG_S32, LG_S8, LG_U8 } lg_dtype;

/* Bytes per element of dt; 0 for LG_DT_UNDEF or a value that is not an lg_dtype. */
LG_API size_t lg_dtype_size(lg_dtype dt);

/* A static name such as "f32" or "bf16"; "undef" for anything else. */
LG_API const char *lg_dtype_str(lg_dtype dt);

/* ------------------------------------------------------------------------ */
/* Memory descriptors                                                       */
/* ------------------------------------------------------------------------ */

#define LG_MAX_NDIMS 12

/* What an lg_md describes. A zeroed lg_md is LG_FMT_UNDEF (not a tensor). */
typedef enum lg_format_kind {
    LG_FMT_UNDEF = 0,
    LG_FMT_ANY,     /* dims and type known, layout still to be chosen */
    LG_FMT_BLOCKED, /* a concrete layout: plain, strided or blocked */
} lg_format_kind;

/*
 * A memory descriptor: the logical shape, the data type and, unless the format
 * is "any", where every element lives.
 *
 * The layout follows oneDNN's blocked model. Each logical dim d is split into
 * an outer index idx[d] / B[d] and an inner index idx[d] % B[d], where B[d] is
 * the product of the inner blocks on d (1 if none). The element offset of a
 * logical index is
 *
 *     offset0 + sum_d (idx[d] / B[d]) * strides[d] + inner offset,
 *
 * where the inner offset places the inner blocks in the order listed, the first
 * outermost, the last contiguous. Blocked dims are padded up to a multiple of
 * B[d] (padded_dims); the padding exists in memory and holds zeros.
 *
 * Strides count elements, not bytes. The caller may read every field; it should
 * build an lg_md only through lg_md_init_tag / lg_md_init_strides (a hand-made
 * one must keep the invariants those functions establish).
 */
typedef struct lg_md {
    int ndims;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype dtype;
    lg_format_kind format_kind;
    int64_t padded_dims[LG_MAX_NDIMS];
    int64_t offset0; /* elements before the first one; 0 for every md lgraph makes */
    struct {
        int64_t strides[LG_MAX_NDIMS];    /* outer strides, in elements */
        int inner_nblks;                  /* number of inner blocks */
        int64_t inner_blks[LG_MAX_NDIMS]; /* their sizes, outermost first */
        int inner_idxs[LG_MAX_NDIMS];     /* the logical dim each one splits */
    } blocking;
} lg_md;

/*
 * Describe a tensor of ndims dims (1..LG_MAX_NDIMS) in the layout named by tag.
 *
 * Tags follow oneDNN's grammar:
 *  - generic tags: letters a..l are logical dims in memory order, outermost
 *    first; an upper-case letter is a blocked dim whose outer part sits there;
 *    each trailing <N><letter> is an inner block, outer to inner
 *    ("abcd", "acdb", "aBcd16b", "ABcd16b16a", "ABcd4b16a4b");
 *  - "x" inside a generic tag stands for the dims not named elsewhere, in
 *    increasing order ("abx", "axb", "aBx16b"); it must stand for at least one;
 *  - domain aliases ("nchw", "nhwc", "oihw", "goihw", "nChw16c",
 *    "OIhw16i16o", "gOIhw16i16o", "Goihw16g", ...), each valid only with the
 *    ndims its letters give;
 *  - "any": no layout yet (lg_md_size is then 0).
 * dims may be 0 (an empty tensor) but not negative.
 *
 * Returns LG_INVALID_ARGUMENT, with a message, for a NULL md/dims/tag, a bad
 * ndims, a negative dim, a malformed tag, an unknown data type, or sizes that
 * overflow int64. md is left unchanged on failure.
 */
LG_API lg_status lg_md_init_tag(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                                const char *tag);

/*
 * Describe a plain (unblocked) tensor with explicit strides, in elements.
 * strides NULL means dense row-major. Strides may leave gaps but must not
 * overlap: ordering the dims of extent > 1 by stride, each outer stride is at
 * least the inner stride times the inner extent. Returns LG_INVALID_ARGUMENT
 * (with a message) on overlap, negative strides and the errors of
 * lg_md_init_tag.
 */
LG_API lg_status lg_md_init_strides(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                                    const int64_t *strides);

/* Bytes a buffer for md must hold, padding included; 0 for "any", for an
 * empty tensor and for an invalid md. */
LG_API size_t lg_md_size(const lg_md *md);

/* The element offset of the logical index idx[0..ndims) (each 0 <= idx[d] <
 * dims[d]); -1 for a NULL argument, an "any" md, or an index out of range. */
LG_API int64_t lg_md_offset(const lg_md *md, const int64_t *idx);

/* True if a and b describe the same tensor in the same layout. Two NULLs
 * are not equal. */
LG_API bool lg_md_equal(const lg_md *a, const lg_md *b);

/* True if md's format is "any". */
LG_API bool lg_md_is_any(const lg_md *md);

/*
 * Write md's canonical generic tag ("aBcd16b" for an nChw16c md, "any" for
 * an "any" md) into buf, NUL-terminated. LG_UNIMPLEMENTED if the layout is not
 * expressible as a tag (non-dense strides, an offset); LG_INVALID_ARGUMENT if
 * buf is too small (len includes the NUL) or an argument is NULL.
 */
LG_API lg_status lg_md_tag(const lg_md *md, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LGRAPH_H */
