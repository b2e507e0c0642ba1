#include "ppe/gdbremote/undo_journal.h"

#include "ppe/gdbremote/hex.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe::gdbremote {

namespace {

    constexpr const char* kHeader = "ppe-arc undo journal 1";

    std::string lineOf(const UndoEntry& e)
    {
        switch (e.kind) {
        case UndoEntry::Kind::Register:
            return "register " + e.name + " " + std::to_string(e.number) + " " + std::to_string(e.offset) + " "
                + toHex(e.bytes);
        case UndoEntry::Kind::Memory:
            return "memory " + hexNumber(e.number) + " " + toHex(e.bytes);
        case UndoEntry::Kind::Breakpoint:
            return "breakpoint " + hexNumber(e.number) + " " + std::to_string(e.breakpointKind);
        case UndoEntry::Kind::Monitor:
            return "monitor " + toHex(e.name);
        case UndoEntry::Kind::Tool:
            return "tool " + toHex(e.name);
        }
        return {};
    }

    // Writes `text` to `fd` and flushes it to the disk.
    Result<std::monostate> writeAll(int fd, const std::string& text, const std::string& path)
    {
        for (size_t done = 0; done < text.size();) {
            const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return Error { path, 0, std::string("cannot write the undo journal: ") + std::strerror(errno) };
            done += size_t(n);
        }
        if (::fsync(fd) != 0)
            return Error { path, 0, std::string("cannot flush the undo journal: ") + std::strerror(errno) };
        return std::monostate {};
    }

    // A journal is trusted only when it is a plain file of the effective user's or root's: one of
    // another user's would choose the writes `ppe-arc restore` makes to the target (issue 32).
    const char* distrust(int fd)
    {
        struct stat st { };
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
            return "not a regular file";
        if (st.st_uid != ::geteuid() && st.st_uid != 0)
            return "it belongs to another user";
        if (st.st_nlink != 1)
            return "it has other names (a hard link)";
        return nullptr;
    }

    // Opens the journal to append to it: never through a symlink, and only a file of the user's, so
    // that another user in a shared directory cannot aim the writes elsewhere.
    int openToAppend(const std::string& path, bool first)
    {
        const int fd
            = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (first ? O_CREAT | O_EXCL : 0), 0600);
        if (fd >= 0 && distrust(fd)) {
            ::close(fd);
            errno = EPERM;
            return -1;
        }
        return fd;
    }

    // A new file beside `path` under an unguessable name (O_EXCL: a planted name or symlink is never
    // followed); its name in `*name`.
    int createTemporary(const std::string& path, std::string* name)
    {
        for (int attempt = 0; attempt < 16; ++attempt) {
            uint64_t random = 0;
            if (::getrandom(&random, sizeof random, 0) != sizeof random)
                return -1;
            *name = path + "." + hexNumber(random) + ".new";
            const int fd = ::open(name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd >= 0 || errno != EEXIST)
                return fd;
        }
        return -1;
    }

    Result<UndoEntry> parseEntry(const std::string& line, const std::string& path, size_t number)
    {
        std::istringstream words(line);
        std::string kind, a, b, c, d;
        words >> kind >> a >> b >> c >> d;
        const auto bad = [&] { return Error { path, number, "not an undo entry: '" + line.substr(0, 60) + "'" }; };
        const auto decimal = [](const std::string& w) {
            return !w.empty() && w.size() < 10 && w.find_first_not_of("0123456789") == std::string::npos;
        };
        if (kind == "register") {
            auto bytes = fromHex(d);
            if (a.empty() || !decimal(b) || !decimal(c) || !bytes || bytes->empty() || bytes->size() > 64)
                return bad();
            return UndoEntry { UndoEntry::Kind::Register, a, std::stoull(b), *bytes, 0, std::stoull(c) };
        }
        if (kind == "monitor" || kind == "tool") {
            auto command = fromHex(a);
            if (!command || command->empty() || command->size() > 1024 || !b.empty())
                return bad();
            return UndoEntry { kind == "tool" ? UndoEntry::Kind::Tool : UndoEntry::Kind::Monitor, *command, 0, {}, 0 };
        }
        auto address = parseHexNumber(a);
        if (kind == "memory") {
            auto bytes = fromHex(b);
            if (!address || !bytes || bytes->empty())
                return bad();
            return UndoEntry { UndoEntry::Kind::Memory, {}, *address, *bytes, 0 };
        }
        if (kind == "breakpoint" && address && decimal(b) && b.size() < 4)
            return UndoEntry { UndoEntry::Kind::Breakpoint, {}, *address, {}, unsigned(std::stoul(b)) };
        return bad();
    }

} // namespace

