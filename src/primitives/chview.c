/* Channel views of N x C x spatial tensors (chview.h). */
#include "primitives/chview.h"

#include <stdio.h>
#include <string.h>

void lg__chview_init(const lg_md *md, lg__chview *v) {
    memset(v, 0, sizeof *v);
    int nd = md->ndims, nsp = nd - 2;
    if (nd < 2 || nsp > 3 || md->format_kind != LG_FMT_BLOCKED) return;
    const int64_t *st = md->blocking.strides;
    v->n = md->dims[0];
    v->c = md->dims[1];
    v->off0 = md->offset0;
    v->sn = st[0];
    v->sp[0] = v->sp[1] = v->sp[2] = 1;
    for (int i = 0; i < nsp; i++) {
        v->sp[3 - nsp + i] = md->dims[2 + i];
        v->ss[3 - nsp + i] = st[2 + i];
    }
    const int nb = md->blocking.inner_nblks;
    if (nb == 1 && md->blocking.inner_idxs[0] == 1) {
        v->kind = LG_CH_INNER;
        v->run = md->blocking.inner_blks[0];
        v->ncb = md->padded_dims[1] / v->run;
        v->scb = st[1];
    } else if (nb == 0 && st[1] == 1 && md->dims[1] > 1) {
        v->kind = LG_CH_INNER;
        v->run = md->dims[1];
        v->ncb = 1;
        v->scb = 0;
    } else if (nb == 0) {
        v->kind = LG_CH_PLAIN;
        v->run = 1;
        v->ncb = v->c;
        v->scb = st[1];
    }
}

void lg__chview_family_tag(const lg_md *md, int ndims, char *tag) {
    lg__chview v;
    lg__chview_init(md, &v);
    int nsp = ndims - 2, n = 0;
    if (v.kind == LG_CH_INNER && md->blocking.inner_nblks == 1) {
        tag[n++] = 'a';
        tag[n++] = 'B';
        for (int i = 0; i < nsp; i++) tag[n++] = (char)('c' + i);
        snprintf(tag + n, 24, "%lldb", (long long)v.run);
        return;
    }
    tag[n++] = 'a';
    if (v.kind != LG_CH_INNER) tag[n++] = 'b';
    for (int i = 0; i < nsp; i++) tag[n++] = (char)('c' + i);
    if (v.kind == LG_CH_INNER) tag[n++] = 'b';
    tag[n] = 0;
}

void lg__chview_as_plain(const lg_md *md, lg__chview *v) {
    if (v->kind != LG_CH_INNER || md->blocking.inner_nblks != 0) return;
    v->kind = LG_CH_PLAIN;
    v->run = 1;
    v->ncb = v->c;
    v->scb = md->blocking.strides[1];
}
