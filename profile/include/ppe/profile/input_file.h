// Reading what a user names, bounded (docs/security.md, "Inputs"): a file that is not regular (a
// FIFO, a device, a socket) is read only when the user named it directly, never when a directory
// or a pattern found it; no read waits forever (a FIFO or device that gives nothing for
// kInputIdleSeconds is an error); and no input gives more bytes, or longer lines, than its reader's
// cap, each refused with a one-line error naming the file, the line and the limit.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <string>

namespace ppe {

// How an input was named: on the command line, or found in a directory or by a pattern.
enum class InputOrigin { Named, Found };

inline constexpr int kInputIdleSeconds = 10;

class InputFile {
public:
    // Opens without blocking (O_NONBLOCK: a FIFO without a writer does not hang the open). A file
    // that is not regular is refused unless `origin` is Named. `what` names the input in the error
    // when it cannot be opened ("cannot open linker map: ..."; none: "cannot open for reading: ...").
    static Result<InputFile> open(const std::string& path, InputOrigin origin, const char* what = nullptr);
    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&&) = delete;
    ~InputFile();

    // Up to `size` bytes into `buffer`; 0 at the end. A FIFO or device that gives nothing for
    // kInputIdleSeconds is an error.
    Result<size_t> read(char* buffer, size_t size);
    const std::string& path() const { return m_path; }
    bool regular() const { return m_regular; }
    uint64_t size() const { return m_size; } // of a regular file when it was opened

private:
    InputFile(int fd, std::string path, bool regular, uint64_t size);
    bool waitForData();

    int m_fd;
    std::string m_path;
    bool m_regular;
    uint64_t m_size;
};

// The lines of an input, one at a time, each at most `maxLineBytes` (the '\n' not counted), with
// their numbers from 1; the last may lack its '\n'. Memory: one chunk and one line.
class InputLines {
public:
    InputLines(InputFile& file, size_t maxLineBytes);
    // The next line (without its '\n') into `line`: false at the end. `complete` says whether it
    // ended with '\n'. An error names the file and the line; a line too long leaves its first
    // bytes (more than the limit) in `line`.
    Result<bool> next(std::string& line, bool& complete);
    size_t number() const { return m_number; }
    void setMaxLineBytes(size_t maxLineBytes) { m_maxLineBytes = maxLineBytes; }

private:
    bool fill(Error* error);

    InputFile& m_file;
    size_t m_maxLineBytes;
    std::string m_chunk;
    size_t m_at = 0;
    size_t m_number = 0;
    bool m_ended = false;
};

// The whole text of an input, at most `maxBytes`: beyond that an error naming the limit; NUL bytes
// in its first 4 KiB are "binary data", found before more is read. `what` names the kind of input
// in messages ("linker map").
Result<std::string> readInputText(const std::string& path, InputOrigin origin, uint64_t maxBytes, const char* what);

// The first `count` bytes of an input (fewer at its end); "" when it cannot be read.
std::string readInputPrefix(const std::string& path, InputOrigin origin, size_t count);

// "a FIFO", "a character device", ...: what a file of this st_mode is, for messages.
std::string fileKindOf(unsigned mode);

} // namespace ppe
