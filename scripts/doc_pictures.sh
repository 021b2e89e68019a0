#!/usr/bin/env bash
# Draw the layout pictures of docs/formats.md into docs/img/: a 1x10x3x3 f32
# tensor in nchw, nhwc and nChw8c, and a view (lg_md_submemory) of channels
# 8..9 inside the nChw8c buffer, outlined in red with the padding it owns. Each picture shows the logical tensor
# (one 3x3 plane per channel, each element labelled with its offset in the
# buffer, the padded channels of a blocked layout in grey) and the buffer
# itself in memory order (each element labelled with its channel and h,w).
#
# The offsets come from lgraph itself (lg_md_init_tag, lg_md_offset and the
# md's blocking for the padding): a small C program, written below, prints a
# gnuplot script per layout; gnuplot (Debian's gnuplot-nox, installed here
# if missing) renders it. Run from anywhere: bash scripts/doc_pictures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! dpkg-query -W -f='${Status}' gnuplot-nox 2>/dev/null | grep -q "install ok installed"; then
  echo "doc_pictures: installing gnuplot-nox"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gnuplot-nox >/dev/null
fi

build=${BUILD_DIR:-build}
[ -f "$build/liblgraph.so" ] || BUILD_DIR=$build bash scripts/build.sh >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/layout_plot.c" <<'EOF'
/* Print a gnuplot script drawing a 1x10x3x3 tensor in the layout `tag`. */
#include <lgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C 10
#define H 3
#define W 3

/* The buffer offset of any index inside the padded dims, padding included
 * (lg_md_offset answers only for logical indices): outer blocks by the
 * strides, inner blocks innermost last, as lgraph.h states the layout. */
static int64_t offset(const lg_md *md, const int64_t *idx) {
    int64_t rem[LG_MAX_NDIMS], off = 0, mult = 1;
    memcpy(rem, idx, sizeof(int64_t) * (size_t)md->ndims);
    for (int b = md->blocking.inner_nblks - 1; b >= 0; b--) {
        int d = md->blocking.inner_idxs[b];
        off += (rem[d] % md->blocking.inner_blks[b]) * mult;
        rem[d] /= md->blocking.inner_blks[b];
        mult *= md->blocking.inner_blks[b];
    }
    for (int d = 0; d < md->ndims; d++) off += rem[d] * md->blocking.strides[d];
    return md->offset0 + off;
}

