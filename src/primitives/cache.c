/* The kernel cache: a hash table (XXH3 keys, chained buckets) threaded on an
 * LRU list, guarded by one libuv mutex. An entry being built is in the table
 * as a placeholder; threads asking for it wait on a condition variable, so a
 * problem is built once however many threads ask at the same time. */
#include "primitives/cache.h"

#include "primitives/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <xxhash.h>

typedef struct entry {
    uint64_t hash;
    int32_t kind, isa;
    size_t size;
    void *problem;     /* a copy of the key bytes */
    lg_kernel *kernel; /* NULL while being built */
    struct entry *chain;
    struct entry *prev, *next; /* LRU list: head is most recent */
} entry;

static struct {
    uv_mutex_t lock;
    uv_cond_t built;
    entry **buckets;
    size_t nbuckets;
    entry *head, *tail;
    int size, capacity;
    uint64_t hits, misses, evictions;
} cache;

static uv_once_t cache_once = UV_ONCE_INIT;

static void cache_init(void) {
    uv_mutex_init(&cache.lock);
    uv_cond_init(&cache.built);
    cache.capacity = 1024;
    const char *s = getenv("LG_KERNEL_CACHE_CAPACITY");
    if (s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*s && !*end && v >= 0 && v <= (1 << 30)) cache.capacity = (int)v;
    }
}

