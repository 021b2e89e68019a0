/* CPU feature detection, done once, and the LG_ISA cap. */
#include "primitives/cpu.h"

#include <cpuid.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_once_t detect_once = UV_ONCE_INIT;
static lg__isa hw_isa = LG_ISA_SCALAR;
static bool hw_fp16, hw_intel;
static lg__isa env_cap = LG_ISA_AVX512;
static _Atomic int test_cap = -1;

/* XCR0: which register states the OS saves (bit 1 SSE, 2 AVX, 5-7 AVX-512). */
static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect(void) {
    unsigned a, b, c, d;
    unsigned max = __get_cpuid_max(0, NULL);
    if (max >= 1) {
        __cpuid(0, a, b, c, d);
        hw_intel = b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu; /* Genu ineI ntel */
    }
    if (max >= 7) {
        __cpuid(1, a, b, c, d);
        bool osxsave = c & (1u << 27), fma = c & (1u << 12), f16c = c & (1u << 29);
        uint64_t xcr0 = osxsave ? read_xcr0() : 0;
        bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
        __cpuid_count(7, 0, a, b, c, d);
        bool avx2 = b & (1u << 5);
        bool f = b & (1u << 16), dq = b & (1u << 17), bw = b & (1u << 30), vl = b & (1u << 31);
        if (ymm && avx2 && fma && f16c) hw_isa = LG_ISA_AVX2;
        if (hw_isa == LG_ISA_AVX2 && zmm && f && dq && bw && vl) hw_isa = LG_ISA_AVX512;
        hw_fp16 = hw_isa == LG_ISA_AVX512 && (d & (1u << 23));
    }
    const char *s = getenv("LG_ISA");
    if (s) {
        if (strcmp(s, "scalar") == 0)
            env_cap = LG_ISA_SCALAR;
        else if (strcmp(s, "avx2") == 0)
            env_cap = LG_ISA_AVX2;
        else if (strcmp(s, "avx512") == 0)
            env_cap = LG_ISA_AVX512;
        else if (lg__verbose())
            lg__verbose_printf("lgraph_verbose,info,LG_ISA=%s ignored\n", s);
    }
}

lg__isa lg__cpu_isa_hw(void) {
    uv_once(&detect_once, detect);
    return hw_isa;
}

bool lg__cpu_has_avx512_fp16(void) {
    uv_once(&detect_once, detect);
    return hw_fp16;
}

bool lg__cpu_is_intel(void) {
    uv_once(&detect_once, detect);
    return hw_intel;
}

lg__isa lg__cpu_isa(void) {
    uv_once(&detect_once, detect);
    int cap = atomic_load(&test_cap);
    lg__isa c = cap >= 0 ? (lg__isa)cap : env_cap;
    return hw_isa < c ? hw_isa : c;
}

void lg__cpu_set_isa_cap(int isa) {
    atomic_store(&test_cap, isa);
}

const char *lg__isa_name(lg__isa isa) {
    switch (isa) {
    case LG_ISA_SCALAR:
        return "scalar";
    case LG_ISA_AVX2:
        return "avx2";
    case LG_ISA_AVX512:
        return "avx512";
    }
    return "unknown";
}
