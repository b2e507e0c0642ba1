#include "ppe/arc/elf_image.h"

#include "ppe/core/elf_note.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe::arc {

namespace {

    // Reads fields of either class and byte order from bytes already in memory.
    struct Fields {
        const std::string& bytes;
        bool bigEndian;

        bool has(uint64_t offset, uint64_t size) const
        {
            return offset <= bytes.size() && size <= bytes.size() - offset;
        }
        uint64_t get(uint64_t offset, unsigned size) const
        {
            uint64_t v = 0;
            for (unsigned i = 0; i < size; ++i) {
                const uint64_t byte = uint8_t(bytes[offset + (bigEndian ? i : size - 1 - i)]);
                v = (v << 8) | byte;
            }
            return v;
        }
    };

    // At most `size` bytes of the file from `offset`: never more than the file holds (a header's
    // counts and sizes are not believed before they are checked against the file).
    std::string readAt(int fd, uint64_t offset, size_t size)
    {
        struct stat st { };
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || offset >= uint64_t(st.st_size))
            return {};
        std::string out(std::min<uint64_t>(size, uint64_t(st.st_size) - offset), '\0');
        size = out.size();
        size_t got = 0;
        while (got < size) {
            const ssize_t n = ::pread(fd, out.data() + got, size - got, off_t(offset + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += size_t(n);
        }
        out.resize(got);
        return out;
    }

    // The segments of program headers `ph` (already read).
    std::vector<ElfSegment> segmentsOf(const Fields& f, bool is64, uint64_t count, uint64_t entrySize)
    {
        std::vector<ElfSegment> out;
        for (uint64_t i = 0; i < count && f.has(i * entrySize, entrySize); ++i) {
            const uint64_t p = i * entrySize;
            if (f.get(p, 4) != PT_LOAD)
                continue;
            ElfSegment s {};
            const uint64_t flags = is64 ? f.get(p + 4, 4) : f.get(p + 24, 4);
            s.fileOffset = is64 ? f.get(p + 8, 8) : f.get(p + 4, 4);
            s.address = is64 ? f.get(p + 16, 8) : f.get(p + 8, 4);
            s.fileSize = is64 ? f.get(p + 32, 8) : f.get(p + 16, 4);
            s.memSize = is64 ? f.get(p + 40, 8) : f.get(p + 20, 4);
            s.executable = flags & PF_X;
            out.push_back(s);
        }
        return out;
    }

    // NT_GNU_BUILD_ID in the PT_NOTE segments; `address` gets the link-time address of its bytes.
    std::string buildIdOf(
        int fd, const Fields& ph, bool bigEndian, bool is64, uint64_t count, uint64_t entrySize, uint64_t& address)
    {
        for (uint64_t i = 0; i < count && ph.has(i * entrySize, entrySize); ++i) {
            const uint64_t p = i * entrySize;
            if (ph.get(p, 4) != PT_NOTE)
                continue;
            const uint64_t offset = is64 ? ph.get(p + 8, 8) : ph.get(p + 4, 4);
            const uint64_t vaddr = is64 ? ph.get(p + 16, 8) : ph.get(p + 8, 4);
            const uint64_t size = is64 ? ph.get(p + 32, 8) : ph.get(p + 16, 4);
            const std::string notes = readAt(fd, offset, size_t(std::min<uint64_t>(size, 1 << 16)));
            const auto* bytes = reinterpret_cast<const uint8_t*>(notes.data());
            ElfNote note {};
            if (findBuildIdNote(bytes, notes.size(), bigEndian, &note)) {
                const uint64_t desc = uint64_t(note.desc - bytes);
                address = vaddr ? vaddr + desc : 0;
                return notes.substr(desc, note.size);
            }
        }
        return {};
    }

    Error bad(const std::string& path, const std::string& what) { return Error { path, 0, what }; }

} // namespace

static Result<ElfImage> parse(int fd, const std::string& path)
{
    const std::string header = readAt(fd, 0, 64);
    if (header.size() < 52 || header.compare(0, 4, ELFMAG) != 0)
        return bad(path, "not an ELF file");
    ElfImage image;
    image.path = path;
    image.is64 = header[EI_CLASS] == ELFCLASS64;
    image.bigEndian = header[EI_DATA] == ELFDATA2MSB;
    if (image.is64 && header.size() < 64)
        return bad(path, "truncated ELF header");
    const Fields h { header, image.bigEndian };
    image.shared = h.get(16, 2) == ET_DYN;
    image.machine = uint16_t(h.get(18, 2));
    image.entry = image.is64 ? h.get(24, 8) : h.get(24, 4);
    const uint64_t phoff = image.is64 ? h.get(32, 8) : h.get(28, 4);
    const uint64_t entrySize = image.is64 ? h.get(54, 2) : h.get(42, 2);
    const uint64_t count = image.is64 ? h.get(56, 2) : h.get(44, 2);
    if (entrySize < (image.is64 ? 56u : 32u) || count == 0)
        return bad(path, "no program headers (not an executable or shared object)");
    const std::string table = readAt(fd, phoff, size_t(entrySize * count));
    const Fields ph { table, image.bigEndian };
    image.segments = segmentsOf(ph, image.is64, count, entrySize);
    image.buildId = buildIdOf(fd, ph, image.bigEndian, image.is64, count, entrySize, image.buildIdAddress);
    uint64_t start = 0, end = 0;
    if (!image.executableRange(start, end))
        return bad(path, "no executable segment");
    if (uint64_t entryOffset = 0; image.entry && image.fileOffsetOf(image.entry, entryOffset))
        image.entryBytes = readAt(fd, entryOffset, 16);
    return image;
}

Result<ElfImage> readElfImage(const std::string& path)
{
    // O_NONBLOCK: a FIFO at a name the target's library list gives does not hang the open (readAt
    // reads regular files only).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return bad(path, std::string("cannot open: ") + std::strerror(errno));
    Result<ElfImage> image = parse(fd, path);
    ::close(fd);
    return image;
}

bool ElfImage::executableRange(uint64_t& start, uint64_t& end) const
{
    bool any = false;
    for (const ElfSegment& s : segments) {
        if (!s.executable || !s.memSize)
            continue;
        start = any ? std::min(start, s.address) : s.address;
        end = any ? std::max(end, s.address + s.memSize) : s.address + s.memSize;
        any = true;
    }
    return any;
}

bool ElfImage::fileOffsetOf(uint64_t address, uint64_t& offset) const
{
    for (const ElfSegment& s : segments) {
        if (address >= s.address && address - s.address < s.memSize) {
            offset = address - s.address + s.fileOffset;
            return true;
        }
    }
    return false;
}

std::string machineName(uint16_t machine)
{
    switch (machine) {
    case EM_X86_64:
        return "x86_64";
    case EM_386:
        return "i686";
    case EM_AARCH64:
        return "aarch64";
    case EM_ARM:
        return "arm";
    case EM_RISCV:
        return "riscv";
    case EM_ARC_COMPACT:
        return "arc";
    case EM_ARCV2:
        return "arc";
    case EM_PPC64:
        return "ppc64";
    }
    return "machine " + std::to_string(machine);
}

uint32_t machineGranularity(uint16_t machine)
{
    switch (machine) {
    case EM_X86_64:
    case EM_386:
        return 1;
    case EM_AARCH64:
    case EM_PPC64:
        return 4;
    default: // ARC, ARM (Thumb) and RISC-V (C extension) have 2-byte instructions
        return 2;
    }
}

} // namespace ppe::arc
