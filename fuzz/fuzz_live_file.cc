// libFuzzer target: live-file recovery (`ppe --recover`, ppeout on NAME.ppe.PID.live), the input most
// likely to be damaged: what a killed process left. recoverLiveFile reads a file by name, so the
// input is written to a temporary file, then the recovered text is read back as ppeout reads it.
//
// A live file is about 1 MB of which a few KB are not zero (the PC table and the mapping copies are
// sized for the worst case), too big for libFuzzer to mutate well. So the input is the file with
// its zero runs left out (fuzz/live_file_seed.py makes one from a real live file): chunks of
// [u32 zero bytes to skip][u16 length][length bytes], little-endian, up to kMaxBytes. The file is
// then padded with zeros to the size its header claims, when that is larger and within kMaxBytes:
// as the collector's file is (ftruncate), and so that a damaged header, not its size, is what the
// fuzzer varies. A file shorter than its header says is a check of one line (Truncated).
#include "ppe/core/live_file.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr size_t kMaxBytes = size_t(4) << 20;

uint64_t little(const uint8_t* p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
        v |= uint64_t(p[i]) << (8 * i);
    return v;
}

// The live file an input describes (see above).
std::vector<uint8_t> expand(const uint8_t* data, size_t size)
{
    std::vector<uint8_t> file;
    for (size_t at = 0; at + 6 <= size;) {
        const uint64_t gap = little(data + at, 4);
        const size_t length = std::min<size_t>(little(data + at + 4, 2), size - at - 6);
        at += 6;
        if (file.size() + gap + length > kMaxBytes)
            break;
        file.resize(file.size() + gap);
        file.insert(file.end(), data + at, data + at + length);
        at += length;
    }
    ppe::LiveFileHeader h;
    if (file.size() >= sizeof(h)) {
        std::memcpy(&h, file.data(), sizeof(h));
        if (h.fileSize > file.size() && h.fileSize <= kMaxBytes)
            file.resize(h.fileSize);
    }
    return file;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path = "/tmp/ppe-fuzz-live.ppe." + std::to_string(getpid()) + ".live";
    const std::vector<uint8_t> bytes = expand(data, size);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    std::vector<std::string> notes;
    auto text = ppe::recoverLiveFile(path, &notes);
    if (!text)
        return 0;
    // What recovery writes, ppeout must read: a profile it cannot parse is a finding.
    auto profile = ppe::parseProfile(*text, path);
    if (!profile) {
        std::fprintf(stderr, "recovered a profile ppeout cannot read: %s\n", profile.error().str().c_str());
        std::abort();
    }
    return 0;
}
