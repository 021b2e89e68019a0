/* Reading the command line and batch files: common options, driver
 * selection, knobs and problem descriptors (see lgbench.h). */
#include "lgbench.h"
#include "parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef LGB_INPUTS_DIR
#define LGB_INPUTS_DIR "bench/inputs"
#endif

#define MAX_DEPTH 16

static bool set_list(char **slot, const char *v) {
    char *s = strdup(v);
    if (!s) return false;
    free(*slot);
    *slot = s;
    return true;
}

/* Select drv and reset its knobs to their defaults. */
static bool select_driver(lgb_parser *p, const lgb_driver *drv) {
    p->drv = drv;
    for (int k = 0; k < LGB_MAX_KNOBS; k++) {
        free(p->lists[k]);
        p->lists[k] = NULL;
    }
    for (int k = 0; k < drv->nknobs; k++)
        if (!set_list(&p->lists[k], drv->defaults[k])) return false;
    return true;
}

static bool file_exists(const char *path) {
    return access(path, R_OK) == 0;
}

/* Find a --batch file: absolute; next to the including file; relative to
 * the current directory; then in the shipped inputs (inputs/<driver>/FILE,
 * inputs/FILE). Writes the path into out. */
static bool find_batch(const lgb_parser *p, const char *file, const char *dir, char *out,
                       size_t len) {
    if (file[0] == '/') {
        snprintf(out, len, "%s", file);
        return file_exists(out);
    }
    if (dir) {
        snprintf(out, len, "%s/%s", dir, file);
        if (file_exists(out)) return true;
    }
    snprintf(out, len, "%s", file);
    if (file_exists(out)) return true;
    if (p->drv) {
        snprintf(out, len, "%s/%s/%s", LGB_INPUTS_DIR, p->drv->name, file);
        if (file_exists(out)) return true;
    }
    snprintf(out, len, "%s/%s", LGB_INPUTS_DIR, file);
    return file_exists(out);
}

/* benchdnn's line continuation: a line ending in '\\' (trailing blanks
 * allowed) goes on with the next line, its leading blanks dropped; inside a
 * list the two join, "--alg=a,b, \\" + "   c,d" reads "--alg=a,b,c,d",
 * elsewhere a blank separates them. In place. */
