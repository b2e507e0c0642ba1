#include "ppe/profile/profile_reader.h"

#include "call_records.h"
#include "outside_samples.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/profile/text_fields.h"
#include "thread_records.h"

#include <functional>
#include <map>
#include <set>

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

    // A string, or a type made from one (the mechanism, parsed as it is read).
    template <class T> Handler text(T Profile::*member)
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

    // Two numbers into two members: cpu-time; ppe-arc's intrusion pairs (mean and p90 seconds a
    // stop; seconds stopped and that ÷ wall time).
    Handler fixedPair(double Profile::*first, double Profile::*second, const char* problem)
    {
        return [=](const Fields& f, Profile& p) {
            return onPair(
                f, parseFixed, [](double, double) { return true; }, p.*first, p.*second, problem);
        };
    }

    std::string onRingDropped(const Fields& f, Profile& p)
    {
        return onPair(
            f, parseUnsigned, [](uint64_t, uint64_t) { return true; }, p.ringLost, p.ringForeign,
            "ring-dropped must be two decimal numbers (lost foreign)");
    }

    std::string onRingThrottled(const Fields& f, Profile& p)
    {
        const auto n = f.size() == 2 ? parseUnsigned(f[1]) : std::nullopt;
        if (!n)
            return "ring-throttled must be one decimal number";
        p.ringThrottled = *n;
        p.ringThrottledKnown = true;
        return "";
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

    // Why a bin at `address` with `count` does not fit the profile read so far, or nullptr.
    const char* binProblem(uint64_t address, uint64_t count, const Profile& p)
    {
        if (count == 0)
            return "bin: expected 0xADDRESS COUNT (COUNT > 0)";
        if (p.binWidth == 0 || p.rangeEnd == 0)
            return "bin before range and bin-width";
        if (address < p.rangeStart || address >= p.rangeEnd || (address - p.rangeStart) % p.binWidth)
            return "bin address outside the range or not on a bin boundary";
        if (!p.bins.empty() && p.bins.back().address >= address)
            return "bin addresses must ascend";
        return nullptr;
    }

    std::string onBin(const Fields& f, Profile& p)
    {
        if (auto e = expectCount(f, 3); !e.empty())
            return e;
        auto address = parseHex(f[1]);
        auto count = parseUnsigned(f[2]);
        if (!address || !count)
            return "bin: expected 0xADDRESS COUNT (COUNT > 0)";
        if (const char* problem = binProblem(*address, *count, p))
            return problem;
        p.bins.push_back(Bin { *address, *count });
        return "";
    }

    // The digits of `text` from `at` in base 16 (lower case) or 10, at most `most` of them.
    size_t readDigits(std::string_view text, size_t at, unsigned base, size_t most, uint64_t& value)
    {
        const size_t start = at;
        for (value = 0; at < text.size() && at - start < most; ++at) {
            const char c = text[at];
            const int digit = c >= '0' && c <= '9' ? c - '0' : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0)
                break;
            value = value * base + uint64_t(digit);
        }
        return at - start;
    }

    // A plain `bin 0xADDRESS COUNT` line (the bulk of a profile) read in one pass, without
    // splitting it into strings: a merge of 100 000 profiles reads hundreds of millions of them.
    // True when the line was taken; anything else (another key, other spacing, upper-case or too
    // many digits, a bin that does not fit) goes the general way, which takes it or says why not.
    bool quickBin(std::string_view line, Profile& p)
    {
        if (!line.starts_with("bin 0x"))
            return false;
        uint64_t address = 0, count = 0;
        const size_t hex = readDigits(line, 6, 16, 16, address);
        if (hex == 0 || 6 + hex >= line.size() || line[6 + hex] != ' ')
            return false;
        const size_t dec = readDigits(line, 7 + hex, 10, 19, count);
        if (dec == 0 || 7 + hex + dec != line.size() || binProblem(address, count, p))
            return false;
        p.bins.push_back(Bin { address, count });
        return true;
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
        size_t bytes = 0;
        for (size_t i = 1; i < f.size(); ++i)
            bytes += f[i].size() + 1;
        if (bytes > kMaxProfileCommandBytes)
            return "command: longer than " + std::to_string(kMaxProfileCommandBytes)
                + " bytes (the limit of a profile)";
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

    // A remote sampler's records (ppe-arc, docs/ppe-format.md "Remote sampling").
    void addRemoteHandlers(std::map<std::string, Handler>& table)
    {
        table.insert({
            { "remote-server", text(&Profile::remoteServer) },
            { "remote-target", text(&Profile::remoteTarget) },
            { "remote-mode", text(&Profile::remoteMode) },
            { "remote-pc", text(&Profile::remotePc) },
            { "remote-interrupt", text(&Profile::remoteInterrupt) },
            { "remote-error", text(&Profile::remoteError) },
            { "intrusion-stops", decimal(&Profile::intrusionStops) },
            { "intrusion-stop-time",
                fixedPair(
                    &Profile::stopMean, &Profile::stopP90, "intrusion-stop-time must be two numbers (mean p90)") },
            { "intrusion-stopped",
                fixedPair(&Profile::stoppedTime, &Profile::stoppedRatio,
                    "intrusion-stopped must be two numbers (seconds ratio)") },
        });
    }

    std::map<std::string, Handler> makeHandlers()
    {
        std::map<std::string, Handler> table = {
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
            { "cpu-time",
                fixedPair(&Profile::cpuUser, &Profile::cpuSystem, "cpu-time must be two numbers (user system)") },
            { "cpu-time-as-of", utc(&Profile::cpuTimeAsOf) },
            { "collector-cpu-time", fixed(&Profile::collectorCpuTime) },
            { "wall-time", fixed(&Profile::wallTime) },
            { "active-time", fixed(&Profile::activeTime) },
            { "ticks", decimal(&Profile::ticks) },
            { "weight-squares", decimal(&Profile::weightSquares) },
            { "count", onCount },
            { "ring-dropped", onRingDropped },
            { "ring-throttled", onRingThrottled },
            { "object", onObject },
            { "object-hit", onObjectHit },
            { "bin", onBin },
            { "thread", detail::onThread },
            { "blocked", detail::onBlocked },
            { "blocking-scan", detail::onBlockingScan },
            { "merged-profiles", decimal(&Profile::mergedProfiles) },
            { "merged-pids", text(&Profile::mergedPids) },
            { "merged-end-reasons", text(&Profile::mergedEndReasons) },
        };
        addRemoteHandlers(table);
        return table;
    }

    const std::map<std::string, Handler>& handlers()
    {
        static const std::map<std::string, Handler> table = makeHandlers();
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

    std::optional<std::string> checkHeader(std::string_view firstLine, uint32_t& versionRead)
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
        versionRead = uint32_t(*version);
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

    // What one profile may claim (profile_reader.h): an error naming the limit, or "".
    std::string checkClaims(const Profile& p, size_t objectHits)
    {
        struct Claim {
            size_t count;
            size_t limit;
            const char* what;
        };
        const Claim claims[] = { { p.bins.size(), kMaxProfileBins, "bin" },
            { p.threads.size(), kMaxProfileThreads, "thread" }, { p.blocked.size(), kMaxProfileBlocked, "blocked" },
            { p.objects.size(), kMaxProfileObjects, "object" }, { objectHits, kMaxProfileObjectHits, "object-hit" },
            { p.codeSections.size(), kMaxProfileCodeSections, "code-section" } };
        for (const Claim& c : claims) {
            if (c.count > c.limit)
                return "more than " + std::to_string(c.limit) + " '" + c.what + "' records (the limit of a profile)";
        }
        if (p.binCount > kMaxProfileBins)
            return "bin-count " + std::to_string(p.binCount) + " is more than " + std::to_string(kMaxProfileBins)
                + " (the limit of a profile)";
        return "";
    }

    // Reads a profile one line at a time: memory is the profile read so far, never the file's text.
    class ProfileParser {
    public:
        explicit ProfileParser(std::string file)
            : m_file(std::move(file))
        {
        }

        // nullopt: go on. `complete`: the line ended with '\n'.
        std::optional<Error> line(std::string_view line, size_t number, bool complete)
        {
            if (m_offset < kBinaryCheckBytes
                && line.substr(0, kBinaryCheckBytes - m_offset).find('\0') != std::string_view::npos)
                return Error { m_file, 0, "binary data: not a ppe profile" };
            m_offset += line.size() + 1;
            m_lastLine = number;
            if (number == 1)
                return header(line);
            if (number > kMaxProfileLines)
                return error(
                    number, "more than " + std::to_string(kMaxProfileLines) + " lines (the limit of a profile)");
            if (line.find_first_not_of(' ') == std::string_view::npos || line[0] == '#')
                return std::nullopt;
            if (m_ended)
                return error(number, "text after the 'end' line");
            if (!complete && line != "end")
                return error(number, "truncated: the last line has no newline");
            return record(line, number);
        }

        Result<Profile> finish()
        {
            if (m_lastLine == 0)
                return Error { m_file, 0, "empty file: not a ppe profile" };
            if (!m_ended)
                return error(m_lastLine, "truncated: no 'end' line");
            for (const std::string& key : requiredKeys()) {
                if (!m_seen.count(key))
                    return Error { m_file, 0, "missing '" + key + "' line" };
            }
            if (std::string problem = detail::finishCallPaths(m_callRecords, m_profile.calls); !problem.empty())
                return Error { m_file, 0, problem };
            // Version 2: the samples outside the monitored object as they were taken, attributed here
            // (and version 3's call paths named with them).
            if (m_profile.version >= kRawOutsideVersion)
                detail::attributeOutside(m_profile, m_outside);
            if (std::string problem = checkConsistency(m_profile); !problem.empty())
                return Error { m_file, 0, problem };
            return std::move(m_profile);
        }

    private:
        // The first line is checked before anything else is read: a file that is no profile ends here.
        std::optional<Error> header(std::string_view line)
        {
            if (auto problem = checkHeader(line.substr(0, 64), m_profile.version))
                return error(1, *problem);
            return std::nullopt;
        }

        std::optional<Error> record(std::string_view line, size_t number)
        {
            if (m_binsSeen && quickBin(line, m_profile)) {
                if (m_profile.bins.size() <= kMaxProfileBins)
                    return std::nullopt; // the only count a bin line adds to
                return error(number, checkClaims(m_profile, m_objectHits));
            }
            auto fields = splitFields(line);
            if (!fields || fields->empty())
                return error(number, "malformed quoted string");
            if ((*fields)[0] == "end" && fields->size() == 1) {
                m_ended = true;
                return std::nullopt;
            }
            if (m_profile.version >= kRawOutsideVersion) {
                if (auto problem = detail::takeOutsideRecord(*fields, m_outside))
                    return problem->empty() ? std::nullopt : std::optional(error(number, *problem));
            }
            if (m_profile.version >= kCallPathsVersion) {
                if (auto problem = detail::takeCallRecord(*fields, m_callRecords, m_profile))
                    return problem->empty() ? std::nullopt : std::optional(error(number, *problem));
            }
            auto handler = handlers().find((*fields)[0]);
            if (handler == handlers().end())
                return std::nullopt; // a key from a later minor revision: ignored (docs/ppe-format.md)
            if (std::string problem = handler->second(*fields, m_profile); !problem.empty())
                return error(number, problem);
            m_objectHits += (*fields)[0] == "object-hit";
            if (std::string problem = checkClaims(m_profile, m_objectHits); !problem.empty())
                return error(number, problem);
            m_seen.insert((*fields)[0]);
            m_binsSeen = m_binsSeen || (*fields)[0] == "bin";
            return std::nullopt;
        }

        Error error(size_t number, std::string message) const { return Error { m_file, number, std::move(message) }; }

        static constexpr size_t kBinaryCheckBytes = 4096;
        std::string m_file;
        Profile m_profile;
        detail::OutsideSamples m_outside; // version 2's raw records, attributed at the end
        detail::CallRecords m_callRecords; // version 3's
        std::set<std::string> m_seen;
        bool m_ended = false;
        bool m_binsSeen = false; // the first bin line went the general way (m_seen has "bin")
        size_t m_offset = 0;
        size_t m_lastLine = 0;
        size_t m_objectHits = 0;
    };

} // namespace

bool looksLikeProfile(std::string_view text) { return text.substr(0, 12) == "ppe-profile "; }

Result<Profile> parseProfile(std::string_view text, std::string_view fileName)
{
    ProfileParser parser { std::string(fileName) };
    size_t number = 0;
    for (size_t at = 0; at < text.size();) {
        const size_t newline = text.find('\n', at);
        const bool complete = newline != std::string_view::npos;
        const std::string_view line = text.substr(at, complete ? newline - at : std::string_view::npos);
        at = complete ? newline + 1 : text.size();
        if (line.size() > kMaxProfileLineBytes)
            return Error { std::string(fileName), number + 1,
                "a line longer than " + std::to_string(kMaxProfileLineBytes) + " bytes (the limit of a line)" };
        if (auto e = parser.line(line, ++number, complete))
            return *e;
    }
    return parser.finish();
}

Result<Profile> readProfile(const std::string& path, InputOrigin origin)
{
    auto file = InputFile::open(path, origin);
    if (!file)
        return file.error();
    ProfileParser parser { path };
    // The header first, from a bounded prefix: a file that is no profile costs 4 KiB at most.
    InputLines lines(*file, 4096);
    std::string line;
    bool complete = false;
    for (;;) {
        auto more = lines.next(line, complete);
        if (!more && lines.number() == 0 && !line.empty()) // the first line too long: binary, or no header
            return parser.line(line, 1, false).value_or(more.error());
        if (!more)
            return more.error();
        if (!*more)
            return parser.finish();
        if (auto e = parser.line(line, lines.number(), complete))
            return *e;
        lines.setMaxLineBytes(kMaxProfileLineBytes);
    }
}

} // namespace ppe
