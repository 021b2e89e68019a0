/* Load and store kinds of the typed vector loads and stores (v_ld / v_st of
 * simd/dtio_<isa>.h): LK_B* / SK_B* move raw bits of that width, the others
 * convert to / from f32 (bit for bit memory/convert.h). */
#ifndef LG_PRIMITIVES_SIMD_DT_KINDS_H
#define LG_PRIMITIVES_SIMD_DT_KINDS_H

enum { LK_B32, LK_B16, LK_B8, LK_F16, LK_BF16, LK_S32, LK_S8, LK_U8, LK_E4M3, LK_E5M2 };
enum { SK_B32, SK_B16, SK_B8, SK_F16, SK_BF16, SK_S32, SK_S8, SK_U8, SK_E4M3, SK_E5M2 };

#endif /* LG_PRIMITIVES_SIMD_DT_KINDS_H */
