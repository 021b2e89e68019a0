/* The cost model's coefficient table: keys, lookup, JSON in and out (see
 * cost_coefs.h). */
#include "passes/cost_coefs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memory/md.h"

const char *lg__cost_family(const lg_md *md, char buf[8]) {
    if (!md || md->format_kind != LG_FMT_BLOCKED) return "other";
    const int nb = md->blocking.inner_nblks;
    if (nb > 0) {
        if (nb != 1 || md->blocking.inner_idxs[0] != 1 || md->blocking.inner_blks[0] > 999)
            return "other";
        snprintf(buf, 8, "b%d", (int)md->blocking.inner_blks[0]);
        return buf;
    }
    lg_md raw, plain;
    if (lg_md_init_strides(&raw, md->ndims, md->dims, md->dtype, NULL) != LG_OK) return "other";
    lg__md_canon(&raw, &plain);
    if (lg_md_equal(&plain, md)) return "plain";
    if (md->ndims >= 3 && md->blocking.strides[1] == 1) return "cl";
    return "other";
}

void lg__cost_key(const char *kind, const char *cls, const lg_md *src, const lg_md *dst,
                  char key[LG_COST_KEY_LEN]) {
    char b0[8], b1[8];
    const char *fs = src ? lg__cost_family(src, b0) : NULL;
    const char *fd = dst ? lg__cost_family(dst, b1) : NULL;
    const lg_md *t = dst ? dst : src;
    if (fs && fd && strcmp(fs, fd) != 0)
        snprintf(key, LG_COST_KEY_LEN, "%s:%s:%s>%s:%s", kind, cls, fs, fd,
                 t ? lg_dtype_str(t->dtype) : "undef");
    else
        snprintf(key, LG_COST_KEY_LEN, "%s:%s:%s:%s", kind, cls,
                 fs   ? fs
                 : fd ? fd
                      : "-",
                 t ? lg_dtype_str(t->dtype) : "undef");
}

static const lg__cost_entry *find(const lg__cost_coefs *c, const char *key) {
    for (int i = 0; c && i < c->n; i++)
        if (strcmp(c->e[i].key, key) == 0) return &c->e[i];
    return NULL;
}

const lg__cost_entry *lg__cost_lookup(const lg__cost_coefs *c, const char *key) {
    const lg__cost_entry *e = find(c, key);
    if (e) return e;
    char k[LG_COST_KEY_LEN];
    const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    if (b && b - key < LG_COST_KEY_LEN - 5) {
        snprintf(k, sizeof k, "%.*s:*:*", (int)(b - key), key);
        if ((e = find(c, k))) return e;
    }
    if (a && a - key < LG_COST_KEY_LEN - 7) {
        snprintf(k, sizeof k, "%.*s:*:*:*", (int)(a - key), key);
        if ((e = find(c, k))) return e;
    }
    return find(c, "*");
}

double lg__cost_eval(const lg__cost_entry *e, double bytes, double flops, double spill) {
    if (!e) return bytes + 0.1 * flops; /* the byte-count model (see the header) */
    return e->fixed_ns + e->ns_per_byte * bytes + e->ns_per_flop * flops + e->ns_per_spill * spill;
}

double lg__cost_spill(double bytes) {
    return bytes > LG_COST_CACHE_BYTES ? bytes - LG_COST_CACHE_BYTES : 0;
}

double lg__cost_speedup(const lg__cost_coefs *c, int threads, bool compute) {
    if (threads <= 0) threads = omp_get_max_threads();
    double s2 = c ? (compute ? c->speedup2_compute : c->speedup2_memory) : 0;
    if (!(s2 > 1) || threads < 2) return 1;
    double s = 1 + (double)(threads - 1) * (fmin(s2, 2) - 1);
    return fmin(s, (double)threads);
}

double lg__cost_step_overhead(const lg__cost_coefs *c, int threads) {
    if (threads <= 0) threads = omp_get_max_threads();
    return c && threads >= 2 ? c->step_ns_mt : 0;
}

