// The one ELF note parser (issue 38) of the collector, ppe-arc and the debug-info reader: it finds
// the build id among other notes in either byte order and never reads outside the bytes it is
// given, whatever sizes a damaged note claims.
#include "ppe/core/elf_note.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace ppe {
namespace {

    void put32(std::vector<uint8_t>& out, uint32_t v, bool bigEndian)
    {
        for (unsigned i = 0; i < 4; ++i)
            out.push_back(uint8_t(v >> (bigEndian ? 24 - 8 * i : 8 * i)));
    }

    // One note as a linker writes it: name and descriptor padded to 4 bytes.
    void note(std::vector<uint8_t>& out, uint32_t type, const std::string& name, const std::string& desc,
        bool bigEndian = false)
    {
        put32(out, uint32_t(name.size() + 1), bigEndian);
        put32(out, uint32_t(desc.size()), bigEndian);
        put32(out, type, bigEndian);
        out.insert(out.end(), name.begin(), name.end());
        out.push_back(0);
        out.resize((out.size() + 3) & ~size_t(3));
        out.insert(out.end(), desc.begin(), desc.end());
        out.resize((out.size() + 3) & ~size_t(3));
    }

    // A header claiming `nameSize` and `descSize`, then `bytes` of whatever follows.
    void header(std::vector<uint8_t>& out, uint32_t nameSize, uint32_t descSize, uint32_t type, size_t bytes)
    {
        put32(out, nameSize, false);
        put32(out, descSize, false);
        put32(out, type, false);
        out.insert(out.end(), bytes, 'G');
    }

    const std::string kId = "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67";

    std::string buildIdOf(const std::vector<uint8_t>& notes, bool bigEndian = false)
    {
        ElfNote found {};
        if (!findBuildIdNote(notes.data(), notes.size(), bigEndian, &found))
            return "(none)";
        EXPECT_GE(found.desc, notes.data());
        EXPECT_LE(found.desc + found.size, notes.data() + notes.size());
        return std::string(reinterpret_cast<const char*>(found.desc), found.size);
    }

    TEST(ElfNote, FindsTheBuildIdAmongOtherNotesInEitherByteOrder)
    {
        for (bool big : { false, true }) {
            std::vector<uint8_t> notes;
            note(notes, 5, "GNU", std::string(16, '\x07'), big); // .note.gnu.property
            note(notes, 1, "Go", "go-build", big); // a name of 3 bytes, padded
            note(notes, kGnuBuildIdNote, "GNU", kId, big);
            EXPECT_EQ(buildIdOf(notes, big), kId) << (big ? "big" : "little") << "-endian";
            EXPECT_EQ(buildIdOf(notes, !big), "(none)") << "read in the other byte order, the sizes run out";
        }
    }

    TEST(ElfNote, FindsANoteByTypeAndWholeName)
    {
        std::vector<uint8_t> notes;
        note(notes, 0x50504531, "PPEX", "no");
        note(notes, 0x50504531, "PPE", "yes");
        ElfNote found {};
        ASSERT_TRUE(findElfNote(notes.data(), notes.size(), false, 0x50504531, "PPE", &found));
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(found.desc), found.size), "yes");
        EXPECT_FALSE(findElfNote(notes.data(), notes.size(), false, 0x50504532, "PPE", &found));
        EXPECT_FALSE(findElfNote(notes.data(), notes.size(), false, 0x50504531, "PP", &found));
    }

    TEST(ElfNote, TheNameMustBeGnuWithItsNul)
    {
        std::vector<uint8_t> notes;
        header(notes, 3, 4, kGnuBuildIdNote, 0); // "GNU" without its NUL
        notes.insert(notes.end(), { 'G', 'N', 'U', 0, 1, 2, 3, 4 });
        EXPECT_EQ(buildIdOf(notes), "(none)");
        notes.clear();
        note(notes, kGnuBuildIdNote, "GNUx", kId);
        EXPECT_EQ(buildIdOf(notes), "(none)");
    }

    TEST(ElfNote, ATruncatedNoteIsNotFoundAndEndsTheWalk)
    {
        std::vector<uint8_t> whole;
        note(whole, kGnuBuildIdNote, "GNU", kId);
        for (size_t cut = 0; cut < whole.size(); ++cut) {
            // Copied to a buffer of exactly `cut` bytes, so that a read past them is a heap overflow
            // (the ASan build reports it).
            const std::vector<uint8_t> part(whole.begin(), whole.begin() + ptrdiff_t(cut));
            EXPECT_EQ(buildIdOf(part), "(none)") << cut << " bytes";
        }
        EXPECT_EQ(buildIdOf(whole), kId);
    }

    TEST(ElfNote, MisalignedBytesAndAMissingLastPaddingAreRead)
    {
        std::vector<uint8_t> notes;
        note(notes, 1, "Go", "x");
        note(notes, kGnuBuildIdNote, "GNU", "\x01\x02\x03\x04\x05");
        notes.resize(notes.size() - 3); // the last descriptor's padding is not there
        for (size_t shift = 1; shift < 4; ++shift) {
            std::vector<uint8_t> buffer(shift + notes.size());
            std::memcpy(buffer.data() + shift, notes.data(), notes.size());
            ElfNote found {};
            ASSERT_TRUE(findBuildIdNote(buffer.data() + shift, notes.size(), false, &found)) << shift;
            EXPECT_EQ(std::string(reinterpret_cast<const char*>(found.desc), found.size), "\x01\x02\x03\x04\x05");
        }
    }

    // Sizes near 2^32: padded in 32 bits they would wrap to a small offset and the walk would read
    // a descriptor of 4 GiB, or loop back.
    TEST(ElfNote, OversizedNotesAreNotFound)
    {
        for (uint32_t size : { 0xffffffffu, 0xfffffffeu, 0xfffffffdu, 0xfffffffcu, 0x80000000u, 21u }) {
            std::vector<uint8_t> nameTooLong;
            header(nameTooLong, size, 20, kGnuBuildIdNote, 24);
            EXPECT_EQ(buildIdOf(nameTooLong), "(none)") << "name size " << size;
            std::vector<uint8_t> descTooLong;
            header(descTooLong, 4, size, kGnuBuildIdNote, 0);
            descTooLong.insert(descTooLong.end(), { 'G', 'N', 'U', 0 });
            descTooLong.insert(descTooLong.end(), 20, '\x01');
            EXPECT_EQ(buildIdOf(descTooLong), "(none)") << "descriptor size " << size;
        }
        std::vector<uint8_t> afterHuge; // a note that skips past the end: no note after it is read
        header(afterHuge, 4, 0xfffffff0u, 1, 4);
        note(afterHuge, kGnuBuildIdNote, "GNU", kId);
        EXPECT_EQ(buildIdOf(afterHuge), "(none)");
    }

} // namespace
} // namespace ppe
