#include "ppe/core/elf_note.h"

namespace ppe {

namespace {

    constexpr uint64_t kHeader = 12; // n_namesz, n_descsz, n_type

    uint32_t read32(const uint8_t* p, bool bigEndian)
    {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4; ++i)
            v = (v << 8) | p[bigEndian ? i : 3 - i];
        return v;
    }

    // In 64 bits: a 32-bit size near 2^32 must not wrap to a small one.
    uint64_t padded(uint32_t size) { return (uint64_t(size) + 3) & ~uint64_t(3); }

    // `name` and its NUL are the `nameSize` bytes at `p`.
    bool named(const uint8_t* p, uint32_t nameSize, const char* name)
    {
        uint32_t i = 0;
        for (; name[i]; ++i)
            if (i >= nameSize || p[i] != uint8_t(name[i]))
                return false;
        return nameSize == i + 1 && p[i] == 0;
    }

} // namespace

bool findElfNote(const uint8_t* notes, size_t size, bool bigEndian, uint32_t type, const char* name, ElfNote* out)
{
    const uint64_t total = size;
    uint64_t at = 0;
    while (total - at >= kHeader) {
        const uint32_t nameSize = read32(notes + at, bigEndian);
        const uint32_t descSize = read32(notes + at + 4, bigEndian);
        const uint64_t desc = at + kHeader + padded(nameSize);
        if (desc > total || descSize > total - desc)
            return false; // truncated, or sizes no note of these bytes can have
        if (read32(notes + at + 8, bigEndian) == type && named(notes + at + kHeader, nameSize, name)) {
            *out = ElfNote { notes + desc, descSize };
            return true;
        }
        const uint64_t next = desc + padded(descSize);
        if (next >= total)
            return false;
        at = next;
    }
    return false;
}

bool findBuildIdNote(const uint8_t* notes, size_t size, bool bigEndian, ElfNote* out)
{
    return findElfNote(notes, size, bigEndian, kGnuBuildIdNote, "GNU", out);
}

} // namespace ppe
