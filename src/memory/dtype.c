/* Data-type sizes and names. */
#include "common/common.h"

size_t lg_dtype_size(lg_dtype dt) {
    switch (dt) {
    case LG_F32:
        return 4;
    case LG_F16:
        return 2;
    case LG_BF16:
        return 2;
    case LG_S32:
        return 4;
    case LG_S8:
        return 1;
    case LG_U8:
    case LG_F8_E4M3:
    case LG_F8_E5M2:
        return 1;
    case LG_DT_UNDEF:
        return 0;
    }
    return 0;
}

const char *lg_dtype_str(lg_dtype dt) {
    switch (dt) {
    case LG_F32:
        return "f32";
    case LG_F16:
        return "f16";
    case LG_BF16:
        return "bf16";
    case LG_S32:
        return "s32";
    case LG_S8:
        return "s8";
    case LG_U8:
        return "u8";
    case LG_F8_E4M3:
        return "f8_e4m3";
    case LG_F8_E5M2:
        return "f8_e5m2";
    case LG_DT_UNDEF:
        return "undef";
    }
    return "undef";
}
