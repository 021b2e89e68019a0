/* The conv kernel's cost inputs for the graph's cost model: its arithmetic
 * and how much slower it runs in given layouts than in channel-blocked ones
 * (the layouts lg__conv_choose picks). Answered from dims and layouts only,
 * without a kernel. */
#include "primitives/conv/conv.h"

#include "primitives/conv/quant.h"
#include "primitives/conv/wino.h"

#include <string.h>

/* Layout classes of an activation, by how well a conv vectorises over it. */
typedef enum layout_class {
    CLASS_BLOCKED,
    CLASS_CHANNELS_LAST,
    CLASS_PLAIN,
    CLASS_OTHER
} layout_class;

/* Slowdown per class, relative to channel-blocked activations (nChw16c /
 * nChw8c): channels-last keeps the channels contiguous but loses the blocked
 * weight reuse; plain nchw vectorises only along width. */
static const double class_factor[] = {
    [CLASS_BLOCKED] = 1.0,
    [CLASS_CHANNELS_LAST] = 1.5,
    [CLASS_PLAIN] = 3.0,
    [CLASS_OTHER] = 4.0,
};

static layout_class classify(const lg_md *md) {
    if (md->format_kind != LG_FMT_BLOCKED || md->ndims < 3) return CLASS_OTHER;
    if (md->blocking.inner_nblks > 0) {
        for (int i = 0; i < md->blocking.inner_nblks; i++)
            if (md->blocking.inner_idxs[i] != 1) return CLASS_OTHER;
        return CLASS_BLOCKED;
    }
    if (md->blocking.strides[1] == 1 && md->dims[1] > 1) return CLASS_CHANNELS_LAST;
    lg_md raw, plain;
    if (lg_md_init_strides(&raw, md->ndims, md->dims, md->dtype, NULL) != LG_OK) return CLASS_OTHER;
    lg__md_canon(&raw, &plain); /* not in place: it zeroes its output first */
    return lg_md_equal(&plain, md) ? CLASS_PLAIN : CLASS_OTHER;
}

double lg__conv_slowdown(const lg_md *src, const lg_md *dst, int64_t ic_per_group) {
    double f = class_factor[classify(dst)];
    double fs = class_factor[classify(src)];
    /* A first layer (few input channels) reads plain src well. */
    if (ic_per_group >= 8 && fs > f) f = fs;
    return f;
}

double lg__conv_flops(const lg_md *src, const lg_md *wei, const lg_md *dst, int64_t groups) {
    int sp = src->ndims - 2;
    double f = 2.0 * (double)dst->dims[0] * (double)dst->dims[1] * (double)(src->dims[1] / groups);
    for (int d = 0; d < sp; d++)
        f *= (double)dst->dims[2 + d] * (double)wei->dims[wei->ndims - sp + d];
    return f;
}

/* Recent answers of lg__conv_path, per thread (the cost model asks the
 * same problems many times while OPTIMAL builds its tables). */
#define PATH_MEMO 64
static _Thread_local struct {
    uint64_t hash;
    lg__conv_pd pd;
    const char *path;
} memo[PATH_MEMO];

static uint64_t hash_pd(const lg__conv_pd *pd) {
    const unsigned char *b = (const unsigned char *)pd;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *pd; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The vector length Winograd would run at for c's problem (its alg, shape
 * and layouts), or 0: paths.c tries, per vector length from the widest,
 * pointwise, then Winograd, then the direct paths. Asked without building
 * the Winograd plan (its transformed weights are 4x the weights). */
static int wino_vl(const lg__conv_kernel *c) {
    if (c->pd.alg != LG_CONV_WINOGRAD && c->pd.alg != LG_CONV_AUTO) return 0;
    lg__isa isa = lg__cpu_isa();
    for (int vl = 16; vl >= 8; vl /= 2) {
        if ((vl == 16 && isa < LG_ISA_AVX512) || isa < LG_ISA_AVX2) continue;
        if (c->pd.alg == LG_CONV_AUTO && !lg__conv_wino_auto(&c->s, vl)) continue;
        if (lg__conv_wino_fits(&c->pd, &c->s, vl, NULL, 0)) return vl;
    }
    return 0;
}

const char *lg__conv_path(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                          const lg_md *bias, const lg_md *dst) {
    static const char *const names[] = {"pw", "dw", "1x1", "direct", "empty"};
    lg__conv_kernel c;
    memset(&c, 0, sizeof c);
    if (lg__conv_query(p, src, wei, bias, dst, NULL, NULL, &c.pd) != LG_OK) return "ref";
    uint64_t h = hash_pd(&c.pd);
    int slot = (int)(h % PATH_MEMO);
    if (memo[slot].path && memo[slot].hash == h && memcmp(&memo[slot].pd, &c.pd, sizeof c.pd) == 0)
        return memo[slot].path;
    lg__conv_pd asked = c.pd;
    lg__conv_shape_of(&c.pd, &c.s);
    int wvl = lg__md_nelems(&c.pd.dst) > 0 ? wino_vl(&c) : 0;
    /* The other paths, asked of a plan without Winograd. */
    c.pd.alg = LG_CONV_DIRECT;
    if (lg__conv_plan(&c) != LG_OK) return "ref";
    const char *path = "ref", *last = strrchr(c.impl, ':');
    for (int i = 0; last && i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(last + 1, names[i]) == 0) path = names[i];
    /* Winograd wins unless a wider vector length's pointwise or direct path
     * comes first (a 16-lane direct kernel before an 8-lane Winograd). */
    bool wider = strncmp(c.impl, "conv:avx512:", 12) == 0 && wvl == 8;
    if (wvl && !wider && strcmp(path, "empty") != 0) path = "wino";
    lg__conv_plan_free(&c);
    memo[slot].hash = h;
    memo[slot].pd = asked;
    memo[slot].path = path;
    return path;
}

bool lg__conv_fast(const lg_conv_params *p, const lg_md *src, const lg_md *wei, const lg_md *bias,
                   const lg_md *dst, const lg_attr *attr) {
    if (lg__convq_wanted(src, wei, bias, dst, attr)) {
        /* build_convq: an f32 conv of q.f's mds, no bias, no attributes. */
        lg__convq_pd q;
        if (lg__convq_query(p, src, wei, bias, dst, attr, NULL, &q) != LG_OK) return false;
        if (lg__md_nelems(&q.dst) == 0) return true; /* "conv:empty:..." */
        lg_conv_params f;
        memset(&f, 0, sizeof f);
        f.groups = q.f.groups;
        for (int i = 0; i < q.f.nsp; i++) {
            f.strides[i] = q.f.strides[i];
            f.dilates[i] = q.f.dilates[i];
            f.pad_l[i] = q.f.pad_l[i];
            f.pad_r[i] = q.f.pad_r[i];
        }
        return lg__conv_fast(&f, &q.f.src, &q.f.wei, NULL, &q.f.dst, NULL);
    }
    lg__conv_kernel c;
    memset(&c, 0, sizeof c);
    if (lg__conv_query(p, src, wei, bias, dst, attr, NULL, &c.pd) != LG_OK) return false;
    lg__conv_shape_of(&c.pd, &c.s);
    if (lg__md_nelems(&c.pd.dst) > 0 && wino_vl(&c)) return true;
    /* Without Winograd (as lg__conv_path): its plan is not built to ask. */
    c.pd.alg = LG_CONV_DIRECT;
    if (lg__conv_plan(&c) != LG_OK) return false;
    bool fast = !strstr(c.impl, "ref");
    lg__conv_plan_free(&c);
    return fast;
}
