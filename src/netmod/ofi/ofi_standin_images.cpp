// SPDX-License-Identifier: MIT
// The stand-in libraries for libpsm_infinipath.so.1 and libpsm2.so.2
// (psm_stub/psm_stub.c, ofi_fastload.hpp), embedded in libmpi so that every
// build of it carries its own: CMake builds them first and passes their paths
// in CH4LITE_PSM1_IMAGE and CH4LITE_PSM2_IMAGE. Without them (another build
// of these sources) the images are empty and the real libraries are loaded.
#define CH4LITE_IMAGE(sym, body)                              \
    ".pushsection .rodata\n"                                  \
    ".balign 64\n"                                            \
    ".globl " sym "\n.hidden " sym "\n" sym ":\n" body        \
    ".globl " sym "_end\n.hidden " sym "_end\n" sym "_end:\n" \
    ".popsection\n"
#if defined(CH4LITE_PSM1_IMAGE) && defined(CH4LITE_PSM2_IMAGE)
__asm__(CH4LITE_IMAGE("ch4lite_psm1_image", ".incbin \"" CH4LITE_PSM1_IMAGE "\"\n"));
__asm__(CH4LITE_IMAGE("ch4lite_psm2_image", ".incbin \"" CH4LITE_PSM2_IMAGE "\"\n"));
#else
__asm__(CH4LITE_IMAGE("ch4lite_psm1_image", ""));
__asm__(CH4LITE_IMAGE("ch4lite_psm2_image", ""));
#endif
