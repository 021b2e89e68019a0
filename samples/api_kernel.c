/*
 * api_kernel: kernels (docs/api.md, "Kernels").
 *
 * The oneDNN-style flow for a compute kernel whose layouts are left "any":
 * create the convolution, ask which layouts it chose, reorder the user's
 * nchw/oihw data into them, run it, reorder the result back to nchw. Then an
 * eltwise kernel run in place. The convolution (3x3, pad 1, bias, relu
 * post-op) is checked against a direct loop; exits non-zero on a mismatch.
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

enum { N = 1, IC = 8, OC = 12, H = 6, W = 6, K = 3 };

/* Reorder buffer `from` (layout a) into a new buffer of layout b. */
static void *reorder_to(const lg_md *a, const lg_md *b, const void *from) {
    lg_kernel *r;
    CHECK(lg_reorder_create(&r, a, b, NULL));
    void *to = calloc(1, lg_md_size(b)); /* zeroed: blocked padding must be 0 */
    lg_arg args[2] = {{LG_ARG_SRC, (void *)from}, {LG_ARG_DST, to}};
    CHECK(lg_kernel_execute(r, 2, args));
    lg_kernel_destroy(r);
    return to;
}

int main(void) {
    /* User data in plain layouts. */
    static float x[N * IC * H * W], w[OC * IC * K * K], b[OC], y[N * OC * H * W];
    for (int i = 0; i < N * IC * H * W; i++) x[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < OC * IC * K * K; i++) w[i] = (float)(i % 5) - 2.0f;
    for (int i = 0; i < OC; i++) b[i] = 0.5f * (float)i - 3.0f;
    int64_t xd[4] = {N, IC, H, W}, wd[4] = {OC, IC, K, K}, yd[4] = {N, OC, H, W}, bd[1] = {OC};
    lg_md x_user, w_user, y_user, b_md, x_any, w_any, y_any;
    CHECK(lg_md_init_tag(&x_user, 4, xd, LG_F32, "nchw"));
    CHECK(lg_md_init_tag(&w_user, 4, wd, LG_F32, "oihw"));
    CHECK(lg_md_init_tag(&y_user, 4, yd, LG_F32, "nchw"));
    CHECK(lg_md_init_tag(&b_md, 1, bd, LG_F32, "a"));
    CHECK(lg_md_init_tag(&x_any, 4, xd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&w_any, 4, wd, LG_F32, "any"));
    CHECK(lg_md_init_tag(&y_any, 4, yd, LG_F32, "any"));

    /* 3x3, stride 1, pad 1 on each side, no dilation (0 = dense), relu fused. */
    lg_conv_params p = {.strides = {1, 1}, .pad_l = {1, 1}, .pad_r = {1, 1}, .groups = 1};
    lg_attr *attr;
    CHECK(lg_attr_create(&attr));
    CHECK(lg_attr_append_eltwise(attr, LG_ELTWISE_RELU, 0, 0));
    lg_kernel *conv;
    CHECK(lg_conv_create(&conv, &p, &x_any, &w_any, &b_md, &y_any, attr));
    lg_attr_destroy(attr);

    /* The layouts it chose (blocked ones on a SIMD machine). */
    lg_md x_k, w_k, y_k;
    CHECK(lg_kernel_query_md(conv, LG_ARG_SRC, &x_k));
    CHECK(lg_kernel_query_md(conv, LG_ARG_WEIGHTS, &w_k));
    CHECK(lg_kernel_query_md(conv, LG_ARG_DST, &y_k));
    char xt[64], wt[64], yt[64];
    CHECK(lg_md_tag(&x_k, xt, sizeof xt));
    CHECK(lg_md_tag(&w_k, wt, sizeof wt));
    CHECK(lg_md_tag(&y_k, yt, sizeof yt));
    printf("conv %s chose src %s, weights %s, dst %s\n", lg_kernel_impl(conv), xt, wt, yt);

    void *xk = reorder_to(&x_user, &x_k, x), *wk = reorder_to(&w_user, &w_k, w);
    void *yk = calloc(1, lg_md_size(&y_k));
    lg_arg args[4] = {{LG_ARG_SRC, xk}, {LG_ARG_WEIGHTS, wk}, {LG_ARG_BIAS, b}, {LG_ARG_DST, yk}};
    CHECK(lg_kernel_execute(conv, 4, args));
    void *yu = reorder_to(&y_k, &y_user, yk);

    /* Direct loop: y = relu(b + sum x * w) over the taps inside the image. */
    int bad = 0;
    for (int oc = 0; oc < OC; oc++)
        for (int oh = 0; oh < H; oh++)
            for (int ow = 0; ow < W; ow++) {
                float acc = b[oc];
                for (int ic = 0; ic < IC; ic++)
                    for (int kh = 0; kh < K; kh++)
                        for (int kw = 0; kw < K; kw++) {
                            int ih = oh - 1 + kh, iw = ow - 1 + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            acc +=
                                x[(ic * H + ih) * W + iw] * w[((oc * IC + ic) * K + kh) * K + kw];
                        }
                y[(oc * H + oh) * W + ow] = acc > 0 ? acc : 0;
            }
    for (int i = 0; i < N * OC * H * W; i++)
        if (fabsf(((float *)yu)[i] - y[i]) > 1e-4f * (1 + fabsf(y[i]))) bad++;
    printf("conv: %d of %d outputs differ from the direct loop\n", bad, N * OC * H * W);

    /* Eltwise in place on the user's output: dst may be the src buffer. */
    lg_kernel *tanh_k;
    CHECK(lg_eltwise_create(&tanh_k, LG_ELTWISE_TANH, 0, 0, &y_user, NULL));
    lg_arg eargs[2] = {{LG_ARG_SRC, yu}, {LG_ARG_DST, yu}};
    CHECK(lg_kernel_execute(tanh_k, 2, eargs));
    for (int i = 0; i < N * OC * H * W; i++)
        if (fabsf(((float *)yu)[i] - tanhf(y[i])) > 1e-5f) bad++;
    printf("tanh in place (%s): %s\n", lg_kernel_impl(tanh_k), bad ? "wrong" : "matches tanhf");

    /* A missing argument is an error, not a crash. */
    lg_status s = lg_kernel_execute(conv, 3, args);
    printf("conv without its dst: %s: %s\n", lg_status_str(s), lg_last_error());
    if (s == LG_OK) bad++;

    lg_kernel_destroy(tanh_k);
    lg_kernel_destroy(conv);
    free(xk);
    free(wk);
    free(yk);
    free(yu);
    if (bad) return 1;
    printf("OK\n");
    return 0;
}
