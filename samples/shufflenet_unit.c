/* shufflenet_unit: the main demo. Builds ShuffleNet v1's unit with g = 3
 * (workload W1 of the design):
 *
 *   x[N,240,28,28] -> conv1x1 groups=3 240->60 -> relu
 *                  -> channel shuffle (3 groups: group_size 60/3 = 20)
 *                  -> depthwise conv3x3 pad 1 (60) -> conv1x1 groups=3 60->240
 *                  -> add(x) -> relu -> y
 *
 * with x and y in nchw, compiles it under the three layout strategies and
 * prints, for each, the reorders it runs, the bytes they move, the steps, the
 * arena, and the time per run; writes each plan as Graphviz DOT and checks
 * that the three plans agree.
 *
 * Usage: shufflenet_unit [N] [runs]   (defaults 1 and 20) */
#include "sample_common.h"

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1;
    int runs = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || runs < 1) {
        fprintf(stderr, "usage: shufflenet_unit [N >= 1] [runs >= 1]\n");
        return 2;
    }
    const int64_t C = 240, M = 60, G = 3, H = 28, W = 28;

    lg_graph *g;
    sample_check(lg_graph_create(&g), "lg_graph_create");
    lg_md xmd;
    int64_t xdims[4] = {n, C, H, W};
    sample_check(lg_md_init_tag(&xmd, 4, xdims, LG_F32, "nchw"), "x");
    lg_value x, t;
    sample_check(lg_graph_add_input(g, "x", &xmd, &x), "x");

    /* conv1x1, 3 groups: weights G x (M/G) x (C/G) x 1 x 1. */
    lg_conv_params pw = {.strides = {1, 1}, .groups = G};
    int64_t w1d[5] = {G, M / G, C / G, 1, 1}, b1d[1] = {M};
    lg_value w1 = sample_constant(g, "w1", 5, w1d, "goihw", 1, C / G);
    lg_value b1 = sample_constant(g, "b1", 1, b1d, "a", 2, 1);
    sample_check(lg_graph_add_conv(g, x, w1, b1, &pw, &t), "conv1");
    sample_check(lg_graph_add_eltwise(g, t, LG_ELTWISE_RELU, 0, 0, &t), "relu1");

    /* ShuffleNet's shuffle of 3 groups is group_size = channels / 3. */
    sample_check(lg_graph_add_shuffle(g, t, 1, M / G, &t), "shuffle");

    /* depthwise 3x3, pad 1: weights M x 1 x 1 x 3 x 3. */
    lg_conv_params dw = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = M};
    int64_t w2d[5] = {M, 1, 1, 3, 3}, b2d[1] = {M};
    lg_value w2 = sample_constant(g, "w2", 5, w2d, "goihw", 3, 9);
    lg_value b2 = sample_constant(g, "b2", 1, b2d, "a", 4, 1);
    sample_check(lg_graph_add_conv(g, t, w2, b2, &dw, &t), "dwconv");

    /* conv1x1, 3 groups, back to 240 channels; then the residual add. */
    int64_t w3d[5] = {G, C / G, M / G, 1, 1}, b3d[1] = {C};
    lg_value w3 = sample_constant(g, "w3", 5, w3d, "goihw", 5, M / G);
    lg_value b3 = sample_constant(g, "b3", 1, b3d, "a", 6, 1);
    sample_check(lg_graph_add_conv(g, t, w3, b3, &pw, &t), "conv3");
    sample_check(lg_graph_add_binary(g, LG_BINARY_ADD, t, x, &t), "add");
    sample_check(lg_graph_add_eltwise(g, t, LG_ELTWISE_RELU, 0, 0, &t), "relu2");
    sample_check(lg_graph_add_output(g, t, "y", "nchw"), "y");

    size_t elems = (size_t)(n * C * H * W);
    float *xbuf = malloc(elems * sizeof(float));
    if (!xbuf) return 1;
    sample_fill(xbuf, elems, 42, 1.0f);
    printf("ShuffleNet v1 unit (g = 3), x[%" PRId64 ",240,28,28] nchw -> y nchw\n\n", n);
    int rc = sample_report(g, "shufflenet_unit", xbuf, elems, runs);
    free(xbuf);
    lg_graph_destroy(g);
    return rc;
}
