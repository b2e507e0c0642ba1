// libFuzzer target: .ppe profiles (profile reader) and the report built from them.
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/text_report.h"
#include "ppe/profile/profile_reader.h"

#include <cstddef>
#include <cstdint>
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
    const ppe::formatter::Report report = ppe::formatter::buildReport(std::move(profile.value()), modules);
    (void)ppe::formatter::renderTextReport(report);
    return 0;
}
