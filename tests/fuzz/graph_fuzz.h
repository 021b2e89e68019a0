/* The graph fuzz target's state (tests/fuzz/fuzz_graph.c builds the graph,
 * graph_run.c compiles, executes and checks it, graph_extreme.c makes the
 * calls with extreme parameters). */
#ifndef LG_TESTS_FUZZ_GRAPH_FUZZ_H
#define LG_TESTS_FUZZ_GRAPH_FUZZ_H

#include "fuzz/fuzz.h"
#include "fuzz/graph_model.h"

#define T         "graph"
#define MAX_VALS  24
#define MAX_OUTS  12
#define MAX_OPS   14
#define MAX_ELEMS 4096   /* per tensor */
#define MAX_MACS  200000 /* per conv node */

typedef struct node {
    int nin;
    lg_value in[3], out;
} node;

typedef struct gstate {
    fz *f;
    lg_graph *g;
    gm_value v[MAX_VALS];
    bool is_input[MAX_VALS];
    lg_md in_md[MAX_VALS];              /* an input's md as given */
    char used[MAX_VALS + MAX_OUTS][16]; /* names of leaves and outputs */
    int nused;
    int nvals, ninputs;
    node nodes[MAX_VALS];
    int nnodes;
    struct {
        lg_value v;
        char name[16];
    } outs[MAX_OUTS];
    int nouts;
    bool exotic; /* some value is not f32: compile may say LG_UNIMPLEMENTED */
} gstate;

/* What a call must do. */
typedef enum want {
    MUST_PASS,
    MAY_BE_UNIMPLEMENTED, /* a type the node may not take */
    MUST_REFUSE,          /* a mistake: LG_INVALID_ARGUMENT or LG_INVALID_GRAPH */
    MUST_REFUSE_ANY,      /* a mistake with a type the node may not take */
} want;

/* A buffer for md (exact size, so that ASan sees any access beyond it),
 * holding v (f32, checked) or a fixed byte pattern (any other value) in its
 * logical elements, and zeros in its padding (as the contract asks). */
void *gf_pack(const lg_md *md, const gm_value *v);

/* Compile s->g with strategy st (fusion, threads and disabled passes from
 * the bytes) and, if that succeeds, execute the plan twice and check its
 * outputs against the model. valid: every value reaches an output (else
 * compile must say LG_INVALID_GRAPH). fail_at >= 0: the allocation after the
 * first fail_at ones of compile, and of the first execution, fails (then
 * LG_OUT_OF_MEMORY is the only acceptable failure). */
void gf_compile_and_run(gstate *s, lg_strategy st, bool valid, int64_t fail_at);

/* One builder call with an extreme parameter from the bytes, on a scratch
 * graph whose input is shaped like x (graph_extreme.c states the calls and
 * their properties). */
void gf_extreme(fz *f, const gm_value *x);

/* With LG_FUZZ_TRACE=1 in the environment, print to stderr (every builder
 * call, to read a failing input); else nothing. */
void gf_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LG_TESTS_FUZZ_GRAPH_FUZZ_H */