lg_status lg__cost_coefs_set(lg__cost_coefs *c, const lg__cost_entry *e) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->e[i].key, e->key) == 0) {
            c->e[i] = *e;
            return LG_OK;
        }
    lg__cost_entry *ne = lg__malloc((size_t)(c->n + 1) * sizeof *ne);
    if (!ne) return LG_OUT_OF_MEMORY;
    if (c->n) memcpy(ne, c->e, (size_t)c->n * sizeof *ne);
    ne[c->n] = *e;
    lg__free(c->e);
    c->e = ne;
    c->n++;
    return LG_OK;
}

void lg__cost_coefs_free(lg__cost_coefs *c) {
    if (!c) return;
    lg__free(c->e);
    memset(c, 0, sizeof *c);
}

/* ---- a small JSON reader for the file's schema ---- */

typedef struct reader {
    const char *s, *p, *what, *where;
    char err[160];
} reader;

static int line_of(const reader *r) {
    int line = 1;
    for (const char *q = r->s; q < r->p; q++) line += *q == '\n';
    return line;
}

static bool fail(reader *r, const char *msg) {
    if (!r->err[0]) snprintf(r->err, sizeof r->err, "line %d: %s", line_of(r), msg);
    return false;
}

static void ws(reader *r) {
    while (*r->p && isspace((unsigned char)*r->p)) r->p++;
}

static bool eat(reader *r, char ch) {
    ws(r);
    if (*r->p != ch) {
        char m[40];
        snprintf(m, sizeof m, "expected '%c'", ch);
        return fail(r, m);
    }
    r->p++;
    return true;
}

/* A string without escapes other than \" and \\, into buf (truncation is an error). */
static bool str(reader *r, char *buf, size_t len) {
    if (!eat(r, '"')) return false;
    size_t n = 0;
    while (*r->p && *r->p != '"') {
        char ch = *r->p++;
        if (ch == '\\') {
            if (*r->p != '"' && *r->p != '\\') return fail(r, "unsupported escape in a string");
            ch = *r->p++;
        }
        if ((unsigned char)ch < 0x20) return fail(r, "control character in a string");
        if (n + 1 >= len) return fail(r, "string too long");
        buf[n++] = ch;
    }
    if (*r->p != '"') return fail(r, "unterminated string");
    r->p++;
    buf[n] = 0;
    return true;
}

static bool num(reader *r, double *v) {
    ws(r);
    char *end;
    errno = 0;
    *v = strtod(r->p, &end);
    if (end == r->p || errno == ERANGE || !isfinite(*v)) return fail(r, "expected a finite number");
    r->p = end;
    return true;
}

static bool skip_value(reader *r, int depth);

/* Skip the members of an object or the elements of an array (after its
 * opening bracket). */
static bool skip_seq(reader *r, char close, int depth) {
    ws(r);
    if (*r->p == close) return r->p++, true;
    for (;;) {
        if (close == '}') {
            char k[64];
            if (!str(r, k, sizeof k) || !eat(r, ':')) return false;
        }
        if (!skip_value(r, depth + 1)) return false;
        ws(r);
        if (*r->p == close) return r->p++, true;
        if (!eat(r, ',')) return false;
    }
}

static bool skip_value(reader *r, int depth) {
    if (depth > 16) return fail(r, "nested too deeply");
    ws(r);
    char buf[256];
    double d;
    if (*r->p == '"') return str(r, buf, sizeof buf);
    if (*r->p == '{') return r->p++, skip_seq(r, '}', depth);
    if (*r->p == '[') return r->p++, skip_seq(r, ']', depth);
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++)
        if (strncmp(r->p, words[i], strlen(words[i])) == 0) return r->p += strlen(words[i]), true;
    return num(r, &d);
}

