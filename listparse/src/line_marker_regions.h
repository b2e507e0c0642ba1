// gcc wraps inline assembly in cpp line markers: '# 9 "sections.c" 1' before it, '# 0 "" 2'
// after. With -ah, gas (listing_newline, PR 21977) then lists the assembly lines as lines of the
// C file: the C file's line numbers and text, the assembly's bytes. When it is back in the
// assembler file it prints the assembly lines it skipped, without bytes. So in
//   18    # 9 "sections.c" 1          (the marker, line 18 of the assembler file)
//   10 0000 90   "nop\n\tnop\n\t"     (C line 10, the bytes of assembler line 20)
//   19    .pushsection .text.pushed   (printed late, no bytes)
//   20    nop
// the bytes are listed before the .pushsection that puts them in .text.pushed. This pass moves
// the bytes of such C lines onto the assembler lines they belong to, and marks the C lines
// `logical`. Where gas did not print the assembler lines again (it read a pipe), the lines are
// left as they are.
#pragma once

#include "listing_line.h"

#include <vector>

namespace ppe::listparse {

void resolveLineMarkerRegions(std::vector<ListingLine>& lines);

} // namespace ppe::listparse
