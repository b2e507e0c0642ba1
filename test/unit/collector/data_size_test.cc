// libppe's initialised data is copied into the pages of every process it is loaded into: its big
// state tables must start as zeros (.bss), not as values (.data). Issue 38: 140 KB had crept in.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kMaxDataBytes = 16 * 1024;

// What `size` counts as data: the sections loaded writable with contents from the file.
uint64_t initialisedDataBytes(const std::vector<char>& file, std::string* error)
{
    Elf64_Ehdr header;
    if (file.size() < sizeof header || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0 || file[EI_CLASS] != ELFCLASS64) {
        *error = "not a 64-bit ELF file";
        return 0;
    }
    std::memcpy(&header, file.data(), sizeof header);
    if (header.e_shentsize != sizeof(Elf64_Shdr)
        || header.e_shoff + header.e_shnum * sizeof(Elf64_Shdr) > file.size()) {
        *error = "section headers out of the file";
        return 0;
    }
    uint64_t bytes = 0;
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr section;
        std::memcpy(&section, file.data() + header.e_shoff + i * sizeof section, sizeof section);
        const bool loadedWritable = (section.sh_flags & SHF_ALLOC) && (section.sh_flags & SHF_WRITE);
        if (loadedWritable && section.sh_type != SHT_NOBITS)
            bytes += section.sh_size;
    }
    return bytes;
}

TEST(LibppeSize, InitialisedDataStaysUnder16KiB)
{
    std::ifstream in(PPE_LIBRARY, std::ios::binary);
    ASSERT_TRUE(in) << PPE_LIBRARY;
    const std::vector<char> file { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    std::string error;
    const uint64_t bytes = initialisedDataBytes(file, &error);
    ASSERT_EQ(error, "") << PPE_LIBRARY;
    EXPECT_GT(bytes, 0u) << "no writable sections found: the reading is wrong";
    EXPECT_LE(bytes, kMaxDataBytes) << PPE_LIBRARY << " has " << bytes
                                    << " bytes of initialised data: a global with a non-zero initialiser "
                                       "(`int fd = -1;`) is in .data; see collector/src/initially.h";
}

} // namespace
