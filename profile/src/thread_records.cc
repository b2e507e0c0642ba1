#include "thread_records.h"

#include "ppe/profile/text_fields.h"

#include <cstdint>

namespace ppe::detail {

std::optional<CodeLocation> parseLocation(const std::string& text, const Profile& p)
{
    if (text == "-")
        return CodeLocation {};
    const size_t plus = text.find('+');
    if (plus == std::string::npos) {
        auto address = parseHex(text);
        return address ? std::optional(CodeLocation { CodeLocation::Kind::Address, 0, *address }) : std::nullopt;
    }
    auto address = parseHex(std::string_view(text).substr(plus + 1));
    if (!address)
        return std::nullopt;
    const std::string_view where = std::string_view(text).substr(0, plus);
    if (where == "image")
        return CodeLocation { CodeLocation::Kind::Image, 0, *address };
    auto object = parseUnsigned(where);
    if (!object || *object >= p.objects.size())
        return std::nullopt;
    return CodeLocation { CodeLocation::Kind::Object, size_t(*object), *address };
}

namespace {

    std::optional<int64_t> parseSyscall(const std::string& text)
    {
        if (text == "-1" || text == "-2")
            return text == "-1" ? -1 : -2;
        auto value = parseUnsigned(text);
        if (!value || *value > uint64_t(INT64_MAX))
            return std::nullopt;
        return int64_t(*value);
    }

} // namespace

std::string onThread(const Fields& f, Profile& p)
{
    if (f.size() != 6)
        return "thread: expected TID SAMPLES CPU-SECONDS BLOCKED-SECONDS \"NAME\"";
    auto tid = parseUnsigned(f[1]);
    auto samples = parseUnsigned(f[2]);
    auto cpu = parseFixed(f[3]);
    auto blocked = parseFixed(f[4]);
    if (!tid || !samples || !cpu || !blocked)
        return "thread: expected TID SAMPLES CPU-SECONDS BLOCKED-SECONDS \"NAME\"";
    p.threads.push_back(ThreadSamples { *tid, *samples, *cpu, *blocked, f[5] });
    return "";
}

std::string onBlocked(const Fields& f, Profile& p)
{
    const char* usage = "blocked: expected SYSCALL SECONDS OBSERVATIONS SITE CALLER [TID] "
                        "(places: -, image+0xADDR, OBJECT+0xOFFSET or 0xADDR, objects named before)";
    if (f.size() != 6 && f.size() != 7) // no TID before issue 34
        return usage;
    auto syscall = parseSyscall(f[1]);
    auto seconds = parseFixed(f[2]);
    auto observations = parseUnsigned(f[3]);
    auto site = parseLocation(f[4], p);
    auto caller = parseLocation(f[5], p);
    auto tid = f.size() == 7 ? parseUnsigned(f[6]) : std::optional<uint64_t>(0);
    if (!syscall || !seconds || !observations || !site || !caller || !tid)
        return usage;
    p.blocked.push_back(BlockedPlace { *syscall, *seconds, *observations, *site, *caller, *tid });
    return "";
}

std::string onBlockingScan(const Fields& f, Profile& p)
{
    if (f.size() != 4)
        return "blocking-scan: expected SCANS PERIOD-SECONDS COST-SECONDS";
    auto scans = parseUnsigned(f[1]);
    auto period = parseFixed(f[2]);
    auto cost = parseFixed(f[3]);
    if (!scans || !period || !cost)
        return "blocking-scan: expected SCANS PERIOD-SECONDS COST-SECONDS";
    p.scan = BlockingScan { *scans, *period, *cost };
    return "";
}

} // namespace ppe::detail
