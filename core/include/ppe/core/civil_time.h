// UTC calendar arithmetic without the C library (gmtime_r is not async-signal-safe).
#pragma once

#include <cstdint>

namespace ppe {

struct CivilTime {
    int64_t year;
    unsigned month, day, hour, minute, second;
};

// Seconds since 1970-01-01T00:00:00Z to the UTC calendar (proleptic Gregorian).
CivilTime civilFromUnix(int64_t seconds);
// The inverse; returns seconds since the epoch.
int64_t unixFromCivil(const CivilTime& t);

} // namespace ppe
