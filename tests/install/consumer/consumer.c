/* Uses the installed header and library: an nChw16c md of 2x20x10x10 f32
 * has 2*32*10*10 elements = 25600 bytes / 8 = 3200 (printed as a check). */
#include <lgraph.h>
#include <stdio.h>

int main(void) {
    lg_md md;
    int64_t dims[4] = {2, 20, 10, 10};
    if (lg_md_init_tag(&md, 4, dims, LG_F32, "nChw16c") != LG_OK) {
        fprintf(stderr, "%s\n", lg_last_error());
        return 1;
    }
    printf("consumer ok: %zu\n", lg_md_size(&md) / 8);
    return 0;
}