static bool entry(reader *r, lg__cost_entry *e) {
    memset(e, 0, sizeof *e);
    if (!eat(r, '{')) return false;
    bool has_key = false, has[3] = {false, false, false};
    ws(r);
    if (*r->p == '}') return fail(r, "an entry needs \"key\"");
    for (;;) {
        char k[64];
        if (!str(r, k, sizeof k) || !eat(r, ':')) return false;
        double v = 0;
        if (strcmp(k, "key") == 0) {
            if (!str(r, e->key, sizeof e->key)) return false;
            has_key = true;
        } else if (strcmp(k, "fixed_ns") == 0 || strcmp(k, "ns_per_byte") == 0 ||
                   strcmp(k, "ns_per_flop") == 0) {
            if (!num(r, &v)) return false;
            if (v < 0) return fail(r, "a coefficient is negative");
            int i = k[0] == 'f' ? 0 : k[7] == 'b' ? 1 : 2;
            (&e->fixed_ns)[i] = v;
            has[i] = true;
        } else if (strcmp(k, "ns_per_spill_byte") == 0) { /* optional: older files lack it */
            if (!num(r, &v)) return false;
            if (v < 0) return fail(r, "a coefficient is negative");
            e->ns_per_spill = v;
        } else if (strcmp(k, "samples") == 0) {
            if (!num(r, &v)) return false;
            e->samples = v > 0 && v < 1e9 ? (int)v : 0;
        } else if (strcmp(k, "rms_rel_err") == 0) {
            if (!num(r, &v)) return false;
            e->rms_rel_err = v;
        } else if (!skip_value(r, 2))
            return false;
        ws(r);
        if (*r->p == '}') {
            r->p++;
            break;
        }
        if (!eat(r, ',')) return false;
    }
    if (!has_key || !e->key[0]) return fail(r, "an entry needs a non-empty \"key\"");
    if (!has[0] || !has[1] || !has[2])
        return fail(r, "an entry needs fixed_ns, ns_per_byte and ns_per_flop");
    return true;
}

static bool entries(reader *r, lg__cost_coefs *c) {
    if (!eat(r, '[')) return false;
    ws(r);
    if (*r->p == ']') return r->p++, true;
    for (;;) {
        lg__cost_entry e;
        if (!entry(r, &e)) return false;
        if (find(c, e.key)) return fail(r, "duplicate key");
        if (lg__cost_coefs_set(c, &e) != LG_OK) return fail(r, "out of memory");
        ws(r);
        if (*r->p == ']') return r->p++, true;
        if (!eat(r, ',')) return false;
    }
}

lg_status lg__cost_coefs_parse(const char *text, const char *what, const char *where,
                               lg__cost_coefs *c) {
    memset(c, 0, sizeof *c);
    reader r = {.s = text, .p = text, .what = what, .where = where};
    bool version = false, has_entries = false, ok = eat(&r, '{');
    ws(&r);
    if (ok && *r.p == '}') ok = fail(&r, "empty object");
    while (ok) {
        char k[64];
        double v;
        if (!str(&r, k, sizeof k) || !eat(&r, ':')) {
            ok = false;
            break;
        }
        if (strcmp(k, "lgraph_cost_model") == 0) {
            ok = num(&r, &v) && (v == 1 || fail(&r, "unsupported lgraph_cost_model version"));
            version = true;
        } else if (strcmp(k, "machine") == 0)
            ok = str(&r, c->machine, sizeof c->machine);
        else if (strcmp(k, "threads") == 0) {
            ok = num(&r, &v);
            c->threads = v >= 0 && v < 1e6 ? (int)v : 0;
        } else if (strcmp(k, "speedup2_compute") == 0 || strcmp(k, "speedup2_memory") == 0) {
            ok = num(&r, &v) &&
                 ((v >= 0.5 && v <= 2) || fail(&r, "a 2-thread speedup must be in 0.5..2"));
            if (strcmp(k, "speedup2_compute") == 0)
                c->speedup2_compute = v;
            else
                c->speedup2_memory = v;
        } else if (strcmp(k, "step_ns_threads") == 0) {
            ok = num(&r, &v) && ((v >= 0 && v <= 1e6) ||
                                 fail(&r, "step_ns_threads must be in 0..1e6 (ns per step)"));
            c->step_ns_mt = v;
        } else if (strcmp(k, "entries") == 0) {
            ok = entries(&r, c);
            has_entries = true;
        } else
            ok = skip_value(&r, 1);
        ws(&r);
        if (!ok) break;
        if (*r.p == '}') {
            r.p++;
            break;
        }
        ok = eat(&r, ',');
    }
    if (ok) {
        ws(&r);
        if (*r.p)
            ok = fail(&r, "text after the object");
        else if (!version)
            ok = fail(&r, "no \"lgraph_cost_model\": 1 (not a cost model file)");
        else if (!has_entries || c->n == 0)
            ok = fail(&r, "no \"entries\"");
    }
    if (ok) return LG_OK;
    lg__cost_coefs_free(c);
    return lg__error(LG_INVALID_ARGUMENT, where, "cost model %s: %s", what, r.err);
}

