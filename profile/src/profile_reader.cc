#include "ppe/profile/profile_reader.h"

#include "ppe/profile/text_fields.h"
#include "thread_records.h"

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ppe {

namespace {

    using Fields = std::vector<std::string>;
    // A line handler returns an error message, or "" when the line is good.
    using Handler = std::function<std::string(const Fields&, Profile&)>;

    std::string expectCount(const Fields& f, size_t count)
    {
        return f.size() == count ? "" : "expected " + std::to_string(count - 1) + " value(s) after '" + f[0] + "'";
    }

    template <class T, class Parse> Handler field(T Profile::*member, Parse parse, const char* what)
    {
        return [=](const Fields& f, Profile& p) -> std::string {
            if (auto e = expectCount(f, 2); !e.empty())
                return e;
            auto value = parse(f[1]);
            if (!value)
                return "'" + f[0] + "': expected " + what;
            p.*member = T(*value);
            return "";
        };
    }

    Handler text(std::string Profile::*member)
    {
        return field(
            member, [](const std::string& s) { return std::optional<std::string>(s); }, "a string");
    }

    Handler decimal(uint64_t Profile::*member) { return field(member, parseUnsigned, "a decimal number"); }
    Handler hex(uint64_t Profile::*member) { return field(member, parseHex, "a 0x-hex number"); }
    Handler fixed(double Profile::*member) { return field(member, parseFixed, "a number"); }
    Handler utc(int64_t Profile::*member) { return field(member, parseUtc, "a UTC time YYYY-MM-DDTHH:MM:SSZ"); }

    std::optional<uint32_t> parseSmall(std::string_view s)
    {
        auto v = parseUnsigned(s);
        if (!v || *v > UINT32_MAX)
            return std::nullopt;
        return uint32_t(*v);
    }

    std::string onStatus(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 2); !e.empty())
            return e;
        for (auto s : { ProfileStatus::Complete, ProfileStatus::Checkpoint, ProfileStatus::Recovered }) {
            if (f[1] == statusName(s)) {
                p.status = s;
                return "";
            }
        }
        return "unknown status '" + f[1] + "'";
    }

    std::string onMode(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 3); !e.empty())
            return e;
        if (f[1] == "0" && f[2] == "real")
            p.mode = SampleMode::Real;
        else if (f[1] == "1" && f[2] == "cpu")
            p.mode = SampleMode::Cpu;
        else
            return "mode must be '0 real' or '1 cpu'";
        return "";
    }

    // A field of two values, both read by `parse` and together accepted by `valid`.
    template <class T, class Parse, class Valid>
    std::string onPair(const Fields& f, Parse parse, Valid valid, T& first, T& second, const char* problem)
    {
        if (auto e = expectCount(f, 3); !e.empty())
            return e;
        auto a = parse(f[1]);
        auto b = parse(f[2]);
        if (!a || !b || !valid(*a, *b))
            return problem;
        first = *a;
        second = *b;
        return "";
    }

    std::string onRange(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseHex, [](uint64_t start, uint64_t end) { return start < end; }, p.rangeStart, p.rangeEnd,
            "range must be two 0x-hex addresses, start < end");
    }

    std::string onCpuTime(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseFixed, [](double, double) { return true; }, p.cpuUser, p.cpuSystem,
            "cpu-time must be two numbers (user system)");
    }

    std::string onRingDropped(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseUnsigned, [](uint64_t, uint64_t) { return true; }, p.ringLost, p.ringForeign,
            "ring-dropped must be two decimal numbers (lost foreign)");
    }

    std::string onCodeSection(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 4); !e.empty())
            return e;
        auto address = parseHex(f[2]);
        auto size = parseHex(f[3]);
        if (f[1].empty() || !address || !size)
            return "code-section: expected \"NAME\" 0xADDRESS 0xSIZE";
        p.codeSections.push_back(ImageSection { f[1], *address, *size });
        return "";
    }

    // ppe-arc's intrusion pairs: mean and p90 seconds a stop; seconds stopped and that ÷ wall time.
    std::string onStopTime(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseFixed, [](double, double) { return true; }, p.stopMean, p.stopP90,
            "intrusion-stop-time must be two numbers (mean p90)");
    }

    std::string onStopped(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseFixed, [](double, double) { return true; }, p.stoppedTime, p.stoppedRatio,
            "intrusion-stopped must be two numbers (seconds ratio)");
    }

    std::string onCount(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 3); !e.empty())
            return e;
        auto value = parseUnsigned(f[2]);
        if (!value)
            return "count " + f[1] + ": expected a decimal number";
        if (f[1] == "saturated")
            p.saturated = *value;
        else if (f[1] == "total")
            p.total = *value;
        else {
            unsigned c = 0;
            while (c < kCategoryCount && f[1] != categoryName(c))
                ++c;
            if (c == kCategoryCount)
                return "unknown count category '" + f[1] + "'";
            p.counts[c] = *value;
        }
        return "";
    }

    std::string onObject(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 5); !e.empty())
            return e;
        auto id = parseUnsigned(f[1]);
        auto hits = parseUnsigned(f[2]);
        auto buildId = parseBuildId(f[3]);
        if (!id || !hits || !buildId)
            return "object: expected ID HITS BUILD-ID \"PATH\"";
        if (*id != p.objects.size())
            return "object ids must count up from 0";
        p.objects.push_back(SharedObject { f[4], *buildId, *hits, {} });
        return "";
    }

    std::string onObjectHit(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 4); !e.empty())
            return e;
        auto id = parseUnsigned(f[1]);
        auto offset = parseHex(f[2]);
        auto count = parseUnsigned(f[3]);
        if (!id || !offset || !count)
            return "object-hit: expected ID 0xOFFSET COUNT";
        if (*id >= p.objects.size())
            return "object-hit names object " + f[1] + " before its object line";
        auto& hits = p.objects[*id].hitsByOffset;
        if (!hits.empty() && hits.back().fileOffset >= *offset)
            return "object-hit offsets must ascend";
        hits.push_back(ObjectSamples { *offset, *count });
        return "";
    }

    std::string onBin(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 3); !e.empty())
            return e;
        auto address = parseHex(f[1]);
        auto count = parseUnsigned(f[2]);
        if (!address || !count || !*count)
            return "bin: expected 0xADDRESS COUNT (COUNT > 0)";
        if (p.binWidth == 0 || p.rangeEnd == 0)
            return "bin before range and bin-width";
        if (*address < p.rangeStart || *address >= p.rangeEnd || (*address - p.rangeStart) % p.binWidth)
            return "bin address outside the range or not on a bin boundary";
        if (!p.bins.empty() && p.bins.back().address >= *address)
            return "bin addresses must ascend";
        p.bins.push_back(Bin { *address, *count });
        return "";
    }

    std::string onRank(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 2); !e.empty())
            return e;
        auto rank = parseUnsigned(f[1]);
        if (!rank)
            return "rank: expected a decimal number";
        p.rank = *rank;
        return "";
    }

    std::string onCommand(const Fields& f, Profile& p)
    {
        p.command.assign(f.begin() + 1, f.end());
        return "";
    }

    std::string onBuildId(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 2); !e.empty())
            return e;
        auto id = parseBuildId(f[1]);
        if (!id)
            return "build-id must be lower-case hex or none";
        p.buildId = *id;
        return "";
    }

    const std::map<std::string, Handler>& handlers()
    {
        static const std::map<std::string, Handler> table = {
            { "producer", text(&Profile::producer) },
            { "status", onStatus },
            { "end-reason", text(&Profile::endReason) },
            { "host", text(&Profile::host) },
            { "cpu", text(&Profile::cpu) },
            { "arch", text(&Profile::arch) },
            { "os", text(&Profile::os) },
            { "pid", decimal(&Profile::pid) },
            { "parent-pid", decimal(&Profile::parentPid) },
            { "rank", onRank },
            { "start-time", utc(&Profile::startTime) },
            { "end-time", utc(&Profile::endTime) },
            { "image", text(&Profile::image) },
            { "build-id", onBuildId },
            { "command", onCommand },
            { "load-bias", hex(&Profile::loadBias) },
            { "range", onRange },
            { "code-section", onCodeSection },
            { "mechanism", text(&Profile::mechanism) },
            { "mode", onMode },
            { "interval", decimal(&Profile::interval) },
            { "requested-rate", fixed(&Profile::requestedRate) },
            { "achieved-rate", fixed(&Profile::achievedRate) },
            { "granularity", field(&Profile::granularity, parseSmall, "a decimal number") },
            { "bin-width", field(&Profile::binWidth, parseSmall, "a decimal number") },
            { "bin-count", decimal(&Profile::binCount) },
            { "max-bin", decimal(&Profile::maxBin) },
            { "cpu-time", onCpuTime },
            { "cpu-time-as-of", utc(&Profile::cpuTimeAsOf) },
            { "wall-time", fixed(&Profile::wallTime) },
            { "active-time", fixed(&Profile::activeTime) },
            { "ticks", decimal(&Profile::ticks) },
            { "count", onCount },
            { "ring-dropped", onRingDropped },
            { "object", onObject },
            { "object-hit", onObjectHit },
            { "bin", onBin },
            { "thread", detail::onThread },
            { "blocked", detail::onBlocked },
            { "blocking-scan", detail::onBlockingScan },
            { "remote-server", text(&Profile::remoteServer) },
            { "remote-target", text(&Profile::remoteTarget) },
            { "remote-mode", text(&Profile::remoteMode) },
            { "remote-pc", text(&Profile::remotePc) },
            { "remote-interrupt", text(&Profile::remoteInterrupt) },
            { "remote-error", text(&Profile::remoteError) },
            { "intrusion-stops", decimal(&Profile::intrusionStops) },
            { "intrusion-stop-time", onStopTime },
            { "intrusion-stopped", onStopped },
        };
        return table;
    }

    // Keys every version-1 file has.
    const std::set<std::string>& requiredKeys()
    {
        static const std::set<std::string> keys
            = { "producer", "status", "host", "arch", "pid", "start-time", "end-time", "image", "build-id", "command",
                  "load-bias", "range", "mechanism", "mode", "interval", "bin-width", "bin-count", "count" };
        return keys;
    }

    std::optional<std::string> checkHeader(std::string_view firstLine)
    {
        auto fields = splitFields(firstLine);
        if (!fields || fields->size() != 2 || (*fields)[0] != "ppe-profile")
            return "not a ppe profile (expected a first line 'ppe-profile 1')";
        auto version = parseUnsigned((*fields)[1]);
        if (!version || *version == 0)
            return "bad format version '" + (*fields)[1] + "'";
        if (*version > kReaderVersion)
            return "format version " + (*fields)[1] + " is newer than this ppeout understands ("
                + std::to_string(kReaderVersion) + ")";
        return std::nullopt;
    }

    // Totals that must agree: what the file says against what its lines add up to.
    std::string checkConsistency(const Profile& p)
    {
        uint64_t sum = 0;
        for (uint64_t c : p.counts)
            sum += c;
        if (sum != p.total)
            return "count total " + std::to_string(p.total) + " is not the sum of the categories ("
                + std::to_string(sum) + ")";
        uint64_t binned = 0;
        for (const Bin& b : p.bins)
            binned += b.count;
        if (binned + p.saturated != p.inRange())
            return "bins add up to " + std::to_string(binned) + " but count in-range is " + std::to_string(p.inRange());
        if (p.binWidth == 0 || (p.binWidth & (p.binWidth - 1)))
            return "bin-width must be a power of two";
        if ((p.rangeEnd - p.rangeStart + p.binWidth - 1) / p.binWidth != p.binCount)
            return "bin-count does not match range and bin-width";
        return "";
    }

    bool isBinary(std::string_view text)
    {
        const size_t n = std::min<size_t>(text.size(), 4096);
        for (size_t i = 0; i < n; ++i) {
            if (text[i] == '\0')
                return true;
        }
        return false;
    }

} // namespace

