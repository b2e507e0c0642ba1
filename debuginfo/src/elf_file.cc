#include "elf_file.h"

#include "ppe/core/elf_note.h"

#include <llvm/Object/Decompressor.h>
#include <llvm/Support/Endian.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace ppe::debuginfo {

std::string message(llvm::Error error) { return llvm::toString(std::move(error)); }

namespace {

    // Why `path` cannot be an ELF file before LLVM is asked, or "".
    std::string notAFile(const std::string& path)
    {
        struct stat st { };
        if (stat(path.c_str(), &st) != 0)
            return errno == ENOENT ? "no such file" : std::strerror(errno);
        if (S_ISDIR(st.st_mode))
            return "a directory, not an ELF file";
        if (st.st_size == 0)
            return "empty file, not an ELF file";
        return "";
    }

    std::string hex(llvm::StringRef bytes)
    {
        static const char kDigits[] = "0123456789abcdef";
        std::string out;
        for (unsigned char c : bytes) {
            out += kDigits[c >> 4];
            out += kDigits[c & 15];
        }
        return out;
    }

    // The build id among the notes of one SHT_NOTE section, or "".
    std::string buildIdInNotes(llvm::StringRef d, llvm::support::endianness endian)
    {
        ElfNote note {};
        if (!findBuildIdNote(d.bytes_begin(), d.size(), endian == llvm::support::big, &note))
            return "";
        return hex(llvm::StringRef(reinterpret_cast<const char*>(note.desc), note.size));
    }

    template <class ELFT> std::vector<Segment> loadSegments(const obj::ELFObjectFile<ELFT>& o)
    {
        std::vector<Segment> out;
        auto headers = o.getELFFile().program_headers();
        if (!headers) {
            llvm::consumeError(headers.takeError());
            return out;
        }
        for (const auto& p : *headers) {
            if (p.p_type == llvm::ELF::PT_LOAD)
                out.push_back(
                    Segment { p.p_offset, p.p_vaddr, p.p_filesz, p.p_memsz, (p.p_flags & llvm::ELF::PF_X) != 0 });
        }
        return out;
    }

    // Deflate turns one byte into at most 1032 (its best case): a larger size is damage.
    constexpr uint64_t kMostInflation = 1032;

    // What keeps LLVM 14 from decompressing the debug section `s`, or "".
    std::string compressionProblemOf(const obj::ObjectFile& o, const obj::SectionRef& s)
    {
        auto name = s.getName();
        auto contents = s.getContents();
        if (!name || !contents || !(name->startswith(".debug") || name->startswith(".zdebug"))
            || !obj::Decompressor::isCompressedELFSection(obj::ELFSectionRef(s).getFlags(), *name)) {
            llvm::consumeError(name.takeError());
            llvm::consumeError(contents.takeError());
            return "";
        }
        const auto endian = o.isLittleEndian() ? llvm::support::little : llvm::support::big;
        const uint32_t type = contents->size() >= 4 && name->startswith(".debug")
            ? llvm::support::endian::read32(contents->data(), endian) // Elf*_Chdr::ch_type
            : uint32_t(llvm::ELF::ELFCOMPRESS_ZLIB);
        if (type != llvm::ELF::ELFCOMPRESS_ZLIB)
            return "debug sections compressed with "
                + (type == 2 ? std::string("zstd") : "type " + std::to_string(type))
                + ", which LLVM 14 cannot read: DWARF not read (objcopy --decompress-debug-sections makes them "
                  "readable)";
        auto decompressor = obj::Decompressor::create(*name, *contents, o.isLittleEndian(), o.getBytesInAddress() == 8);
        if (!decompressor)
            return name->str() + ": damaged compressed section (" + message(decompressor.takeError())
                + "): DWARF not read";
        if (decompressor->getDecompressedSize() > contents->size() * kMostInflation)
            return name->str() + ": damaged compressed section (" + std::to_string(contents->size())
                + " bytes cannot hold " + std::to_string(decompressor->getDecompressedSize()) + "): DWARF not read";
        return "";
    }

} // namespace

