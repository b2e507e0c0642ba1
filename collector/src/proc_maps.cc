#include "proc_maps.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace ppe {

namespace {

    bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

    uint64_t parseHex(const char*& p, const char* end)
    {
        uint64_t v = 0;
        for (; p < end && isHex(*p); ++p)
            v = v * 16 + uint64_t(*p <= '9' ? *p - '0' : *p - 'a' + 10);
        return v;
    }

    void skipField(const char*& p, const char* end)
    {
        while (p < end && *p != ' ')
            ++p;
        while (p < end && *p == ' ')
            ++p;
    }

    // Interns the path [p, end) and returns its arena offset (0 for none or no room).
    uint32_t internPath(MapsTable* t, const char* p, const char* end)
    {
        if (p == end)
            return 0;
        const size_t length = size_t(end - p);
        if (t->pathUsed + length + 1 > t->pathCapacity) {
            t->truncated = true;
            return 0;
        }
        // Consecutive mappings of one file share one copy.
        if (t->mappingCount) {
            const uint32_t last = t->mappings[t->mappingCount - 1].path;
            const char* previous = t->paths + last;
            size_t i = 0;
            while (i < length && previous[i] == p[i])
                ++i;
            if (last && i == length && !previous[i])
                return last;
        }
        const uint32_t at = uint32_t(t->pathUsed);
        for (size_t i = 0; i < length; ++i)
            t->paths[at + i] = p[i];
        t->paths[at + length] = '\0';
        t->pathUsed += length + 1;
        return at;
    }

    // "start-end perms offset dev inode   path"
    void parseLine(MapsTable* t, const char* p, const char* end)
    {
        if (t->mappingCount == t->mappingCapacity) {
            t->truncated = true;
            return;
        }
        Mapping m {};
        m.start = parseHex(p, end);
        if (p < end && *p == '-')
            ++p;
        m.end = parseHex(p, end);
        while (p < end && *p == ' ')
            ++p;
        m.readable = p < end && *p == 'r';
        m.executable = end - p > 2 && p[2] == 'x';
        skipField(p, end);
        m.offset = parseHex(p, end);
        skipField(p, end);
        skipField(p, end); // device
        skipField(p, end); // inode
        m.path = internPath(t, p, end);
        t->mappings[t->mappingCount++] = m;
    }

} // namespace

bool readMaps(MapsTable* t)
{
    t->mappingCount = 0;
    t->truncated = false;
    t->pathUsed = 1;
    t->paths[0] = '\0';
    const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buffer[8192];
    size_t have = 0;
    for (;;) {
        const ssize_t n = read(fd, buffer + have, sizeof(buffer) - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += size_t(n);
        size_t lineStart = 0;
        for (size_t i = 0; i < have; ++i) {
            if (buffer[i] != '\n')
                continue;
            parseLine(t, buffer + lineStart, buffer + i);
            lineStart = i + 1;
        }
        if (lineStart == 0 && have == sizeof(buffer))
            lineStart = have; // a line longer than the buffer: drop it
        for (size_t i = lineStart; i < have; ++i)
            buffer[i - lineStart] = buffer[i];
        have -= lineStart;
    }
    close(fd);
    return true;
}

bool readMapsInto(MapsScratch& scratch, MapsTable* table)
{
    *table = MapsTable { scratch.mappings, kMaxMappings, 0, scratch.paths, kPathArena, 1, false };
    return readMaps(table);
}

const Mapping* findMapping(const MapsTable& t, uintptr_t address)
{
    size_t lo = 0;
    size_t hi = t.mappingCount;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (t.mappings[mid].end <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t.mappingCount && t.mappings[lo].start <= address)
        return &t.mappings[lo];
    return nullptr;
}

uint64_t statField(const char* stat, size_t size, int field)
{
    size_t at = size;
    while (at > 0 && stat[at - 1] != ')')
        --at;
    if (at == 0)
        return 0;
    int here = 2; // the ')' ends field 2
    for (; at < size && here < field; ++at)
        here += stat[at] == ' ';
    uint64_t value = 0;
    for (; at < size && stat[at] >= '0' && stat[at] <= '9'; ++at)
        value = value * 10 + uint64_t(stat[at] - '0');
    return here == field ? value : 0;
}

} // namespace ppe
