// The profile ppe-arc fills: core's record, histogram and writer (the counting, bin-width and
// category rules are the collector's), plus the records only a remote sampler has: the server,
// how it was sampled, and the intrusion (docs/ppe-format.md, "Remote sampling").
#pragma once

#include "ppe/arc/elf_image.h"
#include "ppe/arc/libraries.h"
#include "ppe/arc/sampler.h"
#include "ppe/core/histogram.h"

#include <memory>
#include <string>
#include <vector>

namespace ppe::arc {

// What the .ppe says of the remote side.
struct RemoteRun {
    std::string producer; // "ppe-arc 0.1.0"
    std::string server; // HOST:PORT, and the --spawn'ed command's program when there is one
    std::string target; // the description's architecture ("arc:ARCv2")
    std::string osabi; // the description's <osabi>, "" if none
    std::string pc; // "pc (regnum 36) read by p"
    std::string interrupt; // "0x03", "SIGINT to the server process"
    std::string mode = "halt-and-read";
    std::vector<std::string> command; // ppe-arc's own command line
    uint64_t pid = 0; // the target's process when the server names it
    int64_t startTime = 0;
};

class RemoteProfile {
public:
    // A histogram over `elf`'s executable segments loaded at `loadBias`, its bins fitting
    // `budgetBytes`; `interval` in 100 ns units.
    static Result<RemoteProfile> create(
        const ElfImage& elf, uint64_t loadBias, uint64_t interval, uint64_t budgetBytes);

    void add(uint64_t pc) { recordSample(m_histogram, pc, 1); }
    const ProfileRecord& record() const { return *m_record; }
    uint64_t imageStart() const { return m_histogram.imageStart; } // run-time extent of the ELF's segments
    uint64_t imageEnd() const { return m_histogram.imageEnd; }

    // The .ppe text: the run's figures, PCs outside the image attributed to `libraries`.
    std::string text(const RemoteRun& run, const SamplingResult& result, const std::vector<Library>& libraries);

private:
    RemoteProfile() = default;

    std::unique_ptr<ProfileRecord> m_record;
    std::vector<uint32_t> m_bins;
    std::vector<PcSlot> m_pcs;
    Histogram m_histogram;
};

// The remote-* and intrusion-* records (docs/ppe-format.md), one per line.
std::string remoteRecords(const RemoteRun& run, const SamplingResult& result);

} // namespace ppe::arc
