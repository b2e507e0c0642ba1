// A merge's sum written as a .ppe (`ppeout --merge-out`), so that it can be merged again: a very
// large job is merged node by node (one merge per node, side by side under the batch system),
// then the nodes' parts in one more merge, which gives the sums of a merge of all the files.
#pragma once

#include "ppe/formatter/messages.h"
#include "ppe/profile/profile.h"
#include "ppe/support/result.h"

#include <string>

namespace ppe::formatter {

// The text of a version-1 .ppe (docs/ppe-format.md) holding `sum`: every record the reader takes,
// with the merge's `merged-profiles`, `merged-pids` and `merged-end-reasons`; version 3 with the
// merged call paths, their places named as the blocked places are (image+0x.., OBJECT+0x..). What a profile may
// not hold (profile_reader.h's limits) is folded, with a note: threads beyond the limit into one
// thread line of tid 0, blocked places beyond it into one place of "other calls". Per-rank shares
// are not kept: a merge of merged files compares the files as wholes in its imbalance section.
// An error when the objects or their hits, or the calling contexts, exceed what a profile may hold.
Result<std::string> mergedProfileText(Profile sum, Messages& messages);

} // namespace ppe::formatter
