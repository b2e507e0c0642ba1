// The per-rank imbalance of a merge (report.h's Imbalance): a second streaming pass over the
// merged files, each attributed to the merge's top modules, so that memory grows by ranks x top
// modules numbers, not by the files' histograms.
#pragma once

#include "ppe/formatter/messages.h"
#include "ppe/formatter/report.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ppe::formatter {

inline constexpr size_t kImbalanceModules = 10; // top modules compared across ranks
inline constexpr size_t kImbalanceRankRows = 20; // more ranks: the 10 heaviest and the 10 lightest

// A range of code and the module that owns it.
struct CodePiece {
    AddressSpan range;
    size_t owner;
};

// The code of `modules` by address, for moduleHits.
std::vector<CodePiece> modulePieces(const std::vector<CodeModule>& modules);

// The hits of each of `modules` (`pieces` from modulePieces) in the profile's bins, as buildReport
// attributes them (a bin over several modules split by the bytes each owns), without building the
// report: many ranks' shares cost one walk over their bins each.
std::vector<double> moduleHits(const Profile& profile, const std::vector<CodePiece>& pieces, size_t modules);

// The imbalance of `files` (the profiles `report` is the merge of, read with `read`) for the top
// modules of `report`, whose rows index `modules`. Nothing when there are fewer than two files; a
// warning when a file can no longer be read.
void addImbalance(Report& report, const std::vector<CodeModule>& modules, const std::vector<std::string>& files,
    const std::function<Result<Profile>(const std::string&)>& read, Messages& messages);

} // namespace ppe::formatter
