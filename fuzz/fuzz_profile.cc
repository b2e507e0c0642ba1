// libFuzzer target: .ppe profiles (profile reader) and the report built from them.
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/call_paths.h"
#include "ppe/formatter/text_report.h"
#include "ppe/profile/profile_reader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)ppe::looksLikeProfile(text);
    auto profile = ppe::parseProfile(text, "fuzz.ppe");
    if (!profile)
        return 0;
    const std::vector<ppe::formatter::CodeModule> modules
        = { { "a.o", { { profile->rangeStart, profile->rangeStart + 64 } } },
              { "b.o", { { profile->rangeStart + 64, profile->rangeEnd } } } };
    ppe::formatter::Report report = ppe::formatter::buildReport(std::move(profile.value()), modules);
    // Call paths (issue 39) by a namer of the place's kind and address: functions repeat and recurse.
    ppe::formatter::addCallPaths(
        report,
        [](const ppe::CodeLocation& place) {
            return std::to_string(int(place.kind)) + ":" + std::to_string(place.address % 7);
        },
        20);
    (void)ppe::formatter::renderTextReport(report);
    return 0;
}