lg_status lg__cost_coefs_load(const char *path, const char *where, lg__cost_coefs *c) {
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (!f)
        return lg__error(LG_INVALID_ARGUMENT, where, "cost model %s: cannot open: %s", path,
                         strerror(errno));
    char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && len <= (1L << 22) && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = lg__malloc((size_t)len + 1)) != NULL) {
        if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
            lg__free(buf);
            buf = NULL;
        } else
            buf[len] = 0;
    }
    fclose(f);
    if (!buf)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "cost model %s: cannot read it (or larger than 4 MB)", path);
    if (strlen(buf) != (size_t)len) {
        lg__free(buf);
        return lg__error(LG_INVALID_ARGUMENT, where, "cost model %s: a NUL byte in the text", path);
    }
    lg_status s = lg__cost_coefs_parse(buf, path, where, c);
    lg__free(buf);
    return s;
}

static void write_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
}

lg_status lg__cost_coefs_write(const lg__cost_coefs *c, FILE *f) {
    fprintf(f, "{\n  \"lgraph_cost_model\": 1,\n  \"machine\": ");
    write_str(f, c->machine);
    fprintf(f, ",\n  \"threads\": %d,\n", c->threads);
    if (c->speedup2_compute > 0 || c->speedup2_memory > 0)
        fprintf(f, "  \"speedup2_compute\": %.4g,\n  \"speedup2_memory\": %.4g,\n",
                c->speedup2_compute > 0 ? c->speedup2_compute : 1,
                c->speedup2_memory > 0 ? c->speedup2_memory : 1);
    if (c->step_ns_mt > 0) fprintf(f, "  \"step_ns_threads\": %.6g,\n", c->step_ns_mt);
    fprintf(
        f,
        "  \"units\": \"time = fixed_ns + ns_per_byte * bytes + ns_per_flop * flops (one "
        "thread; + ns_per_spill_byte * bytes beyond 8 MiB for steps with flops; on T threads "
        "divided by 1 + (T - 1) (speedup2 - 1), plus step_ns_threads per step)\",\n  \"entries\": "
        "[\n");
    for (int i = 0; i < c->n; i++) {
        const lg__cost_entry *e = &c->e[i];
        fprintf(f, "    {\"key\": ");
        write_str(f, e->key);
        fprintf(f, ", \"fixed_ns\": %.9g, \"ns_per_byte\": %.9g, \"ns_per_flop\": %.9g, ",
                e->fixed_ns, e->ns_per_byte, e->ns_per_flop);
        if (e->ns_per_spill > 0) fprintf(f, "\"ns_per_spill_byte\": %.9g, ", e->ns_per_spill);
        fprintf(f, "\"samples\": %d, \"rms_rel_err\": %.4g}%s\n", e->samples, e->rms_rel_err,
                i + 1 < c->n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return ferror(f) ? LG_RUNTIME_ERROR : LG_OK;
}

/* ---- the shipped default ---- */

static const char default_text[] =
#include "passes/cost_default.inc"
    ;

static lg__cost_coefs default_coefs;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void parse_default(void) {
    if (lg__cost_coefs_parse(default_text, "(built in)", "lg__cost_coefs_default",
                             &default_coefs) != LG_OK)
        memset(&default_coefs, 0, sizeof default_coefs);
}

const lg__cost_coefs *lg__cost_coefs_default(void) {
    pthread_once(&default_once, parse_default);
    return &default_coefs;
}

lg_status lg__cost_coefs_for(const char *path, const char *where, const lg__cost_coefs **c,
                             lg__cost_coefs **owned) {
    *owned = NULL;
    if (!path || !*path) path = getenv("LG_COST_MODEL");
    if (!path || !*path) {
        *c = lg__cost_coefs_default();
        return LG_OK;
    }
    lg__cost_coefs *t = lg__calloc(1, sizeof *t);
    if (!t) return lg__error(LG_OUT_OF_MEMORY, where, "out of memory");
    lg_status s = lg__cost_coefs_load(path, where, t);
    if (s != LG_OK) {
        lg__free(t);
        return s;
    }
    *c = *owned = t;
    return LG_OK;
}
