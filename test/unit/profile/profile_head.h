// The first records of a small hand-written profile (/bin/prog at load bias 0x400000, range
// 0x1000-0x2000 in 4-byte bins), for the reader's tests of later records.
#pragma once

#include <string>

namespace ppe::test {

inline std::string profileHead(int version, const std::string& mechanism, const std::string& counts)
{
    return "ppe-profile " + std::to_string(version) + R"(
producer "libppe 0.1.0"
status complete
host "h"
arch "x86_64"
pid 1
start-time 2026-01-01T00:00:00Z
end-time 2026-01-01T00:00:01Z
image "/bin/prog"
build-id none
command "/bin/prog"
load-bias 0x400000
range 0x1000 0x2000
mechanism ")"
        + mechanism + R"("
mode 0 real
interval 10000
bin-width 4
bin-count 1024
)" + counts;
}

} // namespace ppe::test