static void lru_unlink(entry *e) {
    if (e->prev)
        e->prev->next = e->next;
    else
        cache.head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        cache.tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push_front(entry *e) {
    e->next = cache.head;
    e->prev = NULL;
    if (cache.head) cache.head->prev = e;
    cache.head = e;
    if (!cache.tail) cache.tail = e;
}

static entry **bucket_of(uint64_t hash) {
    return &cache.buckets[hash & (cache.nbuckets - 1)];
}

/* Remove e from its bucket and the LRU list, and free it (not its kernel). */
static void remove_entry(entry *e) {
    entry **p = bucket_of(e->hash);
    while (*p != e) p = &(*p)->chain;
    *p = e->chain;
    lru_unlink(e);
    cache.size--;
    lg__free(e->problem);
    lg__free(e);
}

/* Evict built entries from the LRU end until size <= capacity. Kernels are
 * collected into `out` (released by the caller outside the lock). */
static int evict_to_capacity(lg_kernel **out, int max_out) {
    int n = 0;
    for (entry *e = cache.tail; e && cache.size > cache.capacity && n < max_out;) {
        entry *prev = e->prev;
        if (e->kernel) {
            out[n++] = e->kernel;
            remove_entry(e);
            cache.evictions++;
        }
        e = prev;
    }
    return n;
}

/* Double the bucket array when the load passes 1; false when out of memory
 * (the table still works, only slower). */
static bool grow_if_needed(void) {
    if (cache.nbuckets && (size_t)cache.size < cache.nbuckets) return true;
    size_t nb = cache.nbuckets ? cache.nbuckets * 2 : 64;
    entry **b = lg__calloc(nb, sizeof *b);
    if (!b) return cache.nbuckets != 0;
    for (size_t i = 0; i < cache.nbuckets; i++)
        for (entry *e = cache.buckets[i], *n; e; e = n) {
            n = e->chain;
            e->chain = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    lg__free(cache.buckets);
    cache.buckets = b;
    cache.nbuckets = nb;
    return true;
}

static entry *find(uint64_t hash, int32_t kind, int32_t isa, const void *problem, size_t size) {
    if (!cache.nbuckets) return NULL;
    for (entry *e = *bucket_of(hash); e; e = e->chain)
        if (e->hash == hash && e->kind == kind && e->isa == isa && e->size == size &&
            memcmp(e->problem, problem, size) == 0)
            return e;
    return NULL;
}

static lg_status build_verbose(lg__kind kind, const void *problem, lg__kernel_builder build,
                               lg_kernel **out) {
    double t0 = lg__verbose() ? lg__now_ms() : 0;
    lg_status s = build(problem, out);
    if (s == LG_OK && lg__verbose())
        lg__verbose_printf("lgraph_verbose,create,%s,%s,%s,%.4f\n", lg__kind_name(kind),
                           (*out)->impl, (*out)->desc, lg__now_ms() - t0);
    return s;
}

lg_status lg__cache_get(lg__kind kind, const void *problem, size_t size, lg__kernel_builder build,
                        lg_kernel **out) {
    uv_once(&cache_once, cache_init);
    int32_t isa = (int32_t)lg__cpu_isa();
    uint64_t hash = XXH3_64bits_withSeed(problem, size, ((uint64_t)kind << 8) | (uint64_t)isa);

    uv_mutex_lock(&cache.lock);
    if (cache.capacity == 0) {
        cache.misses++;
        uv_mutex_unlock(&cache.lock);
        return build_verbose(kind, problem, build, out);
    }
    for (;;) {
        entry *e = find(hash, kind, isa, problem, size);
        if (!e) break;
        if (e->kernel) {
            cache.hits++;
            lru_unlink(e);
            lru_push_front(e);
            lg__kernel_retain(e->kernel);
            *out = e->kernel;
            uv_mutex_unlock(&cache.lock);
            return LG_OK;
        }
        uv_cond_wait(&cache.built, &cache.lock); /* another thread is building it */
    }
    cache.misses++;
    /* Insert a placeholder, build outside the lock, then publish. */
    entry *e = lg__calloc(1, sizeof *e);
    void *copy = e ? lg__malloc(size) : NULL;
    if (!e || !copy || !grow_if_needed()) {
        lg__free(e);
        lg__free(copy);
        uv_mutex_unlock(&cache.lock);
        char where[32]; /* the public creator of this kind */
        snprintf(where, sizeof where, "lg_%s_create", lg__kind_name(kind));
        return lg__error(LG_OUT_OF_MEMORY, where, "kernel cache: cannot allocate an entry");
    }
    memcpy(copy, problem, size);
    *e = (entry){.hash = hash, .kind = kind, .isa = isa, .size = size, .problem = copy};
    entry **b = bucket_of(hash);
    e->chain = *b;
    *b = e;
    lru_push_front(e);
    cache.size++;
    uv_mutex_unlock(&cache.lock);

    lg_kernel *k = NULL;
    lg_status s = build_verbose(kind, problem, build, &k);

    lg_kernel *evicted[16];
    int nev = 0;
    uv_mutex_lock(&cache.lock);
    if (s == LG_OK) {
        lg__kernel_retain(k); /* the cache's reference */
        e->kernel = k;
        nev = evict_to_capacity(evicted, 16);
    } else {
        remove_entry(e);
    }
    uv_cond_broadcast(&cache.built);
    uv_mutex_unlock(&cache.lock);
    for (int i = 0; i < nev; i++) lg_kernel_destroy(evicted[i]);
    if (s == LG_OK) *out = k;
    return s;
}

lg_status lg_kernel_cache_set_capacity(int capacity) {
    if (capacity < 0) return LG_ERROR(LG_INVALID_ARGUMENT, "capacity %d is negative", capacity);
    uv_once(&cache_once, cache_init);
    lg_kernel *evicted[64];
    int n;
    uv_mutex_lock(&cache.lock);
    cache.capacity = capacity;
    do {
        n = evict_to_capacity(evicted, 64);
        uv_mutex_unlock(&cache.lock);
        for (int i = 0; i < n; i++) lg_kernel_destroy(evicted[i]);
        uv_mutex_lock(&cache.lock);
    } while (n == 64);
    uv_mutex_unlock(&cache.lock);
    return LG_OK;
}

int lg_kernel_cache_capacity(void) {
    uv_once(&cache_once, cache_init);
    uv_mutex_lock(&cache.lock);
    int c = cache.capacity;
    uv_mutex_unlock(&cache.lock);
    return c;
}

void lg_kernel_cache_stats(lg_cache_stats *stats) {
    if (!stats) return;
    uv_once(&cache_once, cache_init);
    uv_mutex_lock(&cache.lock);
    *stats = (lg_cache_stats){.hits = cache.hits,
                              .misses = cache.misses,
                              .evictions = cache.evictions,
                              .size = cache.size,
                              .capacity = cache.capacity};
    uv_mutex_unlock(&cache.lock);
}

/* At exit, release what the cache holds so leak checkers see a clean heap. */
__attribute__((destructor)) static void cache_release_all(void) {
    if (!cache.nbuckets) return;
    uv_mutex_lock(&cache.lock);
    while (cache.tail && cache.tail->kernel) {
        lg_kernel *k = cache.tail->kernel;
        remove_entry(cache.tail);
        lg_kernel_destroy(k);
    }
    if (!cache.head) {
        lg__free(cache.buckets);
        cache.buckets = NULL;
        cache.nbuckets = 0;
    }
    uv_mutex_unlock(&cache.lock);
}
