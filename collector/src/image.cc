#include "image.h"

#include "ppe/core/object_name.h"
#include "ppe/core/output_file.h"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ppe {

namespace {

    struct Search {
        uintptr_t address; // 0: the first object (the main program)
        ObjectImage* image;
        bool found;
        const char* name = nullptr; // findNamedImage: the object's name instead of an address
    };

    void describeSegments(const dl_phdr_info* info, ObjectImage* image)
    {
        image->bias = info->dlpi_addr;
        image->codeStart = UINT64_MAX;
        image->loadedStart = UINTPTR_MAX;
        for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_LOAD)
                continue;
            const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
            image->loadedStart = start < image->loadedStart ? start : image->loadedStart;
            image->loadedEnd = start + ph.p_memsz > image->loadedEnd ? start + ph.p_memsz : image->loadedEnd;
            if (!(ph.p_flags & PF_X))
                continue;
            image->codeStart = ph.p_vaddr < image->codeStart ? ph.p_vaddr : image->codeStart;
            image->codeEnd = ph.p_vaddr + ph.p_memsz > image->codeEnd ? ph.p_vaddr + ph.p_memsz : image->codeEnd;
        }
    }

    void describePath(const dl_phdr_info* info, bool isMain, ObjectImage* image)
    {
        if (!isMain && info->dlpi_name && *info->dlpi_name) {
            copyString(image->path, sizeof(image->path), info->dlpi_name);
            return;
        }
        const ssize_t n = readlink("/proc/self/exe", image->path, sizeof(image->path) - 1);
        image->path[n > 0 ? n : 0] = '\0';
    }

    // The loaded object named `name` (findNamedImage): by the loader's path, or the file it leads to.
    bool isNamed(const dl_phdr_info* info, const char* name)
    {
        if (!info->dlpi_name || !*info->dlpi_name)
            return false;
        if (objectNameMatches(info->dlpi_name, name))
            return true;
        char real[PATH_MAX];
        return realpath(info->dlpi_name, real) && objectNameMatches(real, name);
    }

    bool wanted(dl_phdr_info* info, const Search& search)
    {
        if (search.name)
            return isNamed(info, search.name);
        return search.address == 0 || objectContains(info, search.address);
    }

    int visit(dl_phdr_info* info, size_t, void* data)
    {
        auto* search = static_cast<Search*>(data);
        const bool isMain = search->address == 0 && !search->name;
        if (!wanted(info, *search))
            return 0;
        ObjectImage* image = search->image;
        describeSegments(info, image);
        describePath(info, isMain, image);
        image->buildIdSize = readBuildId(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, image->loadedStart,
            image->loadedEnd, image->buildId, sizeof(image->buildId));
        search->found = image->codeEnd > image->codeStart;
        return 1;
    }

    bool readAt(int fd, void* out, size_t size, uint64_t offset)
    {
        return pread(fd, out, size, off_t(offset)) == ssize_t(size);
    }

    // Section `index`'s header from the table at `e.e_shoff`.
    bool sectionHeader(int fd, const ElfW(Ehdr) & e, unsigned index, ElfW(Shdr) * out)
    {
        return readAt(fd, out, sizeof(*out), e.e_shoff + uint64_t(index) * e.e_shentsize);
    }

    uint32_t readSections(int fd, CodeSection* out, uint32_t capacity)
    {
        ElfW(Ehdr) e;
        if (!readAt(fd, &e, sizeof(e), 0) || std::memcmp(e.e_ident, ELFMAG, SELFMAG) != 0
            || e.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)
            || e.e_shentsize != sizeof(ElfW(Shdr)) || !e.e_shoff || e.e_shstrndx >= e.e_shnum)
            return 0;
        ElfW(Shdr) names;
        if (!sectionHeader(fd, e, e.e_shstrndx, &names))
            return 0;
        uint32_t count = 0;
        for (unsigned i = 1; i < e.e_shnum && count < capacity; ++i) {
            ElfW(Shdr) sh;
            if (!sectionHeader(fd, e, i, &sh))
                return 0;
            if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) || !sh.sh_size)
                continue;
            CodeSection& s = out[count];
            std::memset(s.name, 0, sizeof(s.name));
            if (sh.sh_name >= names.sh_size)
                continue;
            const ssize_t got = pread(fd, s.name, sizeof(s.name) - 1, off_t(names.sh_offset + sh.sh_name));
            if (got <= 0)
                continue;
            s.name[sizeof(s.name) - 1] = '\0';
            s.address = sh.sh_addr;
            s.size = sh.sh_size;
            ++count;
        }
        return count;
    }

} // namespace

uint32_t readCodeSections(const char* path, CodeSection* out, uint32_t capacity)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const uint32_t count = readSections(fd, out, capacity);
    close(fd);
    return count;
}

bool objectContains(const dl_phdr_info* info, uintptr_t address)
{
    for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
        if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz)
            return true;
    }
    return false;
}

bool findNote(uintptr_t start, uintptr_t end, uint32_t type, const char* name, ElfNote* out)
{
    return end > start
        && findElfNote(reinterpret_cast<const uint8_t*>(start), end - start, kNativeBigEndian, type, name, out);
}

uint32_t readBuildId(const ElfW(Phdr) * phdrs, unsigned count, uintptr_t bias, uintptr_t readableStart,
    uintptr_t readableEnd, uint8_t* out, uint32_t capacity)
{
    for (unsigned i = 0; i < count; ++i) {
        if (phdrs[i].p_type != PT_NOTE)
            continue;
        const uintptr_t start = bias + phdrs[i].p_vaddr;
        const uintptr_t end = start + phdrs[i].p_memsz;
        if (start < readableStart || end > readableEnd || end < start)
            continue;
        ElfNote note {};
        if (end > start
            && findBuildIdNote(reinterpret_cast<const uint8_t*>(start), end - start, kNativeBigEndian, &note)
            && note.size <= capacity) {
            std::memcpy(out, note.desc, note.size);
            return note.size;
        }
    }
    return 0;
}

uint32_t readBuildIdOfMapping(uintptr_t start, uintptr_t end, uint8_t* out, uint32_t capacity)
{
    if (end - start < sizeof(ElfW(Ehdr)))
        return 0;
    ElfW(Ehdr) eh;
    std::memcpy(&eh, reinterpret_cast<const void*>(start), sizeof(eh));
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
        return 0;
    const uintptr_t phdrs = start + eh.e_phoff;
    if (eh.e_phoff > end - start || uint64_t(eh.e_phnum) * sizeof(ElfW(Phdr)) > end - phdrs)
        return 0;
    const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(phdrs);
    // The mapping at file offset 0 belongs to the PT_LOAD with p_offset 0: bias from its p_vaddr.
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
            return readBuildId(ph, eh.e_phnum, start - ph[i].p_vaddr, start, end, out, capacity);
    }
    return 0;
}

bool findMainImage(ObjectImage* image)
{
    Search search { 0, image, false };
    dl_iterate_phdr(visit, &search);
    return search.found;
}

bool findImageContaining(uintptr_t address, ObjectImage* image)
{
    Search search { address, image, false };
    dl_iterate_phdr(visit, &search);
    return search.found;
}

bool findNamedImage(const char* name, ObjectImage* image)
{
    Search search { 0, image, false, name };
    dl_iterate_phdr(visit, &search);
    char real[PATH_MAX];
    if (search.found && realpath(image->path, real))
        copyString(image->path, sizeof(image->path), real);
    return search.found;
}

} // namespace ppe
