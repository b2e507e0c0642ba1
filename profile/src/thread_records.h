// The reader's handlers of the records of threads and blocked time (`thread`, `blocked`,
// `blocking-scan`: docs/ppe-format.md).
#pragma once

#include "ppe/profile/profile.h"

#include <string>
#include <vector>

namespace ppe::detail {

using Fields = std::vector<std::string>;

// Each returns an error message, or "" when the line is good.
std::string onThread(const Fields& f, Profile& p);
std::string onBlocked(const Fields& f, Profile& p);
std::string onBlockingScan(const Fields& f, Profile& p);

} // namespace ppe::detail
