#include "first_collector.h"

#include "image.h"

#include <link.h>

namespace ppe {

namespace {

    // Every copy of the collector carries this note.
    asm(".pushsection .note.ppe,\"a\",@note\n"
        ".balign 4\n"
        ".long 4\n" // namesz
        ".long 4\n" // descsz
        ".long 0x50504531\n" // type: "PPE1"
        ".asciz \"PPE\"\n"
        ".long 1\n"
        ".popsection\n");

    int g_anchor; // an address inside this copy

    bool hasPpeNote(const dl_phdr_info* info)
    {
        for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE)
                continue;
            const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
            ElfNote note {};
            if (findNote(start, start + ph.p_memsz, kPpeNoteType, "PPE", &note))
                return true;
        }
        return false;
    }

    int findFirstCollector(dl_phdr_info* info, size_t, void* result)
    {
        if (!hasPpeNote(info))
            return 0;
        *static_cast<bool*>(result) = objectContains(info, reinterpret_cast<uintptr_t>(&g_anchor));
        return 1;
    }

} // namespace

bool isFirstCollector()
{
    bool first = true; // no note found (stripped of notes?): run
    dl_iterate_phdr(findFirstCollector, &first);
    return first;
}

} // namespace ppe
