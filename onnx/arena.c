/* The importer's memory for large, short-lived buffers: an arena that
 * protobuf-c unpacks the model into (one bump allocation per field, all
 * released at once, chunks marked for transparent huge pages so that
 * copying 100 MB of weights takes one page fault per 2 MB), and big
 * single buffers (decoded constants) with the same hint. */
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#include "onnx_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define CHUNK     ((size_t)16 << 20) /* the arena's usual chunk */
#define ALIGN     ((size_t)64)

typedef struct chunk {
    struct chunk *next;
    size_t size, used; /* bytes mapped, bytes handed out (the header included) */
} chunk;

/* A new mapping of at least `need` bytes (header included), or NULL. */
static chunk *chunk_new(size_t need) {
    size_t size = need < CHUNK ? CHUNK : (need + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (size < need) return NULL; /* overflow */
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, size, MADV_HUGEPAGE); /* a hint: ignored where unavailable */
#endif
    chunk *c = p;
    c->size = size;
    c->used = (sizeof *c + ALIGN - 1) / ALIGN * ALIGN;
    c->next = NULL;
    return c;
}

/* Under AddressSanitizer every allocation is a malloc of its own (size 0
 * in its header marks it), so that the fuzz target still sees a read past
 * any field. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_MALLOC 1
#endif
#endif

static void *arena_alloc(void *data, size_t size) {
    lg__onnx_arena *a = data;
#ifdef ARENA_MALLOC
    size_t h = (sizeof(chunk) + ALIGN - 1) / ALIGN * ALIGN;
    chunk *m = size <= SIZE_MAX - h ? malloc(h + size) : NULL;
    if (!m) return NULL;
    m->size = 0;
    m->next = a->head;
    a->head = m;
    return (char *)m + h;
#endif
    size_t n = (size + ALIGN - 1) / ALIGN * ALIGN;
    if (n < size) return NULL;
    chunk *c = a->head;
    if (c && c->size - c->used >= n) {
        void *p = (char *)c + c->used;
        c->used += n;
        return p;
    }
    size_t hdr = (sizeof(chunk) + ALIGN - 1) / ALIGN * ALIGN;
    if (n > SIZE_MAX - hdr) return NULL;
    chunk *nc = chunk_new(hdr + n);
    if (!nc) return NULL;
    nc->used = hdr + n;
    /* A buffer bigger than a quarter chunk gets a mapping of its own, which
     * goes behind the current chunk so that small fields keep filling it. */
    if (c && n > CHUNK / 4) {
        nc->next = c->next;
        c->next = nc;
    } else {
        nc->next = c;
        a->head = nc;
    }
    return (char *)nc + hdr;
}

static void arena_free(void *data, void *p) {
    (void)data; /* released with the whole arena */
    (void)p;
}

lg__onnx_arena *lg__onnx_arena_new(void) {
    lg__onnx_arena *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->pb.alloc = arena_alloc;
    a->pb.free = arena_free;
    a->pb.allocator_data = a;
    a->refs = 1;
    return a;
}

void lg__onnx_arena_ref(lg__onnx_arena *a) {
    a->refs++;
}

void lg__onnx_arena_unref(void *arena) {
    lg__onnx_arena *a = arena;
    if (!a || --a->refs > 0) return;
    for (chunk *c = a->head; c;) {
        chunk *next = c->next;
        if (c->size)
            munmap(c, c->size);
        else
            free(c);
        c = next;
    }
    free(a);
}

void *lg__onnx_big_alloc(size_t size) {
    void *p = NULL;
    if (size < 2 * HUGE_PAGE) return posix_memalign(&p, ALIGN, size ? size : 1) ? NULL : p;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, size / 4096 * 4096, MADV_HUGEPAGE);
#endif
    return p;
}