UndoJournal::UndoJournal(std::string path, std::string remote)
    : m_path(std::move(path))
    , m_remote(std::move(remote))
{
}

Result<UndoJournal> UndoJournal::load(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return Error { path, 0, std::string("cannot open the undo journal: ") + std::strerror(errno) };
    if (const char* why = distrust(fd)) {
        ::close(fd);
        return Error { path, 0, std::string("not trusted as an undo journal: ") + why };
    }
    std::string text(1 << 20, '\0'); // bounded: a journal of a few changes is a few kilobytes
    size_t size = 0;
    for (ssize_t n = 1; n > 0 && size<text.size(); size += n> 0 ? size_t(n) : 0)
        n = ::read(fd, text.data() + size, text.size() - size);
    ::close(fd);
    text.resize(size);
    return parse(text, path);
}

Result<UndoJournal> UndoJournal::parse(std::string_view text, const std::string& path)
{
    std::istringstream in { std::string(text) };
    std::string line;
    if (!std::getline(in, line) || line != kHeader)
        return Error { path, 1, "not a ppe-arc undo journal" };
    UndoJournal journal(path, {});
    for (size_t number = 2; std::getline(in, line) && number < 100000; ++number) {
        if (line.rfind("remote ", 0) == 0) {
            journal.m_remote = line.substr(7);
            continue;
        }
        auto entry = parseEntry(line, path, number);
        if (!entry)
            return entry.error();
        journal.m_entries.push_back(std::move(*entry));
    }
    return journal;
}

Result<std::monostate> UndoJournal::add(const UndoEntry& entry)
{
    // The first change creates the file, never over one left by an earlier run (its changes may
    // still be in the target: `ppe-arc restore` first).
    const bool first = m_entries.empty();
    const int fd = openToAppend(m_path, first);
    if (fd < 0)
        return Error { m_path, 0,
            errno == EEXIST ? "an undo journal of an earlier run is here: undo it with `ppe-arc restore --journal "
                    + m_path + "` first"
                : errno == ELOOP || errno == EPERM
                ? "the undo journal's name holds a symlink or a file not of this user's: not followed, not trusted"
                : std::string("cannot open the undo journal: ") + std::strerror(errno) };
    std::string text = first ? std::string(kHeader) + "\nremote " + m_remote + "\n" : std::string();
    text += lineOf(entry) + "\n";
    auto written = writeAll(fd, text, m_path);
    ::close(fd);
    if (written)
        m_entries.push_back(entry);
    return written;
}

Result<std::monostate> UndoJournal::rewrite()
{
    if (m_entries.empty()) {
        if (::unlink(m_path.c_str()) != 0 && errno != ENOENT)
            return Error { m_path, 0, std::string("cannot remove the undo journal: ") + std::strerror(errno) };
        return std::monostate {};
    }
    std::string temporary;
    const int fd = createTemporary(m_path, &temporary);
    if (fd < 0)
        return Error { temporary, 0, std::string("cannot write the undo journal: ") + std::strerror(errno) };
    std::string text = std::string(kHeader) + "\nremote " + m_remote + "\n";
    for (const UndoEntry& e : m_entries)
        text += lineOf(e) + "\n";
    auto written = writeAll(fd, text, temporary);
    ::close(fd);
    if (written && ::rename(temporary.c_str(), m_path.c_str()) != 0)
        written = Error { m_path, 0, std::string("cannot replace the undo journal: ") + std::strerror(errno) };
    if (!written)
        ::unlink(temporary.c_str());
    return written;
}

void UndoJournal::dropLast()
{
    if (m_entries.empty())
        return;
    m_entries.pop_back();
    (void)rewrite(); // at worst an entry already undone stays: undoing it again is harmless
}

} // namespace ppe::gdbremote
