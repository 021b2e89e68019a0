/* CPU feature detection and the ISA cap (LG_ISA). */
#ifndef LG_PRIMITIVES_CPU_H
#define LG_PRIMITIVES_CPU_H

#include "common/common.h"

/* Instruction-set levels, ordered: a level implies those below it.
 * AVX2 means AVX2 + FMA + F16C; AVX512 means AVX-512 F, BW, DQ and VL. */
typedef enum lg__isa { LG_ISA_SCALAR = 0, LG_ISA_AVX2 = 1, LG_ISA_AVX512 = 2 } lg__isa;

/* The ISA kernels may use: the best the CPU and OS support, capped by the
 * LG_ISA environment variable ("scalar", "avx2" or "avx512"; read once).
 * An unknown LG_ISA value is ignored (with a verbose note). */
LG_INTERNAL lg__isa lg__cpu_isa(void);

/* The best level the hardware supports, ignoring LG_ISA. */
LG_INTERNAL lg__isa lg__cpu_isa_hw(void);

/* True if the hardware has AVX512-FP16 (and the OS saves the AVX-512
 * state), ignoring LG_ISA: Intel's Golden Cove server cores (Sapphire
 * Rapids) and later. */
LG_INTERNAL bool lg__cpu_has_avx512_fp16(void);

/* True if CPUID's vendor string is "GenuineIntel". */
LG_INTERNAL bool lg__cpu_is_intel(void);

/* "scalar", "avx2" or "avx512". */
LG_INTERNAL const char *lg__isa_name(lg__isa isa);

/* Test hook: override the cap for this process (-1 restores LG_ISA's). The
 * result is still capped by what the hardware supports. */
LG_INTERNAL void lg__cpu_set_isa_cap(int isa);

#endif /* LG_PRIMITIVES_CPU_H */
