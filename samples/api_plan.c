/*
 * api_plan: compiled plans (docs/api.md, "Plans").
 *
 * A ShuffleNet v1 unit (the W1 workload, small): x[1,24,8,8] ->
 * grouped conv1x1 (3 groups, 24->12) -> relu -> channel shuffle (3 groups:
 * group_size 12/3 = 4) -> depthwise conv3x3 (12) -> grouped conv1x1
 * (3 groups, 12->24) -> add(x) -> relu -> y. The input and the output are
 * left "any", so the compiler also chooses their layouts.
 *
 * The graph is compiled with each strategy; the program prints what each
 * plan does (lg_plan_stats_get), asks each plan for its input and output
 * layouts (lg_plan_query_md), reorders the user's nchw data into them, runs
 * the plan from two threads at once (a plan is immutable and reentrant),
 * and checks every result against direct loops. The optimal plan is dumped
 * as text. Exits non-zero on a mismatch.
 */
#include <lgraph.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        lg_status s_ = (call);                                                                     \
        if (s_ != LG_OK) {                                                                         \
            fprintf(stderr, "%s: %s\n", #call, lg_last_error());                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { C = 24, M = 12, G = 3, H = 8, W = 8 };

/* Direct grouped convolution, nchw / goihw, stride 1, padding k/2. */
static void conv_ref(const float *x, int ic, const float *w, int oc, int g, int k, float *y) {
    int icg = ic / g, ocg = oc / g;
    for (int o = 0; o < oc; o++)
        for (int oh = 0; oh < H; oh++)
            for (int ow = 0; ow < W; ow++) {
                float acc = 0;
                int grp = o / ocg;
                for (int i = 0; i < icg; i++)
                    for (int kh = 0; kh < k; kh++)
                        for (int kw = 0; kw < k; kw++) {
                            int ih = oh - k / 2 + kh, iw = ow - k / 2 + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            acc += x[((grp * icg + i) * H + ih) * W + iw] *
                                   w[((o * icg + i) * k + kh) * k + kw];
                        }
                y[(o * H + oh) * W + ow] = acc;
            }
}

static lg_md md_of(int nd, const int64_t *d, const char *tag) {
    lg_md md;
    CHECK(lg_md_init_tag(&md, nd, d, LG_F32, tag));
    return md;
}

/* Reorder `from` (layout a) into a new zeroed buffer of layout b. */
static void *reorder_to(const lg_md *a, const lg_md *b, const void *from) {
    lg_kernel *r;
    CHECK(lg_reorder_create(&r, a, b, NULL));
    void *to = calloc(1, lg_md_size(b));
    lg_arg args[2] = {{LG_ARG_SRC, (void *)from}, {LG_ARG_DST, to}};
    CHECK(lg_kernel_execute(r, 2, args));
    lg_kernel_destroy(r);
    return to;
}

typedef struct run {
    const lg_plan *plan;
    void *x, *y;
    lg_status status;
} run;

static void *execute(void *arg) {
    run *r = arg;
    lg_binding in = {"x", r->x}, out = {"y", r->y};
    r->status = lg_plan_execute(r->plan, 1, &in, 1, &out);
    return NULL;
}

int main(void) {
    static float x[C * H * W], w1[M * (C / G)], w2[M * 9], w3[C * (M / G)];
    static float t1[M * H * W], t2[M * H * W], t3[M * H * W], t4[C * H * W], want[C * H * W];
    for (int i = 0; i < C * H * W; i++) x[i] = (float)((i * 7) % 13) - 6.0f;
    for (int i = 0; i < M * (C / G); i++) w1[i] = (float)((i * 5) % 7) - 3.0f;
    for (int i = 0; i < M * 9; i++) w2[i] = (float)((i * 3) % 5) - 2.0f;
    for (int i = 0; i < C * (M / G); i++) w3[i] = (float)((i * 2) % 5) - 2.0f;

    /* The unit with direct loops: the truth. */
    conv_ref(x, C, w1, M, G, 1, t1);
    for (int i = 0; i < M * H * W; i++) t1[i] = t1[i] > 0 ? t1[i] : 0;
    for (int c = 0; c < M; c++) /* shuffle: dst channel c reads (c % 3) * 4 + c / 3 */
        memcpy(&t2[c * H * W], &t1[((c % G) * (M / G) + c / G) * H * W], sizeof(float) * H * W);
    conv_ref(t2, M, w2, M, M, 3, t3);
    conv_ref(t3, M, w3, C, G, 1, t4);
    for (int i = 0; i < C * H * W; i++) {
        float v = t4[i] + x[i];
        want[i] = v > 0 ? v : 0;
    }

    int64_t xd[4] = {1, C, H, W}, w1d[5] = {G, M / G, C / G, 1, 1}, w2d[5] = {M, 1, 1, 3, 3};
    int64_t w3d[5] = {G, C / G, M / G, 1, 1};
    lg_md x_any = md_of(4, xd, "any"), x_nchw = md_of(4, xd, "nchw");
    lg_md w1_md = md_of(5, w1d, "goihw"), w2_md = md_of(5, w2d, "goihw");
    lg_md w3_md = md_of(5, w3d, "goihw");
    lg_graph *g;
    lg_value vx, v1, v2, v3, a, b, c, d, e, f, y;
    CHECK(lg_graph_create(&g));
    CHECK(lg_graph_add_input(g, "x", &x_any, &vx));
    CHECK(lg_graph_add_constant(g, "w1", &w1_md, w1, &v1));
    CHECK(lg_graph_add_constant(g, "w2", &w2_md, w2, &v2));
    CHECK(lg_graph_add_constant(g, "w3", &w3_md, w3, &v3));
    lg_conv_params pg = {.strides = {1, 1}, .groups = G};
    lg_conv_params pdw = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = M};
    CHECK(lg_graph_add_conv(g, vx, v1, LG_NO_VALUE, &pg, &a));
    CHECK(lg_graph_add_eltwise(g, a, LG_ELTWISE_RELU, 0, 0, &b));
    CHECK(lg_graph_add_shuffle(g, b, 1, M / G, &c));
    CHECK(lg_graph_add_conv(g, c, v2, LG_NO_VALUE, &pdw, &d));
    CHECK(lg_graph_add_conv(g, d, v3, LG_NO_VALUE, &pg, &e));
    CHECK(lg_graph_add_binary(g, LG_BINARY_ADD, e, vx, &f));
    CHECK(lg_graph_add_eltwise(g, f, LG_ELTWISE_RELU, 0, 0, &y));
    CHECK(lg_graph_add_output(g, y, "y", "any"));

    static const char *const names[] = {"none", "greedy", "optimal"};
    int wrong = 0;
    for (int s = LG_STRATEGY_NONE; s <= LG_STRATEGY_OPTIMAL; s++) {
        lg_compile_options o;
        lg_compile_options_init(&o);
        o.strategy = (lg_strategy)s;
        lg_plan *plan;
        CHECK(lg_graph_compile(g, &o, &plan));
        lg_plan_stats st;
        CHECK(lg_plan_stats_get(plan, &st));
        lg_md xm, ym;
        CHECK(lg_plan_query_md(plan, "x", &xm));
        CHECK(lg_plan_query_md(plan, "y", &ym));
        char xt[64], yt[64];
        CHECK(lg_md_tag(&xm, xt, sizeof xt));
        CHECK(lg_md_tag(&ym, yt, sizeof yt));
        printf("%-7s x:%s y:%s  steps %d, runtime reorders %d (%lld bytes), folded %d, "
               "arena %lld bytes, model cost %.4g%s\n",
               names[s], xt, yt, st.steps, st.runtime_reorders, (long long)st.reorder_bytes,
               st.folded_reorders, (long long)st.arena_bytes, st.model_cost,
               st.exact ? " (proven optimal)" : "");

        /* Two threads run the same plan at once, each with its own buffers. */
        run r[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            r[t] = (run){plan, reorder_to(&x_nchw, &xm, x), calloc(1, lg_md_size(&ym)), LG_OK};
            pthread_create(&th[t], NULL, execute, &r[t]);
        }
        for (int t = 0; t < 2; t++) {
            pthread_join(th[t], NULL);
            if (r[t].status != LG_OK) {
                printf("execute: %s\n", lg_last_error());
                return 1;
            }
            float *yu = reorder_to(&ym, &x_nchw, r[t].y);
            for (int i = 0; i < C * H * W; i++)
                if (fabsf(yu[i] - want[i]) > 1e-4f * (1 + fabsf(want[i]))) wrong++;
            free(yu);
            free(r[t].x);
            free(r[t].y);
        }
        if (s == LG_STRATEGY_OPTIMAL) CHECK(lg_plan_dump(plan, stdout, "text"));
        lg_plan_destroy(plan);
    }
    lg_graph_destroy(g);
    printf("%d wrong elements over 3 strategies x 2 threads\n", wrong);
    if (wrong) return 1;
    printf("OK\n");
    return 0;
}
