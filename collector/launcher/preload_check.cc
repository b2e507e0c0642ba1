#include "preload_check.h"

#include "image.h"

#include <cstdlib>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ppe {

namespace {

    // The file execvp would run: `program` itself when it names a path, else the first executable
    // of that name on PATH.
    std::string resolve(const std::string& program)
    {
        if (program.find('/') != std::string::npos)
            return program;
        const char* path = std::getenv("PATH");
        std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
        for (size_t start = 0; start <= dirs.size();) {
            size_t end = dirs.find(':', start);
            end = end == std::string::npos ? dirs.size() : end;
            std::string dir = dirs.substr(start, end - start);
            const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
            if (access(candidate.c_str(), X_OK) == 0)
                return candidate;
            start = end + 1;
        }
        return program;
    }

    bool readAt(int fd, void* out, size_t size, off_t offset) { return pread(fd, out, size, offset) == ssize_t(size); }

    struct ElfFacts {
        bool elf = false;
        bool dynamic = false; // has a PT_INTERP: the dynamic loader runs
        bool carriesCollector = false; // the collector's note (libppe.a linked in)
    };

    bool noteSegmentHasCollector(int fd, const Elf64_Phdr& ph)
    {
        std::vector<uint8_t> notes(ph.p_filesz);
        if (notes.empty() || notes.size() > (1u << 20) || !readAt(fd, notes.data(), notes.size(), off_t(ph.p_offset)))
            return false;
        const uintptr_t start = reinterpret_cast<uintptr_t>(notes.data());
        ElfNote note {};
        return findNote(start, start + notes.size(), kPpeNoteType, "PPE", &note);
    }

    ElfFacts readElfFacts(int fd)
    {
        ElfFacts facts;
        Elf64_Ehdr eh {};
        if (!readAt(fd, &eh, sizeof eh, 0) || eh.e_ident[EI_MAG0] != ELFMAG0 || eh.e_ident[EI_MAG1] != ELFMAG1
            || eh.e_ident[EI_MAG2] != ELFMAG2 || eh.e_ident[EI_MAG3] != ELFMAG3 || eh.e_ident[EI_CLASS] != ELFCLASS64)
            return facts;
        facts.elf = true;
        for (unsigned i = 0; i < eh.e_phnum; ++i) {
            Elf64_Phdr ph {};
            if (!readAt(fd, &ph, sizeof ph, off_t(eh.e_phoff + uint64_t(i) * eh.e_phentsize)))
                break;
            facts.dynamic |= ph.p_type == PT_INTERP;
            facts.carriesCollector |= ph.p_type == PT_NOTE && noteSegmentHasCollector(fd, ph);
        }
        return facts;
    }

    bool runsAsAnotherUser(const struct stat& st)
    {
        return ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid());
    }

} // namespace

std::optional<std::string> whyPreloadCannotReach(const std::string& program)
{
    const std::string file = resolve(program);
    const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    struct stat st { };
    const bool statted = fstat(fd, &st) == 0;
    const ElfFacts facts = readElfFacts(fd);
    close(fd);
    if (facts.elf && !facts.dynamic && !facts.carriesCollector)
        return program
            + " is statically linked: LD_PRELOAD cannot reach it. Link the collector into it "
              "(-static -Wl,-u,ppe_load -l:libppe.a) and run it under ppe or with PPE_ON=1";
    if (statted && runsAsAnotherUser(st) && !facts.carriesCollector)
        return program
            + " runs set-user-ID or set-group-ID as another user: the dynamic loader ignores LD_PRELOAD for it. "
              "Profile a copy without that bit, or link the collector into it (-lppe) and run it with PPE_ON=1";
    return std::nullopt;
}

} // namespace ppe
