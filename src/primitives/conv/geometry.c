/* The one check of a convolution's spatial geometry, shared by
 * lg_conv_create and the graph's conv node (lg_graph_add_conv): parameter
 * ranges and the output size, computed without signed overflow. */
#include "primitives/conv/conv.h"

#include <stdio.h>

lg_status lg__conv_out_size(const lg_conv_params *p, int nsp, int i, int64_t in, int64_t k,
                            int64_t *out, bool *shape_fault, char *why, size_t len) {
    static const char *const names[3][3] = {{"w", "", ""}, {"h", "w", ""}, {"d", "h", "w"}};
    const char *nm = nsp >= 1 && nsp <= 3 && i >= 0 && i < nsp ? names[nsp - 1][i] : "?";
    *shape_fault = false;
#define BAD(...) (snprintf(why, len, __VA_ARGS__), LG_INVALID_ARGUMENT)
    if (p->strides[i] < 1)
        return BAD("stride %lld along %s: must be at least 1", (long long)p->strides[i], nm);
    if (p->dilates[i] < 0)
        return BAD("dilate %lld along %s is negative (0 is a dense kernel)",
                   (long long)p->dilates[i], nm);
    if (p->pad_l[i] < 0 || p->pad_r[i] < 0)
        return BAD("padding %lld/%lld along %s is negative", (long long)p->pad_l[i],
                   (long long)p->pad_r[i], nm);
    *shape_fault = true;
    if (k < 1) return BAD("weights kernel size %lld along %s: must be >= 1", (long long)k, nm);
    int64_t ext, padded;
    if (!lg__add_ok(p->dilates[i], 1, &ext) || !lg__mul_ok(k - 1, ext, &ext) ||
        !lg__add_ok(ext, 1, &ext)) {
        *shape_fault = false;
        return BAD("geometry along %s overflows: kernel %lld with dilate %lld spans more than "
                   "int64",
                   nm, (long long)k, (long long)p->dilates[i]);
    }
    if (!lg__add_ok(in, p->pad_l[i], &padded) || !lg__add_ok(padded, p->pad_r[i], &padded)) {
        *shape_fault = false;
        return BAD("geometry along %s overflows: input %lld + padding %lld/%lld exceeds int64", nm,
                   (long long)in, (long long)p->pad_l[i], (long long)p->pad_r[i]);
    }
    if (padded < ext)
        return BAD("kernel extent %lld along %s does not fit: it exceeds the padded input %lld "
                   "(%lld + padding %lld/%lld)",
                   (long long)ext, nm, (long long)padded, (long long)in, (long long)p->pad_l[i],
                   (long long)p->pad_r[i]);
    *shape_fault = false;
    *out = (padded - ext) / p->strides[i] + 1;
    return LG_OK;
#undef BAD
}
