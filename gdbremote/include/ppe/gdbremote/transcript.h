// Transcripts of sessions, both directions, timing removed: the fixtures of the client's tests
// (test/data/gdb-remote/). One line per frame, ack or run of stray bytes:
//     > $qSupported:multiprocess+#c1        client to server
//     < +                                   server to client
// Bytes outside printable ASCII, and `\`, are written `\xNN`. Lines starting with `#` are comments.
#pragma once

#include "ppe/support/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace ppe::gdbremote {

struct TranscriptLine {
    char direction = '>'; // '>' client to server, '<' server to client
    std::string bytes;
};

std::string escapeTranscriptBytes(std::string_view bytes);
std::string formatTranscript(const std::vector<TranscriptLine>& lines, const std::vector<std::string>& comments);
Result<std::vector<TranscriptLine>> parseTranscript(std::string_view text, const std::string& name);

} // namespace ppe::gdbremote
