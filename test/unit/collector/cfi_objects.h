// The .eh_frame_hdr of the loaded object whose segments hold a PC, from the loader's list: the
// ObjectLookup of the unwinder's tests (cfi_unwind_test.cc on the host, cfi_cross_drive.cc under
// qemu-aarch64). C library only: the cross build has no C++ library.
#pragma once

#include <link.h>
#include <stdint.h>

namespace ppe::testing {

struct EhFrameSearch {
    uint64_t pc, hdr;
};

inline int visitObject(dl_phdr_info* info, size_t, void* data)
{
    auto* s = static_cast<EhFrameSearch*>(data);
    uint64_t hdr = 0;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        const uint64_t start = info->dlpi_addr + ph.p_vaddr;
        holds = holds || (ph.p_type == PT_LOAD && s->pc >= start && s->pc < start + ph.p_memsz);
        hdr = ph.p_type == PT_GNU_EH_FRAME ? start : hdr;
    }
    if (holds)
        s->hdr = hdr;
    return holds;
}

inline uint64_t ehFrameHdrOf(const void*, uint64_t pc)
{
    EhFrameSearch s { pc, 0 };
    dl_iterate_phdr(visitObject, &s);
    return s.hdr;
}

} // namespace ppe::testing
