/* resnet_block: ResNet-50's bottleneck block of stage conv2_x (workload W2):
 *
 *   x[N,256,56,56] -> conv1x1 256->64 -> relu -> conv3x3 pad 1 64->64 -> relu
 *                  -> conv1x1 64->256 -> add(x) -> relu -> y
 *
 * with x and y in nchw, compiled under NONE, GREEDY and OPTIMAL, with the same
 * report as shufflenet_unit (reorders, bytes, steps, arena, time per run, a
 * DOT file per plan, and a check that the plans agree).
 *
 * Usage: resnet_block [N] [runs]   (defaults 1 and 10) */
#include "sample_common.h"

/* conv (k x k, pad k/2) + bias, then relu unless it is the last conv. */
static lg_value conv(lg_graph *g, lg_value src, int64_t ic, int64_t oc, int64_t k, int id,
                     int relu) {
    char wname[16], bname[16];
    snprintf(wname, sizeof wname, "w%d", id);
    snprintf(bname, sizeof bname, "b%d", id);
    int64_t wd[4] = {oc, ic, k, k}, bd[1] = {oc};
    lg_value w = sample_constant(g, wname, 4, wd, "oihw", (uint32_t)(2 * id), ic * k * k);
    lg_value b = sample_constant(g, bname, 1, bd, "a", (uint32_t)(2 * id + 1), 1);
    lg_conv_params p = {
        .strides = {1, 1}, .pad_l = {k / 2, k / 2}, .pad_r = {k / 2, k / 2}, .groups = 1};
    lg_value y;
    sample_check(lg_graph_add_conv(g, src, w, b, &p, &y), wname);
    if (relu) sample_check(lg_graph_add_eltwise(g, y, LG_ELTWISE_RELU, 0, 0, &y), "relu");
    return y;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1;
    int runs = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || runs < 1) {
        fprintf(stderr, "usage: resnet_block [N >= 1] [runs >= 1]\n");
        return 2;
    }
    lg_graph *g;
    sample_check(lg_graph_create(&g), "lg_graph_create");
    lg_md xmd;
    int64_t xdims[4] = {n, 256, 56, 56};
    sample_check(lg_md_init_tag(&xmd, 4, xdims, LG_F32, "nchw"), "x");
    lg_value x, t;
    sample_check(lg_graph_add_input(g, "x", &xmd, &x), "x");
    t = conv(g, x, 256, 64, 1, 1, 1);
    t = conv(g, t, 64, 64, 3, 2, 1);
    t = conv(g, t, 64, 256, 1, 3, 0);
    sample_check(lg_graph_add_binary(g, LG_BINARY_ADD, t, x, &t), "add");
    sample_check(lg_graph_add_eltwise(g, t, LG_ELTWISE_RELU, 0, 0, &t), "relu");
    sample_check(lg_graph_add_output(g, t, "y", "nchw"), "y");

    size_t elems = (size_t)(n * 256 * 56 * 56);
    float *xbuf = malloc(elems * sizeof(float));
    if (!xbuf) return 1;
    sample_fill(xbuf, elems, 7, 1.0f);
    printf("ResNet-50 bottleneck (conv2_x), x[%" PRId64 ",256,56,56] nchw -> y nchw\n\n", n);
    int rc = sample_report(g, "resnet_block", xbuf, elems, runs);
    free(xbuf);
    lg_graph_destroy(g);
    return rc;
}
