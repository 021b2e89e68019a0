/* The solver's arena: bump allocation in 64 KiB blocks for the many small
 * arrays of one solve, separate blocks for large tables (releasable early),
 * and one call that frees everything. All memory comes from lg__malloc, so
 * the failure-injection hook reaches every allocation. */
#include "passes/solver_impl.h"

#include <stddef.h>

struct lg__sv_block {
    lg__sv_block *prev, *next;
    _Alignas(16) char data[];
};

enum { SMALL_BLOCK = 64 * 1024, SMALL_MAX = 4096 };

/* Round n * size up to 16 bytes (at least 16, so that even an empty array is
 * a distinct non-NULL pointer); false on overflow. */
static bool bytes_of(size_t n, size_t size, size_t *out) {
    size_t b;
    if (__builtin_mul_overflow(n, size, &b)) return false;
    if (b == 0) b = 1;
    if (b > SIZE_MAX - sizeof(lg__sv_block) - 16) return false;
    *out = (b + 15) & ~(size_t)15;
    return true;
}

/* A new block of `bytes` data bytes, linked at the head; NULL on failure. */
static lg__sv_block *new_block(lg__sv_arena *a, size_t bytes) {
    lg__sv_block *b = lg__malloc(sizeof(lg__sv_block) + bytes);
    if (!b) return NULL;
    b->prev = NULL;
    b->next = a->head;
    if (a->head) a->head->prev = b;
    a->head = b;
    return b;
}

void *lg__sv_alloc(lg__sv_arena *a, size_t n, size_t size) {
    size_t bytes;
    if (!bytes_of(n, size, &bytes)) return NULL;
    if (bytes > SMALL_MAX) return lg__sv_alloc_big(a, n, size);
    if (bytes > a->left) {
        lg__sv_block *b = new_block(a, SMALL_BLOCK);
        if (!b) return NULL;
        a->cur = b->data;
        a->left = SMALL_BLOCK;
    }
    void *p = a->cur;
    a->cur += bytes;
    a->left -= bytes;
    return p;
}

void *lg__sv_alloc_big(lg__sv_arena *a, size_t n, size_t size) {
    size_t bytes;
    if (!bytes_of(n, size, &bytes)) return NULL;
    lg__sv_block *b = new_block(a, bytes);
    return b ? b->data : NULL;
}

void lg__sv_release(lg__sv_arena *a, void *p) {
    if (!p) return;
    lg__sv_block *b = (lg__sv_block *)((char *)p - offsetof(lg__sv_block, data));
    if (b->prev)
        b->prev->next = b->next;
    else
        a->head = b->next;
    if (b->next) b->next->prev = b->prev;
    lg__free(b);
}

void lg__sv_arena_free(lg__sv_arena *a) {
    lg__sv_block *b = a->head;
    while (b) {
        lg__sv_block *next = b->next;
        lg__free(b);
        b = next;
    }
    a->head = NULL;
    a->cur = NULL;
    a->left = 0;
}