static const char *colour[C] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3",
                                "#fdb462", "#b3de69", "#fccde5", "#bc80bd", "#ccebc5"};

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) return 2;
    const char *tag = argv[1], *png = argv[2], *title = argv[3];
    const int strip = atoi(argv[4]); /* cells per row in the memory view */
    int64_t dims[4] = {1, C, H, W};
    lg_md md;
    if (lg_md_init_tag(&md, 4, dims, LG_F32, tag) != LG_OK) {
        fprintf(stderr, "%s\n", lg_last_error());
        return 1;
    }
    /* An optional view: channels argv[5].. to the end, as lg_md_submemory
     * gives it (it owns the padding after them). */
    int64_t v0 = argc == 6 ? atoi(argv[5]) : -1, v1 = -1;
    lg_md view;
    if (v0 >= 0) {
        int64_t vd[4] = {1, C - v0, H, W}, vo[4] = {0, v0, 0, 0};
        if (lg_md_submemory(&md, vd, vo, &view) != LG_OK) {
            fprintf(stderr, "%s\n", lg_last_error());
            return 1;
        }
        v1 = v0 + view.padded_dims[1];
    }
    int64_t pc = md.padded_dims[1], total = (int64_t)(lg_md_size(&md) / sizeof(float));
    /* Check the padding-aware offset against lgraph for every logical index. */
    for (int64_t c = 0; c < C; c++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t w = 0; w < W; w++) {
                int64_t idx[4] = {0, c, h, w};
                if (offset(&md, idx) != lg_md_offset(&md, idx)) return 3;
            }
    /* Cell (memory position) -> logical index, to draw the strip. */
    int64_t *cell_c = calloc((size_t)total, sizeof(int64_t));
    int64_t *cell_hw = calloc((size_t)total, sizeof(int64_t));
    if (!cell_c || !cell_hw) return 1;

    const int per_row = 8;              /* planes per row in the logical view */
    const double pw = W + 0.6;          /* plane width with its gap */
    int prow = (int)((pc + per_row - 1) / per_row);
    double top = 0, strip_top = -(prow * (H + 1.2) + 1.6);
    int srows = (int)((total + strip - 1) / strip);
    double width = per_row * pw, height = -strip_top + srows + 0.8;
    int obj = 1;

    printf("set terminal pngcairo size %d,%d font 'DejaVu Sans,9'\n", (int)((width + 1.4) * 46),
           (int)((height + 1.2) * 46));
    printf("set output '%s'\n", png);
    printf("unset border; unset tics; unset key\n");
    printf("set xrange [-1.1:%g]\nset yrange [%g:%g]\n", width + 0.3, strip_top - srows - 0.4,
           top + 1.6);
    printf("set size ratio -1\nset lmargin 0; set rmargin 0; set tmargin 0; set bmargin 0\n");
    printf("set label \"%s\" at 0,%g left font ',12'\n", title, top + 1.1);
    printf("set label 'logical view: one plane per channel; each element shows its offset in the "
           "buffer' at 0,%g left font ',10'\n",
           top + 0.4);
    for (int64_t c = 0; c < pc; c++) {
        double x0 = (double)(c % per_row) * pw, y0 = top - (double)(c / per_row) * (H + 1.2);
        bool pad = c >= C;
        printf("set label '%s%lld' at %g,%g center font ',9'\n", pad ? "pad c" : "c",
               (long long)c, x0 + W / 2.0, y0 - 0.3);
        for (int64_t h = 0; h < H; h++)
            for (int64_t w = 0; w < W; w++) {
                int64_t idx[4] = {0, c, h, w};
                int64_t off = offset(&md, idx);
                if (off >= 0 && off < total) {
                    cell_c[off] = c;
                    cell_hw[off] = h * W + w;
                }
                double x = x0 + (double)w, y = y0 - 1.6 - (double)h;
                bool in = c >= v0 && c < v1;
                printf("set object %d rect from %g,%g to %g,%g fc rgb '%s' fs solid 1 border "
                       "lc rgb '%s' lw %d front\n",
                       obj++, x, y, x + 1, y + 1, pad ? "#d9d9d9" : colour[c],
                       in ? "#e41a1c" : "#404040", in ? 3 : 1);
                printf("set label '%lld' at %g,%g center front\n", (long long)off, x + 0.5,
                       y + 0.5);
            }
    }
    if (v0 >= 0)
        printf("set label 'red: the view of channels %lld..%d (offset0 = %lld, padded channels = "
               "%lld: it owns the padding)' at %g,%g right font ',10' tc rgb '#e41a1c'\n",
               (long long)v0, C - 1, (long long)view.offset0, (long long)view.padded_dims[1],
               width, top + 1.1);
    printf("set label 'memory view: the buffer in order, %lld floats (%zu bytes); each element "
           "shows c and h,w' at 0,%g left font ',10'\n",
           (long long)total, lg_md_size(&md), strip_top + 0.2);
    for (int64_t k = 0; k < total; k++) {
        double x = (double)(k % strip), y = strip_top - 1 - (double)(k / strip);
        if (k % strip == 0)
            printf("set label '%lld' at %g,%g right font ',8'\n", (long long)k, x - 0.1, y + 0.5);
        int64_t c = cell_c[k];
        bool pad = c >= C, in = c >= v0 && c < v1;
        printf("set object %d rect from %g,%g to %g,%g fc rgb '%s' fs solid 1 border "
               "lc rgb '%s' lw %d front\n",
               obj++, x, y, x + 1, y + 1, pad ? "#d9d9d9" : colour[c], in ? "#e41a1c" : "#404040",
               in ? 3 : 1);
        printf("set label \"c%lld\\n%lld,%lld\" at %g,%g center front font ',7'\n", (long long)c,
               (long long)(cell_hw[k] / W), (long long)(cell_hw[k] % W), x + 0.5, y + 0.5);
    }
    printf("plot NaN notitle\n");
    free(cell_c);
    free(cell_hw);
    return 0;
}
EOF
cc -std=c11 -O1 -Wall -Werror -I"$root/include" "$work/layout_plot.c" -L"$build" -llgraph \
  -Wl,-rpath,"$root/$build" -o "$work/layout_plot"

mkdir -p docs/img
draw() { # tag file title cells-per-row [view's first channel]
  "$work/layout_plot" "$1" "docs/img/$2" "$3" "$4" ${5:+"$5"} >"$work/$2.gp"
  gnuplot "$work/$2.gp"
  echo "doc_pictures: docs/img/$2"
}
draw nchw layout_nchw.png "nchw (abcd): 1x10x3x3, each channel a contiguous 3x3 plane" 9
draw nhwc layout_nhwc.png "nhwc (acdb): 1x10x3x3, the 10 channels of a pixel contiguous" 10
draw nChw8c layout_nChw8c.png "nChw8c (aBcd8b): 1x10x3x3, channels in blocks of 8, padded to 16" 16
draw nChw8c view_nChw8c.png "a view in nChw8c: channels 8..9" 16 8
