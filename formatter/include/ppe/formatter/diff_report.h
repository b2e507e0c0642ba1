// `ppeout --diff`: two profiles (two runs of one build, or of two builds of the program) compared
// row by row, each formatted with its own map, listings or DWARF (makeReport), their rows matched
// by name. The comparison is Report::diff (report.h, DiffReport), which every renderer draws.
//
// The statistics (docs/user-guide.md, "Comparing two runs"):
//  - a row's share is its hits over its profile's in-range count (Time %, as in the report); the
//    two-proportion z-test (pooled proportion) says whether the share changed;
//  - a row's time is its hits times the time one sample stands for (secondsPerSample); the Poisson
//    z-test on the difference says whether the time changed;
//  - each test has its own verdict, corrected for the number of rows compared by Holm's step-down
//    method at a family-wise error of kDiffAlpha; one word (movement) says what moved: "faster"
//    (time and share fell), "faster, less than the rest" (time fell, share rose), "faster, like
//    the rest" (time fell, share did not change), "smaller share only" (time did not change)...
//  Shares alone are coupled (when one function slows, every other's share falls) and times alone
//  move together with the machine's speed: the word says which of the two a verdict rests on.
#pragma once

#include "ppe/formatter/make_report.h"
#include "ppe/formatter/messages.h"
#include "ppe/formatter/report.h"
#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::formatter {

// The two-sided p of a standard normal z.
double twoSidedP(double z);

// Two-proportion z-test with pooled proportion: x1 of n1 against x2 of n2.
ZTest twoProportionTest(double x1, double n1, double x2, double n2);

// z-test of the difference of two times x2*s2 - x1*s1, x1 and x2 Poisson counts of samples that
// stand for s1 and s2 seconds each.
ZTest poissonTimeTest(double x1, double s1, double x2, double s2);

// Holm's step-down correction: which of `p` are rejected at family-wise error `alpha`, the bound
// each was held to (alpha / (m - rank), rank in increasing p) and its adjusted p (the largest
// (m - j) p of the ranks j up to its own, at most 1: rejected exactly when adjusted <= alpha).
struct HolmResult {
    std::vector<bool> rejected;
    std::vector<double> threshold;
    std::vector<double> adjusted;
};
HolmResult holm(const std::vector<double>& p, double alpha);

// The rows of two reports matched by name: a unit by its name without directory and suffixes
// (moduleKey: the object of another build directory is the same unit), a function by its name
// and its unit's; where that key is not unique on a side, by the full names. Statistics filled.
DiffTable diffTable(const Report& base, const Report& changed, ModuleKind kind, double alpha = kDiffAlpha);

// The word that says what moved in a row whose verdicts are set (see the top of this file).
std::string movementOf(const DiffRow& row);

DiffSide diffSide(const Report& report, const std::string& path);

// Both profiles formatted with their own sources (tables only: no program text), compared: the
// new profile's report (its first table's kind) with the comparison in `diff`. A base
// without a map or executable of its own takes the changed side's map, executable and listings
// when it is a profile of the same build (same build id), else its image's DWARF. A note when the
// builds differ, a warning when the images' names do.
Result<Report> makeDiffReport(const ReportRequest& base, const ReportRequest& changed, Messages& messages);

} // namespace ppe::formatter
