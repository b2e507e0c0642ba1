// The model of `ppeout --diff`: two profiles (two runs of one build, or of two builds of the
// program) compared row by row, each formatted with its own map, listings or DWARF (makeReport),
// their rows matched by name. Every number a renderer of the comparison prints is here.
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

inline constexpr double kDiffAlpha = 0.05; // family-wise error of each table's verdicts

// One side of the comparison: its profile's header numbers.
struct DiffSide {
    std::string path; // the .ppe file
    std::string image;
    std::string buildId;
    std::string host;
    int64_t startTime = 0; // seconds since the epoch, UTC
    std::string mechanism;
    bool cpuTime = true; // CPU-time samples (CPU mode), not real time
    uint64_t total = 0; // all samples
    uint64_t inRange = 0; // the samples in the program's code: the denominator of every share
    double cpuSeconds = 0; // user + system, getrusage
    double intervalMs = 0; // the requested interval
    double achievedRate = 0; // Hz, over the time the mechanism samples (Totals::sampledRate)
    double secondsPerSample = 0; // the time one sample stands for (thread_report.h)
    double sampledSeconds = 0; // inRange x secondsPerSample: the program's own sampled time
};

enum class DiffPresence { Both, OnlyBase, OnlyChanged }; // where the row has hits

// The outcome of one z-test.
struct ZTest {
    double z = 0; // positive: the changed profile's value is larger
    double p = 1; // two-sided
};

struct DiffRow {
    std::string name; // as the changed profile's report names it (the base's when only there)
    std::string unit; // a function's compilation unit, "" for a unit or when unknown
    DiffPresence presence = DiffPresence::Both;
    Share base; // hits, % of base in-range, binomial error
    Share changed;
    double deltaPercent = 0; // changed.percent - base.percent: percentage points of share
    ZTest share; // two-proportion z-test of the shares
    double baseSeconds = 0; // base.hits x base secondsPerSample
    double changedSeconds = 0;
    double deltaSeconds = 0; // changedSeconds - baseSeconds
    double secondsError = 0; // Poisson standard error of deltaSeconds
    ZTest time; // z-test of the times
    double shareP = 1; // share.p adjusted by Holm's method over the table's rows
    double timeP = 1; // time.p adjusted likewise
    bool shareSignificant = false; // shareP <= alpha: the share changed
    bool timeSignificant = false; // timeP <= alpha: the time changed
    bool significant = false; // both changed, in the same direction: the row changed by itself
    std::string movement; // "faster", "slower, less than the rest", "larger share only", "-"...
};

struct DiffTable {
    ModuleKind kind = ModuleKind::Unit;
    // Significant rows first, then decreasing |deltaSeconds|. Includes "(no module)" for in-range
    // hits that fell in no module's code, when either side has some.
    std::vector<DiffRow> rows;
    size_t compared = 0; // rows in the correction's family (all rows)
    size_t significant = 0; // rows whose time and share changed in the same direction
    size_t timeChanged = 0; // rows whose time changed
    size_t shareChanged = 0; // rows whose share changed
};

struct DiffReport {
    DiffSide base, changed;
    double alpha = kDiffAlpha;
    // The program's sampled time, base -> changed, and its Poisson z-test.
    double deltaSeconds = 0;
    double deltaSecondsPercent = 0; // of the base's sampled time
    ZTest time;
    bool timeSignificant = false; // time.p <= alpha (one test)
    // Two profiles of one build (same build id): a change of the program time is run-to-run
    // variation of the machine, which the binomial errors do not cover; no verdict is given on it.
    bool sameBuild = false;
    std::vector<DiffTable> tables; // --by's modules; with --by unit also the functions
    std::vector<std::string> warnings;
};

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

// Both profiles formatted with their own sources (tables only: no program text), compared. A base
// without a map or executable of its own takes the changed side's map, executable and listings
// when it is a profile of the same build (same build id), else its image's DWARF. A note when the
// builds differ, a warning when the images' names do.
Result<DiffReport> makeDiffReport(const ReportRequest& base, const ReportRequest& changed, Messages& messages);

} // namespace ppe::formatter
