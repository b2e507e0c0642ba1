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

    // Bounds on a symbol table read whole: far above any program's, below what would hurt.
    constexpr uint64_t kMaxTableBytes = uint64_t(256) << 20;

    struct Section {
        uint32_t type = 0, link = 0;
        uint64_t offset = 0, size = 0, entrySize = 0;
    };

    std::vector<Section> sectionsOf(int fd, const Fields& h, bool is64)
    {
        const uint64_t shoff = is64 ? h.get(40, 8) : h.get(32, 4);
        const uint64_t entrySize = is64 ? h.get(58, 2) : h.get(46, 2);
        const uint64_t count = is64 ? h.get(60, 2) : h.get(48, 2);
        std::vector<Section> out;
        if (shoff == 0 || entrySize < (is64 ? 64u : 40u))
            return out;
        const std::string table = readAt(fd, shoff, size_t(entrySize * count));
        const Fields sh { table, h.bigEndian };
        for (uint64_t i = 0; i < count && sh.has(i * entrySize, entrySize); ++i) {
            const uint64_t at = i * entrySize;
            out.push_back({ uint32_t(sh.get(at + 4, 4)), uint32_t(sh.get(at + (is64 ? 40 : 24), 4)),
                sh.get(at + (is64 ? 24 : 16), is64 ? 8 : 4), sh.get(at + (is64 ? 32 : 20), is64 ? 8 : 4),
                sh.get(at + (is64 ? 56 : 36), is64 ? 8 : 4) });
        }
        return out;
    }

    constexpr unsigned kImported = ~0u; // symbolsOf's `type` for the undefined symbols, whatever their type

    // The defined symbols of type `type` (STT_FUNC, STT_OBJECT) with a size of symbol table `symtab`
    // (its strings in `strtab`), or the undefined ones (kImported).
    std::vector<ElfFunction> symbolsOf(
        int fd, const Section& symtab, const Section& strtab, const Fields& h, bool is64, unsigned type)
    {
        const std::string symbols = readAt(fd, symtab.offset, size_t(std::min(symtab.size, kMaxTableBytes)));
        const std::string strings = readAt(fd, strtab.offset, size_t(std::min(strtab.size, kMaxTableBytes)));
        const Fields f { symbols, h.bigEndian };
        const uint64_t step = symtab.entrySize >= (is64 ? 24u : 16u) ? symtab.entrySize : (is64 ? 24 : 16);
        std::vector<ElfFunction> out;
        for (uint64_t at = 0; f.has(at, step); at += step) {
            const uint64_t nameAt = f.get(at, 4);
            const uint8_t info = uint8_t(symbols[at + (is64 ? 4 : 12)]);
            const uint64_t section = f.get(at + (is64 ? 6 : 14), 2);
            const uint64_t value = is64 ? f.get(at + 8, 8) : f.get(at + 4, 4);
            const uint64_t size = is64 ? f.get(at + 16, 8) : f.get(at + 8, 4);
            const bool wanted = type == kImported ? section == SHN_UNDEF
                                                  : ELF64_ST_TYPE(info) == type && section != SHN_UNDEF && size != 0;
            if (!wanted || nameAt >= strings.size())
                continue;
            out.push_back(
                { std::string(strings.c_str() + nameAt, strnlen(strings.c_str() + nameAt, strings.size() - nameAt)),
                    value, size });
        }
        return out;
    }

    // What relocation table `rela` points at (see readElfPointedAddresses); `symbols` its symbol table.
    void pointedBy(
        int fd, const Section& rela, const Section& symbols, const Fields& h, bool is64, std::vector<uint64_t>& out)
    {
        const std::string table = readAt(fd, rela.offset, size_t(std::min(rela.size, kMaxTableBytes)));
        const std::string syms = readAt(fd, symbols.offset, size_t(std::min(symbols.size, kMaxTableBytes)));
        const Fields r { table, h.bigEndian }, s { syms, h.bigEndian };
        const uint64_t step = is64 ? 24 : 12, symStep = is64 ? 24 : 16;
        const uint32_t jumpSlot = h.get(18, 2) == EM_X86_64 ? R_X86_64_JUMP_SLOT : R_ARC_JUMP_SLOT;
        for (uint64_t at = 0; r.has(at, step); at += step) {
            const uint64_t info = is64 ? r.get(at + 8, 8) : r.get(at + 4, 4);
            const uint64_t type = is64 ? ELF64_R_TYPE(info) : ELF32_R_TYPE(uint32_t(info)),
                           symbol = is64 ? ELF64_R_SYM(info) : ELF32_R_SYM(uint32_t(info));
            out.push_back(is64 ? r.get(at + 16, 8) : r.get(at + 8, 4)); // the addend
            if (symbol && type != jumpSlot && s.has(symbol * symStep, symStep))
                out.push_back(is64 ? s.get(symbol * symStep + 8, 8) : s.get(symbol * symStep + 4, 4));
        }
    }

} // namespace

