/* The inner product's tiles on AVX-512: 16 lanes, 32 registers (tiles of
 * up to 8 rows x 3 OC blocks, up to 6 rows x 4). See ip_tpl.h. */
#include "primitives/ip/ip.h"

#include "primitives/simd/simd_avx512.h"

#define NRMAX     8
#define MBMAX     4
#define MB_OF(nr) ((nr) <= 6 ? 4 : 3)

#define ELT_F32  lg__eltwise_f32_avx512
#define FN(name) name##_avx512

/* A list of macro calls, one row per tile height (kept by hand). */
// clang-format off
#define TILE_LIST \
    TILE(1, 1) TILE(1, 2) TILE(1, 3) TILE(1, 4) \
    TILE(2, 1) TILE(2, 2) TILE(2, 3) TILE(2, 4) \
    TILE(3, 1) TILE(3, 2) TILE(3, 3) TILE(3, 4) \
    TILE(4, 1) TILE(4, 2) TILE(4, 3) TILE(4, 4) \
    TILE(5, 1) TILE(5, 2) TILE(5, 3) TILE(5, 4) \
    TILE(6, 1) TILE(6, 2) TILE(6, 3) TILE(6, 4) \
    TILE(7, 1) TILE(7, 2) TILE(7, 3) TILE(7, 4) \
    TILE(8, 1) TILE(8, 2) TILE(8, 3) TILE(8, 4)
// clang-format on
#define TILE_TABLE                                                                                 \
    {                                                                                              \
        {FN(tile_1_1), FN(tile_1_2), FN(tile_1_3), FN(tile_1_4)},                                  \
            {FN(tile_2_1), FN(tile_2_2), FN(tile_2_3), FN(tile_2_4)},                              \
            {FN(tile_3_1), FN(tile_3_2), FN(tile_3_3), FN(tile_3_4)},                              \
            {FN(tile_4_1), FN(tile_4_2), FN(tile_4_3), FN(tile_4_4)},                              \
            {FN(tile_5_1), FN(tile_5_2), FN(tile_5_3), FN(tile_5_4)},                              \
            {FN(tile_6_1), FN(tile_6_2), FN(tile_6_3), FN(tile_6_4)},                              \
            {FN(tile_7_1), FN(tile_7_2), FN(tile_7_3), FN(tile_7_4)}, {                            \
            FN(tile_8_1), FN(tile_8_2), FN(tile_8_3), FN(tile_8_4)                                 \
        }                                                                                          \
    }

#include "primitives/ip/ip_tpl.h"
