// The reader's handlers of the records of threads and blocked time (`thread`, `blocked`,
// `blocking-scan`: docs/ppe-format.md).
#pragma once

#include "ppe/profile/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace ppe::detail {

using Fields = std::vector<std::string>;

// A place: `-`, `image+0xADDR`, `ID+0xOFFSET` (an object already named) or `0xADDR` (a run-time
// address, named later by the `mapping` records); nullopt if it is none of these.
std::optional<CodeLocation> parseLocation(const std::string& text, const Profile& p);

// Each returns an error message, or "" when the line is good.
std::string onThread(const Fields& f, Profile& p);
std::string onBlocked(const Fields& f, Profile& p);
std::string onBlockingScan(const Fields& f, Profile& p);

} // namespace ppe::detail
