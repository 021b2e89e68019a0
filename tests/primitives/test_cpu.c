/* CPU detection against /proc/cpuinfo, and the LG_ISA cap. Criterion runs
 * each test in its own process, so each sees LG_ISA afresh. */
#include "primitives/cpu.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True if the first "flags" line of /proc/cpuinfo lists flag. */
static bool cpuinfo_has(const char *flag) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return false;
    char line[8192];
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        char pat[64];
        snprintf(pat, sizeof pat, " %s", flag);
        for (char *p = strstr(line, pat); p; p = strstr(p + 1, pat))
            if (p[strlen(pat)] == ' ' || p[strlen(pat)] == '\n') found = true;
        break;
    }
    fclose(f);
    return found;
}

Test(cpu, detection_matches_cpuinfo) {
    lg__isa expect = LG_ISA_SCALAR;
    if (cpuinfo_has("avx2") && cpuinfo_has("fma") && cpuinfo_has("f16c")) expect = LG_ISA_AVX2;
    if (expect == LG_ISA_AVX2 && cpuinfo_has("avx512f") && cpuinfo_has("avx512bw") &&
        cpuinfo_has("avx512dq") && cpuinfo_has("avx512vl"))
        expect = LG_ISA_AVX512;
    cr_assert_eq(lg__cpu_isa_hw(), expect, "detected %s, cpuinfo says %s",
                 lg__isa_name(lg__cpu_isa_hw()), lg__isa_name(expect));
}

Test(cpu, fp16_matches_cpuinfo) {
    /* the kernel's avx512_fp16 flag, on a CPU whose AVX-512 lgraph uses */
    bool expect = lg__cpu_isa_hw() == LG_ISA_AVX512 && cpuinfo_has("avx512_fp16");
    cr_assert_eq(lg__cpu_has_avx512_fp16(), expect, "detected %d, cpuinfo says %d",
                 lg__cpu_has_avx512_fp16(), expect);
}

Test(cpu, vendor_matches_cpuinfo) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    cr_assert(f);
    char line[512], vendor[64] = "";
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "vendor_id : %63s", vendor) == 1) break;
    fclose(f);
    cr_assert_neq(vendor[0], 0, "no vendor_id line in /proc/cpuinfo");
    cr_assert_eq(lg__cpu_is_intel(), strcmp(vendor, "GenuineIntel") == 0,
                 "detected %d, cpuinfo says %s", lg__cpu_is_intel(), vendor);
}

Test(cpu, env_cap_scalar) {
    setenv("LG_ISA", "scalar", 1);
    cr_assert_eq(lg__cpu_isa(), LG_ISA_SCALAR);
}

Test(cpu, env_cap_avx2) {
    setenv("LG_ISA", "avx2", 1);
    lg__isa hw = lg__cpu_isa_hw();
    cr_assert_eq(lg__cpu_isa(), hw < LG_ISA_AVX2 ? hw : LG_ISA_AVX2);
}

Test(cpu, env_unknown_is_ignored) {
    setenv("LG_ISA", "sse9", 1);
    cr_assert_eq(lg__cpu_isa(), lg__cpu_isa_hw());
}

Test(cpu, test_cap_overrides_and_restores) {
    unsetenv("LG_ISA");
    lg__cpu_set_isa_cap(LG_ISA_SCALAR);
    cr_assert_eq(lg__cpu_isa(), LG_ISA_SCALAR);
    lg__cpu_set_isa_cap(-1);
    cr_assert_eq(lg__cpu_isa(), lg__cpu_isa_hw());
    cr_assert_str_eq(lg__isa_name(LG_ISA_AVX512), "avx512");
}
