/* The importer's table of ONNX values (a hash of names), constants decoded
 * from ONNX tensors, node attributes and inputs, and the emission of pending
 * patterns when a consumer needs a graph tensor. */
#include "onnx_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lg_status lg__onnx_emit_conv(importer *im, oval *v); /* ops_conv.c */

lg_status lg__onnx_fail(importer *im, lg_status status, const char *fmt, ...) {
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (im->node)
        snprintf(im->msg, sizeof im->msg, "lg_onnx_load: node '%s' (%s): %s",
                 im->node->name ? im->node->name : "", im->node->op_type ? im->node->op_type : "",
                 what);
    else
        snprintf(im->msg, sizeof im->msg, "lg_onnx_load: %s", what);
    return lg_set_last_error(status, im->msg);
}

static uint64_t hash_name(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

oval *lg__onnx_find(importer *im, const char *name) {
    if (!name || !im->nslots) return NULL;
    size_t mask = (size_t)im->nslots - 1;
    for (size_t k = hash_name(name) & mask;; k = (k + 1) & mask) {
        int s = im->slots[k];
        if (s < 0) return NULL;
        if (strcmp(im->vals[s].name, name) == 0) return &im->vals[s];
    }
}

oval *lg__onnx_get(importer *im, const char *name) {
    oval *v = lg__onnx_find(im, name);
    if (v) return v;
    /* The table is sized by load.c for every name the model can define, so
     * it never grows (pointers into vals stay valid). */
    if (im->nvals >= im->cap || 2 * (im->nvals + 1) > im->nslots) return NULL;
    size_t mask = (size_t)im->nslots - 1, k = hash_name(name) & mask;
    while (im->slots[k] >= 0) k = (k + 1) & mask;
    im->slots[k] = im->nvals;
    v = &im->vals[im->nvals++];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->v = LG_NO_VALUE;
    return v;
}

lg_status lg__onnx_input(importer *im, int i, bool optional, oval **out) {
    *out = NULL;
    const Onnx__NodeProto *n = im->node;
    if ((size_t)i >= n->n_input || !n->input[i][0]) {
        if (optional) return LG_OK;
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input %d is missing", i);
    }
    oval *v = lg__onnx_find(im, n->input[i]);
    if (!v || v->kind == OV_UNSET)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "input '%s' has no value", n->input[i]);
    *out = v;
    return LG_OK;
}

lg_status lg__onnx_output(importer *im, int i, oval **out) {
    const Onnx__NodeProto *n = im->node;
    if ((size_t)i >= n->n_output || !n->output[i][0])
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "output %d is missing", i);
    oval *v = lg__onnx_get(im, n->output[i]);
    if (!v) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "value table full");
    if (v->kind != OV_UNSET)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "value '%s' is produced twice", v->name);
    *out = v;
    return LG_OK;
}

const char *lg__onnx_plain_tag(int nd) {
    static const char tags[LG_MAX_NDIMS][LG_MAX_NDIMS + 1] = {
        "a",       "ab",       "abc",       "abcd",       "abcde",       "abcdef",
        "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefghijk", "abcdefghijkl"};
    return nd >= 1 && nd <= LG_MAX_NDIMS ? tags[nd - 1] : "";
}

lg_status lg__onnx_add_constant(importer *im, const char *base, const char *suffix, int nd,
                                const int64_t *dims, const float *data, lg_value *out) {
    lg_md md;
    if (lg_md_init_tag(&md, nd, dims, LG_F32, lg__onnx_plain_tag(nd)) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "constant '%s': %s", base, lg_last_error());
    char name[512];
    snprintf(name, sizeof name, "%s%s", base, suffix);
    if (lg_graph_add_constant(im->g, name, &md, data, out) != LG_OK)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "constant '%s': %s", name, lg_last_error());
    return LG_OK;
}

