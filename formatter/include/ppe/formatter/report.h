// The report model: everything a renderer draws, computed once from a profile and its address
// sources (linker map now; listings and DWARF later). Renderers (text now; HTML, JSON,
// callgrind later) only format it.
#pragma once

#include "ppe/profile/profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ppe {

// A contiguous piece of a module's code, in link-time addresses.
struct AddressRange {
    uint64_t start;
    uint64_t end; // exclusive
};

// A compilation unit (or, with -ffunction-sections maps or symbols, a function) that owns code.
struct CodeModule {
    std::string name;
    std::vector<AddressRange> ranges; // sorted, non-overlapping
    uint64_t address() const { return ranges.empty() ? 0 : ranges.front().start; }
    uint64_t size() const
    {
        uint64_t bytes = 0;
        for (const AddressRange& r : ranges)
            bytes += r.end - r.start;
        return bytes;
    }
};

struct ModuleRow {
    std::string name;
    double hits = 0; // fractional when bins straddling modules were split
    double percent = 0; // of in-range hits
    double error = 0; // binomial standard error, percent
    double accumulated = 0; // percent of this and all rows above
    uint64_t address = 0;
    uint64_t size = 0;
};

struct Report {
    Profile profile; // the header fields come straight from it
    std::vector<ModuleRow> modules; // decreasing hits; modules without hits are left out
    double unattributed = 0; // in-range hits that fell in no module (padding, PLT, start-up code)
    bool splitBins = false; // some bins straddled two modules and were split by bytes
    std::vector<std::string> warnings;
};

// 100 * sqrt(p (1 - p) / n) with p = hits / n: PPE's error column.
double binomialErrorPercent(double hits, double n);

// Attributes the profile's bins to `modules` (splitting a bin that straddles a boundary in
// proportion to the bytes each side owns) and orders the module table.
Report buildReport(Profile profile, const std::vector<CodeModule>& modules);

} // namespace ppe
