#include "ppe/mapparse/link_map.h"

#include "detect.h"
#include "dialects.h"
#include "modules.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ppe::mapparse {

namespace {

    Result<InputSections> parseDialect(Dialect dialect, const std::vector<MapLine>& lines, std::string_view fileName)
    {
        switch (dialect) {
        case Dialect::GnuLd:
            return parseGnuLdMap(lines, fileName);
        case Dialect::Gold:
            return parseGoldMap(lines, fileName);
        case Dialect::Lld:
            return parseLldMap(lines, fileName);
        case Dialect::Mold:
            return parseMoldMap(lines, fileName);
        }
        return mapError(fileName, 0, "unknown linker map dialect");
    }

} // namespace

uint64_t Module::start() const { return sections.empty() ? 0 : sections.front().address; }

uint64_t Module::end() const
{
    uint64_t last = 0;
    for (const Section& s : sections)
        last = std::max(last, s.end());
    return last;
}

uint64_t Module::codeSize() const
{
    uint64_t bytes = 0;
    for (const Section& s : sections)
        bytes += s.size;
    return bytes;
}

bool isLinkTimePartition(std::string_view path)
{
    const size_t slash = path.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (base == "lto.tmp" || base == "ld-temp.o")
        return true;
    if (base.starts_with("lto-llvm-") && base.ends_with(".o"))
        return true;
    return base.ends_with(".o") && base.find(".ltrans") != std::string_view::npos;
}

size_t linkTimePartitions(const LinkMap& map)
{
    return size_t(std::count_if(
        map.modules.begin(), map.modules.end(), [](const Module& m) { return isLinkTimePartition(m.path); }));
}

std::string_view dialectName(Dialect dialect)
{
    switch (dialect) {
    case Dialect::GnuLd:
        return "GNU ld";
    case Dialect::Gold:
        return "gold";
    case Dialect::Lld:
        return "lld";
    case Dialect::Mold:
        return "mold";
    }
    return "unknown";
}

// A linker ends its map with a newline; a last line without one was cut off in the middle.
Result<LinkMap> parseLinkMap(std::string_view text, std::string_view fileName)
{
    const std::vector<MapLine> lines = splitLines(text);
    const Result<Dialect> dialect = detectDialect(text, lines, fileName);
    if (!dialect)
        return dialect.error();
    if (!text.ends_with('\n'))
        return mapError(fileName, lines.back().number, "truncated linker map (the last line is incomplete)");
    const Result<InputSections> sections = parseDialect(*dialect, lines, fileName);
    if (!sections)
        return sections.error();
    LinkMap map { *dialect, buildModules(*sections), *dialect == Dialect::GnuLd ? gnuLdOutputFile(lines) : "" };
    if (map.modules.empty())
        return mapError(fileName, 0, "no code sections found");
    return map;
}

Result<LinkMap> readLinkMap(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return mapError(path, 0, std::string("cannot open linker map: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return mapError(path, 0, "cannot read linker map");
    return parseLinkMap(text.str(), path);
}

} // namespace ppe::mapparse