lg_status lg__onnx_tensor(importer *im, oval *v) {
    switch (v->kind) {
    case OV_TENSOR:
        return LG_OK;
    case OV_CONST: {
        /* A constant stays one (shape arithmetic may still read it); its
         * graph constant is made once. */
        if (v->v != LG_NO_VALUE) return LG_OK;
        if (v->nd < 1)
            return lg__onnx_fail(im, LG_UNIMPLEMENTED, "scalar constant '%s' used as a tensor",
                                 v->name);
        float *f = v->f;
        if (!f) {
            f = malloc((size_t)v->n * sizeof *f);
            if (!f && v->n) return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "constant '%s'", v->name);
            for (int64_t k = 0; k < v->n; k++) f[k] = (float)v->i[k];
        }
        lg_status st = lg__onnx_add_constant(im, v->name, "", v->nd, v->dims, f, &v->v);
        if (f != v->f) free(f);
        return st;
    }
    case OV_LAZY:
        switch (v->lz) {
        case LZ_GATE:
            if (lg__onnx_tensor(im, v->base) != LG_OK) return LG_INVALID_ARGUMENT;
            if (lg_graph_add_eltwise(im->g, v->base->v, v->alg, v->alpha, v->beta, &v->v) != LG_OK)
                return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "'%s': %s", v->name, lg_last_error());
            v->kind = OV_TENSOR;
            return LG_OK;
        case LZ_CONV:
            return lg__onnx_emit_conv(im, v);
        case LZ_PAD:
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "'%s' is a Pad that no Conv follows: lgraph folds zero "
                                 "padding into the next conv only",
                                 v->name);
        case LZ_RESHAPE5:
        case LZ_SHUFFLED:
            return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                                 "'%s' is a 5D view of a tensor that is not a channel "
                                 "shuffle (Reshape, Transpose perm 0,2,1,3,4, Reshape back)",
                                 v->name);
        }
        break;
    case OV_UNSET:
        break;
    }
    return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "'%s' has no value", v->name);
}

const Onnx__AttributeProto *lg__onnx_attr(importer *im, const char *name) {
    for (size_t k = 0; k < im->node->n_attribute; k++)
        if (im->node->attribute[k]->name && strcmp(im->node->attribute[k]->name, name) == 0)
            return im->node->attribute[k];
    return NULL;
}

lg_status lg__onnx_attr_int(importer *im, const char *name, int64_t def, int64_t *out) {
    const Onnx__AttributeProto *a = lg__onnx_attr(im, name);
    *out = def;
    if (!a) return LG_OK;
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "attribute '%s' is not an int", name);
    *out = a->i;
    return LG_OK;
}

lg_status lg__onnx_attr_float(importer *im, const char *name, float def, float *out) {
    const Onnx__AttributeProto *a = lg__onnx_attr(im, name);
    *out = def;
    if (!a) return LG_OK;
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "attribute '%s' is not a float", name);
    *out = a->f;
    return LG_OK;
}

lg_status lg__onnx_attr_ints(importer *im, const char *name, int max, int64_t *out, int *n) {
    const Onnx__AttributeProto *a = lg__onnx_attr(im, name);
    *n = -1; /* absent */
    if (!a) return LG_OK;
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "attribute '%s' is not a list of ints", name);
    if (a->n_ints > (size_t)max)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "attribute '%s' has %zu values (at most %d)",
                             name, a->n_ints, max);
    /* an empty list leaves a->ints NULL: memcpy takes no NULL, not even for 0 bytes */
    if (a->n_ints) memcpy(out, a->ints, a->n_ints * sizeof *out);
    *n = (int)a->n_ints;
    return LG_OK;
}

lg_status lg__onnx_attr_string(importer *im, const char *name, const char *def, char *out,
                               size_t len) {
    const Onnx__AttributeProto *a = lg__onnx_attr(im, name);
    snprintf(out, len, "%s", def);
    if (!a) return LG_OK;
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "attribute '%s' is not a string", name);
    size_t k = a->s.len < len - 1 ? a->s.len : len - 1;
    if (k) memcpy(out, a->s.data, k); /* an empty string's data may be NULL */
    out[k] = 0;
    return LG_OK;
}

lg_status lg__onnx_const_alloc(importer *im, oval *v, int nd, const int64_t *dims, bool is_int) {
    if (nd < 0 || nd > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "'%s' has rank %d (at most %d)", v->name, nd,
                             LG_MAX_NDIMS);
    /* ext: the product of the dims, a 0 taken as 1. Bounding it (not only
     * the element count, which one 0 dim makes 0) keeps every product of
     * dims and every stride the ops compute from them inside int64. */
    int64_t n = 1, ext = 1;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0 || __builtin_mul_overflow(ext, dims[d] ? dims[d] : 1, &ext) ||
            ext > ((int64_t)1 << 40))
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "'%s' has an invalid or huge shape",
                                 v->name);
        n *= dims[d];
    }
    const int64_t bytes = (n ? n : 1) * (int64_t)(is_int ? sizeof(int64_t) : sizeof(float));
    if (bytes > im->const_budget - im->const_bytes)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "'%s' (%lld elements) would take the model's folded constants past "
                             "the loader's budget of %lld bytes (64 MiB + 16 per byte of the file)",
                             v->name, (long long)n, (long long)im->const_budget);
    im->const_bytes += bytes;
    void *p = lg__onnx_big_alloc((size_t)bytes);
    if (!p)
        return lg__onnx_fail(im, LG_OUT_OF_MEMORY, "'%s': %lld elements", v->name, (long long)n);
    if (!v->f_borrowed) free(v->f);
    v->f_borrowed = false;
    free(v->i);
    v->f = is_int ? NULL : p;
    v->i = is_int ? p : NULL;
    v->n = n;
    v->nd = nd;
    if (nd > 0) memcpy(v->dims, dims, (size_t)nd * sizeof *dims); /* a scalar passes NULL */
    v->kind = OV_CONST;
    return LG_OK;
}