namespace {

    // An ELF file open with its header and section table read (for the symbol readers below).
    struct SectionedElf {
        int fd = -1;
        std::string header;
        bool is64 = false;
        std::vector<Section> sections;
        Fields fields() const { return { header, header[EI_DATA] == ELFDATA2MSB }; }
        ~SectionedElf()
        {
            if (fd >= 0)
                ::close(fd);
        }
    };

    Result<bool> openSectioned(const std::string& path, SectionedElf& elf)
    {
        elf.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (elf.fd < 0)
            return bad(path, std::string("cannot open: ") + std::strerror(errno));
        elf.header = readAt(elf.fd, 0, 64);
        elf.is64 = elf.header.size() > EI_CLASS && elf.header[EI_CLASS] == ELFCLASS64;
        if (elf.header.size() < (elf.is64 ? 64u : 52u) || elf.header.compare(0, 4, ELFMAG) != 0)
            return bad(path, "not an ELF file");
        elf.sections = sectionsOf(elf.fd, elf.fields(), elf.is64);
        return true;
    }

} // namespace

Result<std::vector<uint64_t>> readElfPointedAddresses(const std::string& path)
{
    SectionedElf elf;
    if (Result<bool> opened = openSectioned(path, elf); !opened)
        return opened.error();
    const Fields h = elf.fields();
    std::vector<uint64_t> out;
    for (const Section& s : elf.sections) {
        if (s.type == SHT_RELA && s.link < elf.sections.size())
            pointedBy(elf.fd, s, elf.sections[s.link], h, elf.is64, out);
        if (s.type == SHT_DYNSYM && s.link < elf.sections.size() && h.get(16, 2) == ET_DYN) {
            for (const ElfFunction& f : symbolsOf(elf.fd, s, elf.sections[s.link], h, elf.is64, STT_FUNC))
                out.push_back(f.address);
        }
    }
    return out;
}

// The symbols of `type` of `path`'s .symtab (its .dynsym when stripped), by address.
static Result<std::vector<ElfFunction>> readElfSymbols(const std::string& path, unsigned type)
{
    SectionedElf elf;
    if (Result<bool> opened = openSectioned(path, elf); !opened)
        return opened.error();
    std::vector<ElfFunction> symbols;
    for (uint32_t wanted : { uint32_t(SHT_SYMTAB), uint32_t(SHT_DYNSYM) }) {
        for (const Section& s : elf.sections) {
            if (s.type == wanted && s.link < elf.sections.size() && symbols.empty())
                symbols = symbolsOf(elf.fd, s, elf.sections[s.link], elf.fields(), elf.is64, type);
        }
    }
    std::sort(symbols.begin(), symbols.end(),
        [](const ElfFunction& a, const ElfFunction& b) { return a.address < b.address; });
    return symbols;
}

Result<std::vector<ElfFunction>> readElfFunctions(const std::string& path) { return readElfSymbols(path, STT_FUNC); }

Result<bool> elfImports(const std::string& path, const std::string& name)
{
    Result<std::vector<ElfFunction>> imported = readElfSymbols(path, kImported);
    if (!imported)
        return imported.error();
    // In .symtab a versioned import keeps its version in the name: pthread_create@GLIBC_2.34.
    return std::any_of(imported->begin(), imported->end(),
        [&](const ElfFunction& f) { return f.name == name || f.name.rfind(name + "@", 0) == 0; });
}

Result<ElfObject> readElfObject(const std::string& path, const std::string& name)
{
    Result<std::vector<ElfObject>> objects = readElfSymbols(path, STT_OBJECT);
    if (!objects)
        return objects.error();
    for (const ElfObject& o : *objects)
        if (o.name == name)
            return o;
    return Error { path, 0, "no data object " + name + " in its symbol table" };
}

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