static void join_continued(char *text) {
    char *w = text;
    for (char *r = text; *r;) {
        if (*r == '\\') {
            char *q = r + 1;
            while (*q == ' ' || *q == '\t' || *q == '\r') q++;
            if (*q == '\n' || *q == '\0') {
                while (w > text && (w[-1] == ' ' || w[-1] == '\t')) w--;
                /* Inside a list ("a,b, \\"): joined; else a blank between. */
                if (w > text && !strchr(",:+", w[-1])) *w++ = ' ';
                r = *q ? q + 1 : q;
                while (*r == ' ' || *r == '\t') r++;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* Split a batch file's text into tokens: whitespace separates, '#' at the
 * start of a token comments out the rest of the line, double quotes group
 * (and are removed). Tokens point into text, which is modified. */
static int tokenize(char *text, char ***out) {
    join_continued(text);
    size_t cap = 64, n = 0;
    char **tok = malloc(cap * sizeof *tok);
    if (!tok) return -1;
    char *r = text;
    while (*r) {
        while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') r++;
        if (!*r) break;
        if (*r == '#') {
            while (*r && *r != '\n') r++;
            continue;
        }
        char *w = r, *start = r;
        bool quoted = false;
        while (*r && (quoted || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
            if (*r == '"')
                quoted = !quoted;
            else
                *w++ = *r;
            r++;
        }
        if (*r) r++;
        *w = '\0';
        if (n == cap) {
            char **t = realloc(tok, 2 * cap * sizeof *tok);
            if (!t) {
                free(tok);
                return -1;
            }
            tok = t;
            cap *= 2;
        }
        tok[n++] = start;
    }
    *out = tok;
    return (int)n;
}

static bool read_batch(lgb_parser *p, const char *file, const char *where, const char *dir) {
    char path[4096];
    if (p->depth >= MAX_DEPTH) {
        fprintf(stderr, "lgbench: %s: --batch=%s: batch files nested more than %d deep\n", where,
                file, MAX_DEPTH);
        return false;
    }
    if (!find_batch(p, file, dir, path, sizeof path)) {
        fprintf(stderr, "lgbench: %s: --batch=%s: file not found\n", where, file);
        return false;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "lgbench: %s: cannot open %s\n", where, path);
        return false;
    }
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *t = realloc(text, 2 * cap);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text) {
        fprintf(stderr, "lgbench: %s: out of memory\n", path);
        return false;
    }
    text[n] = '\0';
    char **tok = NULL;
    int ntok = tokenize(text, &tok);
    bool ok = ntok >= 0;
    if (ok) {
        char subdir[4096];
        snprintf(subdir, sizeof subdir, "%s", path);
        char *slash = strrchr(subdir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(subdir, sizeof subdir, ".");
        p->depth++;
        ok = lgb_parse_tokens(p, ntok, tok, path, subdir);
        p->depth--;
    }
    free(tok);
    free(text);
    return ok;
}

static bool parse_mode(const char *v, lgb_mode *m) {
    if (!strcasecmp(v, "C"))
        *m = (lgb_mode){true, false};
    else if (!strcasecmp(v, "P"))
        *m = (lgb_mode){false, true};
    else if (!strcasecmp(v, "CP"))
        *m = (lgb_mode){true, true};
    else
        return false;
    return true;
}

/* A common option; returns 1 if handled, 0 if not one, -1 on error. */
static int common_option(lgb_parser *p, const char *t, const char *where, const char *dir) {
    lgb_ctx *c = p->ctx;
    if (!strncmp(t, "--mode=", 7)) {
        if (parse_mode(t + 7, &c->mode)) return 1;
        fprintf(stderr, "lgbench: %s: --mode takes C, P or CP, not '%s'\n", where, t + 7);
        return -1;
    }
    if (!strncmp(t, "--verbose=", 10) || !strncmp(t, "-v", 2)) {
        const char *v = t[1] == 'v' ? t + 2 : t + 10;
        long long x = 1;
        if (*v && !lgb_parse_int(v, 0, 99, &x)) {
            fprintf(stderr, "lgbench: %s: --verbose takes an integer in [0, 99], not '%s'\n", where,
                    v);
            return -1;
        }
        c->verbose = (int)x;
        return 1;
    }
    if (!strncmp(t, "--pairs=", 8)) {
        long long x;
        if (lgb_parse_int(t + 8, 1, 1 << 20, &x)) {
            c->pairs = (int)x;
            return 1;
        }
        fprintf(stderr, "lgbench: %s: --pairs takes an integer in [1, 2^20], not '%s'\n", where,
                t + 8);
        return -1;
    }
    if (!strncmp(t, "--fault=", 8)) {
        const char *v = t + 8;
        if (!strcmp(v, "none"))
            c->fault = LGB_FAULT_NONE;
        else if (!strcmp(v, "value"))
            c->fault = LGB_FAULT_VALUE;
        else if (!strcmp(v, "padding"))
            c->fault = LGB_FAULT_PADDING;
        else {
            fprintf(stderr, "lgbench: %s: --fault takes none, value or padding\n", where);
            return -1;
        }
        return 1;
    }
    if (!strncmp(t, "--every=", 8)) {
        long long x;
        if (lgb_parse_int(t + 8, 1, INT32_MAX, &x)) {
            c->every = (int)x;
            return 1;
        }
        fprintf(stderr, "lgbench: %s: --every takes an integer in [1, 2^31), not '%s'\n", where,
                t + 8);
        return -1;
    }
    if (!strncmp(t, "--match=", 8)) {
        snprintf(p->match, sizeof p->match, "%s", t + 8);
        return 1;
    }
    if (!strcmp(t, "--reset")) {
        if (p->drv && !select_driver(p, p->drv)) return -1;
        return 1;
    }
    if (!strncmp(t, "--batch=", 8)) return read_batch(p, t + 8, where, dir) ? 1 : -1;
    return 0;
}

bool lgb_parse_tokens(lgb_parser *p, int ntok, char **tok, const char *where, const char *dir) {
    for (int i = 0; i < ntok; i++) {
        const char *t = tok[i];
        int r = common_option(p, t, where, dir);
        if (r < 0) return false;
        if (r > 0) continue;
        if (t[0] == '-' && t[1] == '-') {
            const char *eq = strchr(t, '=');
            if (!eq) {
                const lgb_driver *d = lgb_find_driver(t + 2);
                if (d) {
                    if (!select_driver(p, d)) return false;
                    continue;
                }
                fprintf(stderr, "lgbench: %s: unknown option '%s'\n", where, t);
                return false;
            }
            size_t nlen = (size_t)(eq - t - 2);
            if (lgb_ignored_option(t + 2, nlen)) continue;
            if (!p->drv) {
                fprintf(stderr, "lgbench: %s: '%s' before a driver (--reorder, --conv, ...)\n",
                        where, t);
                return false;
            }
            int k = 0;
            while (k < p->drv->nknobs &&
                   (strlen(p->drv->knobs[k]) != nlen || strncmp(p->drv->knobs[k], t + 2, nlen)))
                k++;
            if (k == p->drv->nknobs) {
                fprintf(stderr, "lgbench: %s: --%s has no option '%.*s'\n", where, p->drv->name,
                        (int)(eq - t), t);
                return false;
            }
            if (!set_list(&p->lists[k], eq + 1)) return false;
            continue;
        }
        if (t[0] == '-') {
            fprintf(stderr, "lgbench: %s: unknown option '%s'\n", where, t);
            return false;
        }
        if (!p->drv) {
            fprintf(stderr, "lgbench: %s: problem '%s' before a driver (--reorder, ...)\n", where,
                    t);
            return false;
        }
        if (!lgb_jobs_expand(p->jobs, p->drv, p->lists, t, p->match)) {
            fprintf(stderr, "lgbench: out of memory\n");
            return false;
        }
    }
    return true;
}

void lgb_parser_free(lgb_parser *p) {
    for (int k = 0; k < LGB_MAX_KNOBS; k++) {
        free(p->lists[k]);
        p->lists[k] = NULL;
    }
}
