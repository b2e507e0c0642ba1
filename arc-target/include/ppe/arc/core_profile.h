// A per-core profile: what no public document says about one ARC core, supplied by its user
// (`ppe-arc count --range ... --core-profile FILE`, docs/user-guide.md). Today one fact: which bit
// of which aux register limits a counter to the PCs in [PCT_RANGEL, PCT_RANGEH]. Without a profile
// range counting is off; with one, the bit is verified on the core by write and read-back before
// anything is counted (a core without it reads it back clear).
//
// The format, one setting a line, '#' starts a comment:
//     core NAME                      required: the core the profile was made for (printed)
//     range-enable REGISTER BIT      required: an aux register by name (pct_config) or address
//                                    (0x254), and the bit (0-31) that turns the range on
//     range-end inclusive|exclusive  optional: PCT_RANGEH holds the last address counted (default)
//                                    or the first one past the range
//     pct-build 0xVALUE              optional: PCT_BUILD of that core; another value is refused
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ppe::arc {

struct CoreProfile {
    std::string core;
    uint32_t rangeRegister = 0; // aux address of the enable bit (PCT_CONFIG: chosen per counter)
    unsigned rangeBit = 0;
    bool rangeEndInclusive = true;
    std::optional<uint32_t> pctBuild;
};

inline constexpr size_t kMaxCoreProfileBytes = 64 * 1024;

// The profile in `text`; errors name `file` and the line ("FILE:LINE: ...").
Result<CoreProfile> parseCoreProfile(std::string_view text, const std::string& file);
// The profile in the file at `path` (at most kMaxCoreProfileBytes).
Result<CoreProfile> readCoreProfile(const std::string& path);

} // namespace ppe::arc
