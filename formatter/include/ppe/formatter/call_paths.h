// Issue 39: the call paths of a profile (Profile::calls) by function: inclusive and self time with
// their binomial errors, and for each of the busiest functions its callers and callees with their
// shares of its inclusive time, as gprof's call graph shows them.
#pragma once

#include "ppe/formatter/report.h"
#include "ppe/formatter/thread_report.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ppe::formatter {

// ppeout --callers FUNC / --callees FUNC: the functions to show alone, with every caller or callee.
// A name matches a function of that name, in a shared object too ("f" finds "f (libm.so.6)"),
// and a Fortran procedure by its name without the compiler's trailing underscore.
struct CallFocus {
    std::vector<std::string> callers, callees;
    bool empty() const { return callers.empty() && callees.empty(); }
};

// Fills report.calls when the profile has call paths: the `top` functions of most inclusive time,
// or those `focus` names (a name that matches none is a warning). `functionOf` names the function
// of a place taken as a return address (thread_report.h's PlaceNamer contract: the instruction
// before it is named).
void addCallPaths(Report& report, const PlaceNamer& functionOf, size_t top, const CallFocus& focus = {});

// A merged tree's nodes by (parent, place's kind, object, address, marker): mergeCallPaths keeps it.
using CallNodeIndex = std::map<std::tuple<uint32_t, int, size_t, uint64_t, uint64_t>, uint32_t>;

// Adds the tree `add` to `sum` (ranks merged): a node of `add` is the sum's node of the same place
// under the same merged parent, made when it is new. `objectOf` maps `add`'s object indices to the
// sum's; `index` starts empty and is kept between calls.
void mergeCallPaths(CallPaths& sum, const CallPaths& add, const std::vector<size_t>& objectOf, CallNodeIndex& index);

// The words for a marker node (kShortPathBase + the unwinder's reason).
std::string shortPathName(uint64_t marker);

} // namespace ppe::formatter
