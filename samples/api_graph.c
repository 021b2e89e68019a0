/*
 * api_graph: building and running a graph (docs/api.md, "Graphs").
 *
 * A residual block, the shape of ResNet's:
 *     x[1,16,8,8] -> conv3x3(16->16, pad 1, bias) -> relu -> conv1x1(16->16)
 *                 -> add(x) -> relu -> y
 * Weights and biases are constants (copied into the graph); x and y are
 * nchw. lg_graph_compile picks layouts for everything in between, inserts
 * the reorders, fuses relu and the residual add into the convolutions and
 * plans memory; lg_plan_execute runs it. The result is checked against
 * direct loops; exits non-zero on a mismatch.
 */
#include <lgraph.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        lg_status s_ = (call);                                                                     \
        if (s_ != LG_OK) {                                                                         \
            fprintf(stderr, "%s: %s\n", #call, lg_last_error());                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { C = 16, H = 8, W = 8 };

/* Direct convolution, nchw / oihw, stride 1, padding k/2, plus bias. */
static void conv_ref(const float *x, const float *w, const float *b, int k, float *y) {
    for (int oc = 0; oc < C; oc++)
        for (int oh = 0; oh < H; oh++)
            for (int ow = 0; ow < W; ow++) {
                float acc = b ? b[oc] : 0.0f;
                for (int ic = 0; ic < C; ic++)
                    for (int kh = 0; kh < k; kh++)
                        for (int kw = 0; kw < k; kw++) {
                            int ih = oh - k / 2 + kh, iw = ow - k / 2 + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            acc += x[(ic * H + ih) * W + iw] * w[((oc * C + ic) * k + kh) * k + kw];
                        }
                y[(oc * H + oh) * W + ow] = acc;
            }
}

int main(void) {
    static float x[C * H * W], w1[C * C * 9], b1[C], w2[C * C], y[C * H * W];
    static float t1[C * H * W], t2[C * H * W], want[C * H * W];
    for (int i = 0; i < C * H * W; i++) x[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < C * C * 9; i++) w1[i] = (float)((i * 5) % 7) - 3.0f;
    for (int i = 0; i < C * C; i++) w2[i] = (float)((i * 3) % 5) - 2.0f;
    for (int i = 0; i < C; i++) b1[i] = 0.25f * (float)i;

    int64_t xd[4] = {1, C, H, W}, w1d[4] = {C, C, 3, 3}, w2d[4] = {C, C, 1, 1}, bd[1] = {C};
    lg_md x_md, w1_md, w2_md, b_md;
    CHECK(lg_md_init_tag(&x_md, 4, xd, LG_F32, "nchw"));
    CHECK(lg_md_init_tag(&w1_md, 4, w1d, LG_F32, "oihw"));
    CHECK(lg_md_init_tag(&w2_md, 4, w2d, LG_F32, "oihw"));
    CHECK(lg_md_init_tag(&b_md, 1, bd, LG_F32, "a"));

    /* Build: each call checks its inputs and returns the new value. */
    lg_graph *g;
    lg_value vx, vw1, vb1, vw2, c1, r1, c2, sum, out;
    CHECK(lg_graph_create(&g));
    CHECK(lg_graph_add_input(g, "x", &x_md, &vx));
    CHECK(lg_graph_add_constant(g, "w1", &w1_md, w1, &vw1));
    CHECK(lg_graph_add_constant(g, "b1", &b_md, b1, &vb1));
    CHECK(lg_graph_add_constant(g, "w2", &w2_md, w2, &vw2));
    lg_conv_params p3 = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    lg_conv_params p1 = {.strides = {1, 1}, .groups = 1};
    CHECK(lg_graph_add_conv(g, vx, vw1, vb1, &p3, &c1));
    CHECK(lg_graph_add_eltwise(g, c1, LG_ELTWISE_RELU, 0, 0, &r1));
    CHECK(lg_graph_add_conv(g, r1, vw2, LG_NO_VALUE, &p1, &c2));
    CHECK(lg_graph_add_binary(g, LG_BINARY_ADD, c2, vx, &sum));
    CHECK(lg_graph_add_eltwise(g, sum, LG_ELTWISE_RELU, 0, 0, &out));
    CHECK(lg_graph_add_output(g, out, "y", "nchw"));

    /* A mistake is caught where it is made, with the node named. */
    lg_value bad;
    lg_status s = lg_graph_add_binary(g, LG_BINARY_ADD, c2, vw1, &bad);
    printf("adding a 16x16x3x3 tensor to a 1x16x8x8 one: %s: %s\n", lg_status_str(s),
           lg_last_error());

    /* Compile with the defaults (optimal layouts, fusion on), then run. The
     * graph may be destroyed at once: the plan owns what it needs. */
    lg_plan *plan;
    CHECK(lg_graph_compile(g, NULL, &plan));
    lg_graph_destroy(g);
    lg_binding in = {"x", x}, o = {"y", y};
    CHECK(lg_plan_execute(plan, 1, &in, 1, &o));
    lg_plan_stats st;
    CHECK(lg_plan_stats_get(plan, &st));
    printf("plan: %d steps, %d runtime reorders, %d folded at compile time\n", st.steps,
           st.runtime_reorders, st.folded_reorders);

    /* The same block with direct loops. */
    conv_ref(x, w1, b1, 3, t1);
    for (int i = 0; i < C * H * W; i++) t1[i] = t1[i] > 0 ? t1[i] : 0;
    conv_ref(t1, w2, NULL, 1, t2);
    for (int i = 0; i < C * H * W; i++) {
        float v = t2[i] + x[i];
        want[i] = v > 0 ? v : 0;
    }
    int wrong = 0;
    for (int i = 0; i < C * H * W; i++)
        if (fabsf(y[i] - want[i]) > 1e-4f * (1 + fabsf(want[i]))) wrong++;
    printf("y: %d of %d elements differ from the direct loops\n", wrong, C * H * W);
    lg_plan_destroy(plan);
    if (s == LG_OK || wrong) return 1;
    printf("OK\n");
    return 0;
}
