/* The view a user strategy reads (lg_layout_problem, include/lgraph.h): the
 * OPTIMAL search space (layout_space.h) plus the edges between its
 * variables, over the IR in the state a strategy starts from. The public
 * accessors are in layout_view.c; propagate_user.c builds the view, calls
 * the strategy and applies its answer. */
#ifndef LG_PASSES_LAYOUT_VIEW_H
#define LG_PASSES_LAYOUT_VIEW_H

#include "passes/layout_space.h"

/* One (value, reader) pair: src/dst are problem nodes (variables of the
 * space) or -1; dst -1 means graph output number `input`. */
typedef struct lg__layout_edge {
    int src, dst, input;
    lg_value value;
} lg__layout_edge;

struct lg_layout_problem {
    lg__graph *ir;
    lg__layout_space s;
    int nedges;
    lg__layout_edge *edges;
    int *first_edge; /* per variable: the edge of its input 0 (inputs are consecutive) */
    int *choice;     /* the accepted answer (nvars entries) */
    bool chosen;
    char why[256]; /* why the last lg_layout_choose was refused ("" if none) */
};

/* Build the view of ir (the state lg__pass_propagate_layouts starts from);
 * ir is left in that state. */
LG_INTERNAL lg_status lg__layout_view_build(lg__graph *ir, lg_layout_problem *p);

/* Free what the view owns; p may be zeroed or partly built. */
LG_INTERNAL void lg__layout_view_free(lg_layout_problem *p);

/* Check an assignment of the view; on error records it as `where` and keeps
 * the message in p->why. */
LG_INTERNAL lg_status lg__layout_view_check(lg_layout_problem *p, int n, const int *choice,
                                            const char *where);

#endif /* LG_PASSES_LAYOUT_VIEW_H */
