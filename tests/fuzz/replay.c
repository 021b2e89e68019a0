/* Replay a fuzz target's inputs without libFuzzer: every file named on the
 * command line, and every file in every directory named (sorted), goes
 * through LLVMFuzzerTestOneInput once. A property that fails aborts, so the
 * CTest case fails; no input found at all is a failure too (a missing
 * corpus must not pass silently). Built with any compiler (gcc in the plain
 * and ASan suites). */
#include "fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    /* An exact-size copy, so that ASan sees reads past the input's end. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    if (n) memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int only_files(const struct dirent *e) {
    return e->d_name[0] != '.';
}

int main(int argc, char **argv) {
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0) return 1;
            count++;
            continue;
        }
        struct dirent **list;
        int n = scandir(argv[i], &list, only_files, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        for (int j = 0; j < n; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], list[j]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) != 0) return 1;
                count++;
            }
            free(list[j]);
        }
        free(list);
    }
    printf("replay: %d inputs, every property held\n", count);
    return count > 0 ? 0 : 1;
}
