/* The fast reorder engine (being written): until it lands, every problem
 * goes to the reference. */
#include "primitives/reorder/reorder.h"

lg_status lg__reorder_fast_init(const lg__reorder_pd *pd, lg__isa isa, void **plan,
                                const char **impl) {
    (void)pd;
    (void)isa;
    *plan = NULL;
    *impl = NULL;
    return LG_UNIMPLEMENTED;
}

void lg__reorder_fast_exec(const void *plan, const lg__reorder_args *a) {
    (void)plan;
    (void)a;
}

void lg__reorder_fast_destroy(void *plan) { (void)plan; }
