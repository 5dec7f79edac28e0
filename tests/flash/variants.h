/* variants.h -- the bf16 attention chapter's launchers, listed once for
 * its test and its benchmark, in the order of the chapter and of
 * flash.csv's rows:
 *     X(name, launcher, listing, cc)
 * name is the row in flash.csv; listing the file its kernel is in; cc the
 * compute capability its code needs (80: 8.0 or later; 90: sm_90a code,
 * 9.0 only). */
#ifndef FLASH_VARIANTS_H
#define FLASH_VARIANTS_H
#include "flash/flash.h"

#define FLASH_VARIANTS(X)                                                 \
    X("mma64", flash_mma64, "flash_mma.sm80.cu", 80)                      \
    X("mma", flash_mma, "flash_mma.sm80.cu", 80)                          \
    X("wgmma", flash_wgmma, "flash_wgmma.sm90a.cu", 90)                   \
    X("wgmma_serial", flash_wgmma_serial, "flash_wgmma.sm90a.cu", 90)     \
    X("wgmma_tiles", flash_wgmma_tiles, "flash_wgmma.sm90a.cu", 90)       \
    X("best", flash_attention, "flash.cu", 80)
#endif
