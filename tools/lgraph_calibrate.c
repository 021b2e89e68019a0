/* lgraph-calibrate: time the kernels this machine runs and fit the cost
 * model's coefficients (lg_calibrate), writing them as JSON for
 * lg_compile_options.cost_model / LG_COST_MODEL.
 *
 *   lgraph-calibrate [--quick] [--threads=N] [--runs=K] [--verbose] [-o FILE]
 *
 * FILE defaults to lgraph_cost_model.json. */
#include <lgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
    fprintf(stderr, "usage: lgraph-calibrate [--quick] [--threads=N] [--runs=K] [--verbose] "
                    "[-o FILE]\n"
                    "  times every node kind in each layout family on this machine, fits the\n"
                    "  cost model by least squares and writes it as JSON (default\n"
                    "  lgraph_cost_model.json); load it with LG_COST_MODEL=FILE.\n");
    return 2;
}

static int parse_int(const char *s, int lo, int hi, int *v) {
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < lo || x > hi) return -1;
    *v = (int)x;
    return 0;
}

int main(int argc, char **argv) {
    lg_calibrate_options o;
    lg_calibrate_options_init(&o);
    const char *out = "lgraph_cost_model.json";
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0)
            o.quick = true;
        else if (strcmp(a, "--verbose") == 0)
            verbose = true;
        else if (strncmp(a, "--threads=", 10) == 0) {
            if (parse_int(a + 10, 1, LG_MAX_THREADS, &o.num_threads)) return usage();
        } else if (strncmp(a, "--runs=", 7) == 0) {
            if (parse_int(a + 7, 1, 1000, &o.runs)) return usage();
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else
            return usage();
    }
    o.log = verbose ? stderr : NULL;
    if (lg_calibrate(out, &o) != LG_OK) {
        fprintf(stderr, "lgraph-calibrate: %s\n", lg_last_error());
        return 1;
    }
    fprintf(stderr, "lgraph-calibrate: wrote %s\n", out);
    return 0;
}
