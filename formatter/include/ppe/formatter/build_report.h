// The steps that fill the report model (report.h) from a profile and its modules: hits per module
// (bins split by bytes), the line analysis of the busy modules, the shared objects. makeReport
// (make_report.h) runs them in order; they are separate for the tests.
#pragma once

#include "ppe/formatter/report.h"

#include <functional>
#include <vector>

namespace ppe::formatter {

// 100 * sqrt(p (1 - p) / n) with p = hits / n: PPE's error column. Of samples that stand for
// `weight` intervals each on average (Profile::sampleWeight: itimer-prof's), the error is that of
// the n / weight samples taken.
double binomialErrorPercent(double hits, double n, double weight = 1.0);

// The error of a share with `splitHits` of its `hits` from bins split by bytes between it and
// other owners: the split hits could belong to either, so their part is taken as uniform on
// [0, splitHits] (standard deviation splitHits / sqrt(12)) and added in quadrature to the binomial
// error. Percent of `n`.
double splitErrorPercent(double hits, double splitHits, double n, double weight);

// `hits` as a share of `n`: percent and binomial error (samples of `weight` intervals each).
Share shareOf(double hits, double n, double weight);

// Attributes the profile's bins to `modules` (splitting a bin that straddles a boundary in
// proportion to the bytes each side owns), orders the module table and works out the header's totals.
Report buildReport(Profile profile, const std::vector<CodeModule>& modules);

// The modules of `report` with at least `thresholdPercent` of the in-range hits and a line table:
// the ones analyseLines will list (so that only their source files are read).
std::vector<size_t> modulesForLineAnalysis(
    const Report& report, const std::vector<CodeModule>& modules, double thresholdPercent);

// Adds the line analysis (PPE's third part) of `selected` modules (indexes into `modules`, as
// modulesForLineAnalysis gives) to `report`, with hits per source line from `tables`.
void analyseLines(Report& report, const std::vector<CodeModule>& modules, const std::vector<LineTable>& tables,
    const std::vector<size_t>& selected);

// Adds the shared objects of the profile with at least `thresholdPercent` of all samples, each
// with its `topFunctions` busiest functions as `codeOf` finds them (an error there becomes the
// row's note).
void addSharedObjects(Report& report, const std::function<Result<ObjectCode>(const SharedObject&)>& codeOf,
    double thresholdPercent, size_t topFunctions);

} // namespace ppe::formatter