Result<OpenedElf> openElf(const std::string& path)
{
    if (const std::string why = notAFile(path); !why.empty())
        return Error { path, 0, why };
    auto binary = obj::ObjectFile::createObjectFile(path);
    if (!binary) {
        const std::string why = message(binary.takeError());
        if (why.find("not recognized") != std::string::npos)
            return Error { path, 0, "not an ELF file" };
        return Error { path, 0, "damaged ELF file: " + why };
    }
    OpenedElf opened;
    opened.binary = std::move(*binary);
    opened.elf = llvm::dyn_cast<obj::ELFObjectFileBase>(opened.binary.getBinary());
    if (!opened.elf)
        return Error { path, 0, "not an ELF file" };
    return opened;
}

std::optional<llvm::StringRef> sectionContents(const obj::ObjectFile& o, llvm::StringRef name)
{
    for (const obj::SectionRef& s : o.sections()) {
        auto n = s.getName();
        if (!n) {
            llvm::consumeError(n.takeError());
            continue;
        }
        if (*n != name)
            continue;
        auto contents = s.getContents();
        if (!contents) {
            llvm::consumeError(contents.takeError());
            return std::nullopt;
        }
        return *contents;
    }
    return std::nullopt;
}

Result<llvm::StringRef> debugSectionContents(const obj::ObjectFile& o, llvm::StringRef name, std::string& storage)
{
    const std::string gnuName = ".z" + name.drop_front().str(); // .debug_line -> .zdebug_line
    for (const obj::SectionRef& s : o.sections()) {
        auto n = s.getName();
        if (!n) {
            llvm::consumeError(n.takeError());
            continue;
        }
        if (*n != name && *n != gnuName)
            continue;
        auto contents = s.getContents();
        if (!contents)
            return Error { "", 0, name.str() + ": " + message(contents.takeError()) };
        if (!obj::Decompressor::isCompressedELFSection(obj::ELFSectionRef(s).getFlags(), *n))
            return *contents;
        auto decompressor = obj::Decompressor::create(*n, *contents, o.isLittleEndian(), o.getBytesInAddress() == 8);
        if (!decompressor)
            return Error { "", 0, n->str() + ": cannot decompress: " + message(decompressor.takeError()) };
        if (llvm::Error e = decompressor->resizeAndDecompress(storage))
            return Error { "", 0, n->str() + ": cannot decompress: " + message(std::move(e)) };
        return llvm::StringRef(storage);
    }
    return llvm::StringRef();
}

std::string compressionProblem(const obj::ObjectFile& o)
{
    for (const obj::SectionRef& s : o.sections()) {
        if (std::string problem = compressionProblemOf(o, s); !problem.empty())
            return problem;
    }
    return "";
}

bool hasDwarf(const obj::ObjectFile& o)
{
    for (const obj::SectionRef& s : o.sections()) {
        auto n = s.getName();
        if (n && (*n == ".debug_info" || *n == ".zdebug_info") && s.getSize() > 0)
            return true;
        if (!n)
            llvm::consumeError(n.takeError());
    }
    return false;
}

std::string buildIdOf(const obj::ELFObjectFileBase& elf)
{
    const auto endian = elf.isLittleEndian() ? llvm::support::little : llvm::support::big;
    for (const obj::SectionRef& s : elf.sections()) {
        if (obj::ELFSectionRef(s).getType() != llvm::ELF::SHT_NOTE)
            continue;
        auto contents = s.getContents();
        if (!contents) {
            llvm::consumeError(contents.takeError());
            continue;
        }
        if (std::string id = buildIdInNotes(*contents, endian); !id.empty())
            return id;
    }
    return "";
}

std::vector<Segment> segmentsOf(const obj::ELFObjectFileBase& elf)
{
    std::vector<Segment> out;
    withElfType(elf, [&](const auto& o) { out = loadSegments(o); });
    return out;
}

bool isLoadedCode(const std::vector<Segment>& segments, uint64_t address)
{
    if (segments.empty())
        return true;
    for (const Segment& s : segments) {
        if (s.executable && address >= s.address && address < s.address + s.memSize)
            return true;
    }
    return false;
}

} // namespace ppe::debuginfo
