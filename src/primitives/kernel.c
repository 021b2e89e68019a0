/* lg_kernel: reference counting, argument checks, query, verbose timing. */
#include "primitives/kernel.h"

#include <stdatomic.h>
#include <string.h>

const char *lg__kind_name(lg__kind kind) {
    static const char *const names[] = {
#define X(id, name) name,
#include "primitives/kinds.def"
#undef X
    };
    _Static_assert(sizeof names / sizeof names[0] == LG_KIND_COUNT, "kinds.def mismatch");
    return (unsigned)kind < LG_KIND_COUNT ? names[kind] : "unknown";
}

lg_kernel *lg__kernel_new_slots(lg__kind kind, const lg__kernel_ops *ops, size_t data_size,
                                int nslots) {
    lg_kernel *k = lg__calloc(1, sizeof *k);
    void *data = k ? lg__calloc(1, data_size) : NULL;
    lg__arg_slot *slots = data ? lg__calloc((size_t)nslots, sizeof *slots) : NULL;
    if (!slots) {
        lg__free(data);
        lg__free(k);
        return NULL;
    }
    k->data = data;
    k->slots = slots;
    k->capslots = nslots;
    k->ops = ops;
    k->kind = kind;
    k->inplace_src = k->inplace_dst = -1;
    atomic_init(&k->refs, 1);
    return k;
}

lg_kernel *lg__kernel_new(lg__kind kind, const lg__kernel_ops *ops, size_t data_size) {
    return lg__kernel_new_slots(kind, ops, data_size, LG_KERNEL_MAX_ARGS);
}

int lg__kernel_add_slot(lg_kernel *k, int arg, bool required, const lg_md *md, size_t bytes) {
    int i = k->nslots++;
    lg__arg_slot *s = &k->slots[i];
    s->arg = arg;
    s->required = required;
    s->is_tensor = md != NULL;
    if (md) {
        s->md = *md;
        s->bytes = lg_md_size(md);
    } else {
        s->bytes = bytes;
    }
    return i;
}

void lg__kernel_retain(lg_kernel *k) {
    atomic_fetch_add(&k->refs, 1);
}

void lg_kernel_destroy(lg_kernel *k) {
    if (!k || atomic_fetch_sub(&k->refs, 1) != 1) return;
    if (k->ops && k->ops->destroy) k->ops->destroy(k);
    lg__free(k->slots);
    lg__free(k);
}

const char *lg_kernel_impl(const lg_kernel *k) {
    return k ? k->impl : "";
}

lg_status lg_kernel_query_md(const lg_kernel *k, int arg, lg_md *md) {
    if (!k || !md) return LG_ERROR(LG_INVALID_ARGUMENT, "kernel or md is NULL");
    for (int i = 0; i < k->nslots; i++)
        if (k->slots[i].arg == arg && k->slots[i].is_tensor) {
            *md = k->slots[i].md;
            return LG_OK;
        }
    return LG_ERROR(LG_INVALID_ARGUMENT, "%s kernel has no tensor argument %d",
                    lg__kind_name(k->kind), arg);
}

/* True if [a, a + na) and [b, b + nb) share a byte. */
static bool overlap(const void *a, size_t na, const void *b, size_t nb) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

/* Bytes before a tensor's first element (a view's offset0), and where its
 * elements start: two views of one buffer that lie apart do not overlap. */
static size_t view_skip(const lg__arg_slot *s) {
    return s->bytes ? (size_t)s->md.offset0 * lg_dtype_size(s->md.dtype) : 0;
}

static const void *view_start(const lg__arg_slot *s, const void *buf) {
    return (const char *)buf + view_skip(s);
}

/* Match args to slots: every arg known and given once, every required slot
 * given a non-NULL buffer, tensors not overlapping (but for an exact
 * in-place pair). */
static lg_status bind_args(const lg_kernel *k, int nargs, const lg_arg *args, void **bufs) {
    const char *kind = lg__kind_name(k->kind);
    if (nargs < 0 || (nargs > 0 && !args))
        return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute", "%s: %d arguments at %p", kind,
                         nargs, (void *)args);
    for (int i = 0; i < k->nslots; i++) bufs[i] = NULL;
    for (int j = 0; j < nargs; j++) {
        int i = 0;
        while (i < k->nslots && k->slots[i].arg != args[j].arg) i++;
        if (i == k->nslots)
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s kernel takes no argument %d", kind, args[j].arg);
        /* A value slot (scales, zero points) the attribute did not ask for
         * exists only to keep slot positions fixed: giving it is an error,
         * not a silently ignored buffer. */
        if (!k->slots[i].is_tensor && !k->slots[i].required)
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s kernel takes no argument %d: its attribute asks for no such "
                             "values",
                             kind, args[j].arg);
        if (bufs[i])
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s: argument %d given twice", kind, args[j].arg);
        if (!args[j].data && k->slots[i].bytes)
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s: argument %d has a NULL buffer", kind, args[j].arg);
        /* Tensors: their element size; scales (f32) and zero points (s32): 4. */
        size_t elt = k->slots[i].is_tensor ? lg_dtype_size(k->slots[i].md.dtype) : 4;
        if (!lg__buf_aligned(args[j].data, elt))
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s: argument %d buffer %p is not aligned to its %zu-byte elements",
                             kind, args[j].arg, args[j].data, elt);
        bufs[i] = args[j].data;
    }
    for (int i = 0; i < k->nslots; i++)
        if (k->slots[i].required && !bufs[i] && k->slots[i].bytes)
            return lg__error(LG_INVALID_ARGUMENT, "lg_kernel_execute",
                             "%s: required argument %d is missing", kind, k->slots[i].arg);
    for (int i = 0; i < k->nslots; i++)
        for (int j = i + 1; j < k->nslots; j++) {
            const lg__arg_slot *a = &k->slots[i], *b = &k->slots[j];
            if (!a->is_tensor || !b->is_tensor ||
                !overlap(view_start(a, bufs[i]), a->bytes - view_skip(a), view_start(b, bufs[j]),
                         b->bytes - view_skip(b)))
                continue;
            bool inplace = ((i == k->inplace_src && j == k->inplace_dst) ||
                            (j == k->inplace_src && i == k->inplace_dst)) &&
                           bufs[i] == bufs[j] && lg_md_equal(&a->md, &b->md);
            if (!inplace)
                return lg__error(
                    LG_INVALID_ARGUMENT, "lg_kernel_execute",
                    "%s: buffers of arguments %d and %d overlap%s", kind, a->arg, b->arg,
                    k->inplace_src >= 0 ? " (in place needs equal mds, same pointer)" : "");
        }
    return LG_OK;
}

lg_status lg_kernel_execute(const lg_kernel *k, int nargs, const lg_arg *args) {
    if (!k) return LG_ERROR(LG_INVALID_ARGUMENT, "kernel is NULL");
    void *bufs[LG_KERNEL_MAX_SLOTS];
    LG_CHECK(bind_args(k, nargs, args, bufs));
    if (!lg__verbose()) return k->ops->execute(k, bufs);
    double t0 = lg__now_ms();
    lg_status s = k->ops->execute(k, bufs);
    lg__verbose_printf("lgraph_verbose,exec,%s,%s,%s,%.4f\n", lg__kind_name(k->kind), k->impl,
                       k->desc, lg__now_ms() - t0);
    return s;
}
