#include "ppe/gdbremote/undo_journal.h"

#include "ppe/gdbremote/hex.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
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
    std::ifstream file(path);
    if (!file)
        return Error { path, 0, std::string("cannot open the undo journal: ") + std::strerror(errno) };
    std::string text(1 << 20, '\0'); // bounded: a journal of a few changes is a few kilobytes
    file.read(text.data(), std::streamsize(text.size()));
    text.resize(size_t(file.gcount()));
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
    const int fd = ::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | (first ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0)
        return Error { m_path, 0,
            errno == EEXIST ? "an undo journal of an earlier run is here: undo it with `ppe-arc restore --journal "
                    + m_path + "` first"
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
    const std::string temporary = m_path + ".new";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return Error { temporary, 0, std::string("cannot write the undo journal: ") + std::strerror(errno) };
    std::string text = std::string(kHeader) + "\nremote " + m_remote + "\n";
    for (const UndoEntry& e : m_entries)
        text += lineOf(e) + "\n";
    auto written = writeAll(fd, text, temporary);
    ::close(fd);
    if (written && ::rename(temporary.c_str(), m_path.c_str()) != 0)
        return Error { m_path, 0, std::string("cannot replace the undo journal: ") + std::strerror(errno) };
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