bool looksLikeProfile(std::string_view text) { return text.substr(0, 12) == "ppe-profile "; }

Result<Profile> parseProfile(std::string_view text, std::string_view fileName)
{
    const std::string file(fileName);
    if (text.empty())
        return Error { file, 0, "empty file: not a ppe profile" };
    if (isBinary(text))
        return Error { file, 0, "binary data: not a ppe profile" };
    Profile p;
    std::set<std::string> seen;
    bool ended = false;
    size_t lineNumber = 0;
    size_t at = 0;
    while (at < text.size()) {
        const size_t newline = text.find('\n', at);
        const std::string_view line
            = text.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
        at = newline == std::string_view::npos ? text.size() : newline + 1;
        ++lineNumber;
        if (lineNumber == 1) {
            if (auto problem = checkHeader(line))
                return Error { file, 1, *problem };
            p.version = 1;
            continue;
        }
        if (line.find_first_not_of(' ') == std::string_view::npos || line[0] == '#')
            continue;
        if (ended)
            return Error { file, lineNumber, "text after the 'end' line" };
        if (newline == std::string_view::npos && line != "end")
            return Error { file, lineNumber, "truncated: the last line has no newline" };
        auto fields = splitFields(line);
        if (!fields || fields->empty())
            return Error { file, lineNumber, "malformed quoted string" };
        if ((*fields)[0] == "end" && fields->size() == 1) {
            ended = true;
            continue;
        }
        auto handler = handlers().find((*fields)[0]);
        if (handler == handlers().end())
            continue; // a key from a later minor revision: ignored (docs/ppe-format.md)
        if (std::string problem = handler->second(*fields, p); !problem.empty())
            return Error { file, lineNumber, problem };
        seen.insert((*fields)[0]);
    }
    if (!ended)
        return Error { file, lineNumber, "truncated: no 'end' line" };
    for (const std::string& key : requiredKeys()) {
        if (!seen.count(key))
            return Error { file, 0, "missing '" + key + "' line" };
    }
    if (std::string problem = checkConsistency(p); !problem.empty())
        return Error { file, 0, problem };
    return p;
}

Result<Profile> readProfile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error { path, 0, "cannot open for reading" };
    std::ostringstream text;
    text << in.rdbuf();
    return parseProfile(text.str(), path);
}

} // namespace ppe