float lg__onnx_const_f(const oval *v, int64_t k) {
    return v->f ? v->f[k] : (float)v->i[k];
}

int64_t lg__onnx_const_i(const oval *v, int64_t k) {
    if (v->i) return v->i[k];
    float f = v->f[k];
    if (!(f > -9.2e18f && f < 9.2e18f)) return 0; /* NaN and out of range */
    return (int64_t)f;
}

/* Element size of the ONNX data types this importer decodes; 0 otherwise. */
static size_t onnx_elem_size(int32_t dt) {
    switch (dt) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        return 1;
    default:
        return 0;
    }
}

lg_status lg__onnx_const_from_tensor(importer *im, const Onnx__TensorProto *t, oval *v) {
    const char *name = t->name && t->name[0] ? t->name : v->name;
    if (t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL || t->n_external_data)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED,
                             "tensor '%s' keeps its data in an external file; lgraph loads "
                             "self-contained models only",
                             name);
    if (t->n_dims > LG_MAX_NDIMS)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "tensor '%s' has rank %zu (at most %d)", name,
                             t->n_dims, LG_MAX_NDIMS);
    int32_t dt = t->data_type;
    size_t esz = onnx_elem_size(dt);
    if (!esz)
        return lg__onnx_fail(im, LG_UNIMPLEMENTED, "tensor '%s' has ONNX data type %d", name,
                             (int)dt);
    int64_t n = 1;
    for (size_t d = 0; d < t->n_dims; d++)
        if (t->dims[d] < 0 || __builtin_mul_overflow(n, t->dims[d], &n))
            return lg__onnx_fail(im, LG_INVALID_ARGUMENT, "tensor '%s' has an invalid shape", name);
    /* The data present must match the declared size exactly, before any
     * allocation: a lying header cannot make the loader allocate. */
    size_t have;
    if (t->has_raw_data)
        have = t->raw_data.len / esz;
    else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
        have = t->n_float_data;
    else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE)
        have = t->n_double_data;
    else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
        have = t->n_int64_data;
    else
        have = t->n_int32_data; /* int32, int8, uint8 and bool are stored as int32 */
    if ((t->has_raw_data && t->raw_data.len % esz) || (uint64_t)have != (uint64_t)n)
        return lg__onnx_fail(im, LG_INVALID_ARGUMENT,
                             "tensor '%s' declares %lld elements but holds %zu", name, (long long)n,
                             t->has_raw_data ? t->raw_data.len / esz : have);
    bool is_int =
        dt != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && dt != ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    int64_t dims[LG_MAX_NDIMS];
    for (size_t d = 0; d < t->n_dims; d++) dims[d] = t->dims[d];
    const uint8_t *raw = t->has_raw_data ? t->raw_data.data : NULL;
    float *fview = dt != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ? NULL
                   : raw                                      ? (float *)(uintptr_t)raw
                                                              : t->float_data;
    if (fview && n && (uintptr_t)fview % sizeof(float) == 0) {
        /* Float data (little-endian, as on every target of lgraph) used in
         * place: the unpacked model is the importer's until the load ends. */
        if (!v->f_borrowed) free(v->f);
        free(v->i);
        v->i = NULL;
        v->f = fview;
        v->f_borrowed = true;
        v->n = n;
        v->nd = (int)t->n_dims;
        memcpy(v->dims, dims, (size_t)v->nd * sizeof *dims);
        v->kind = OV_CONST;
        return LG_OK;
    }
    LG_ONNX_CHECK(lg__onnx_const_alloc(im, v, (int)t->n_dims, dims, is_int));
    for (int64_t k = 0; k < n; k++) {
        switch (dt) {
        case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
            if (raw)
                memcpy(&v->f[k], raw + k * 4, 4);
            else
                v->f[k] = t->float_data[k];
            break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: {
            double x;
            if (raw)
                memcpy(&x, raw + k * 8, 8);
            else
                x = t->double_data[k];
            v->f[k] = (float)x;
            break;
        }
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
            if (raw)
                memcpy(&v->i[k], raw + k * 8, 8);
            else
                v->i[k] = t->int64_data[k];
            break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: {
            int32_t x;
            if (raw)
                memcpy(&x, raw + k * 4, 4);
            else
                x = t->int32_data[k];
            v->i[k] = x;
            break;
        }
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
            v->i[k] = raw ? (int8_t)raw[k] : (int8_t)t->int32_data[k];
            break;
        default: /* uint8, bool */
            v->i[k] = raw ? raw[k] : (uint8_t)t->int32_data[k];
            break;
        }
    }
    return LG_OK;
}
