// libFuzzer target: ELF files with DWARF, read as ppeout reads them (debuginfo/), written to a
// temporary file because LLVM's object reader maps files by name.
//
// ppeout reads a file's DWARF and .eh_frame only in its isolated reader, a child process
// (isolated_reader.cc), because LLVM 14 crashes on some damaged input: such a crash costs the file's
// DWARF (symbols only, with a warning), never the report. So each read goes as ppeout's goes,
// through the child, and a crash in there is no finding; what ppeout runs in its own process is
// fuzzed in this one: the build id, the symbols-only read when the child failed, the parent's side
// of the child's result, and the disassembler (--asm). A read the child survived is then repeated
// here, in-process, for its coverage (libFuzzer sees none of a child's): what the child survived
// cannot crash here, and a sanitizer report of our own code, in either process, is a finding.
// PPE_FUZZ_ELF_CONTAINED=DIR keeps in DIR each input on which the child failed, for the tests of
// the isolation (test/data/debuginfo/README.md).
#include "ppe/debuginfo/debug_info.h"
#include "ppe/debuginfo/disassembly.h"

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// In the isolated reader's children a fatal signal ends the child, as it does under ppeout: the
// sanitizer's and libFuzzer's handlers, inherited across fork, would report a crash inside LLVM 14
// there as a finding. Sanitizer reports of our own code in the children still come out (libFuzzer
// keeps the input), and fail fuzz/explore.sh.
void defaultFatalSignals()
{
    for (int s : { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP })
        std::signal(s, SIG_DFL);
}

bool childFailed(const ppe::Result<ppe::debuginfo::DebugInfo>& info)
{
    return info && std::any_of(info->warnings.begin(), info->warnings.end(), [](const std::string& w) {
        return w.find(": reading its DWARF failed") != std::string::npos;
    });
}

void keepContained(const uint8_t* data, size_t size)
{
    static const char* dir = std::getenv("PPE_FUZZ_ELF_CONTAINED");
    if (!dir)
        return;
    const std::string path = std::string(dir) + "/contained-" + std::to_string(getpid()) + "-" + std::to_string(size)
        + "-" + std::to_string(std::hash<std::string>()(std::string(data, data + size)));
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
}

// One read as ppeout makes it (through the child), then in-process if the child survived it.
ppe::Result<ppe::debuginfo::DebugInfo> read(
    const std::string& path, ppe::debuginfo::Options options, const uint8_t* data, size_t size)
{
    options.isolate = true;
    auto isolated = ppe::debuginfo::loadDebugInfo(path, options);
    if (childFailed(isolated)) {
        keepContained(data, size);
        return isolated;
    }
    options.isolate = false;
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    return isolated;
}

// ppeout --asm: the code of the functions found, disassembled in ppeout's own process.
void disassemble(const std::string& path, const ppe::Result<ppe::debuginfo::DebugInfo>& info)
{
    if (!info)
        return;
    std::vector<ppe::debuginfo::AddressRange> ranges;
    for (const ppe::debuginfo::Function& f : info->functions) {
        for (const ppe::debuginfo::AddressRange& r : f.ranges)
            ranges.push_back({ r.start, std::min(r.end, r.start + 256) });
    }
    std::sort(ranges.begin(), ranges.end(), [](auto& a, auto& b) { return a.start < b.start; });
    ranges.resize(std::min<size_t>(ranges.size(), 64));
    (void)ppe::debuginfo::disassemble(path, ranges);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    pthread_atfork(nullptr, nullptr, defaultFatalSignals);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path = "/tmp/ppe-fuzz-elf." + std::to_string(getpid());
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    (void)ppe::debuginfo::readBuildId(path);
    ppe::debuginfo::Options options;
    options.debugRoots.clear();
    read(path, options, data, size);
    // As ppeout reads its image: only the units that hold a (made-up) sampled address.
    options.onlyWanted = true;
    options.wanted = { { uint64_t(size) * 16, uint64_t(size) * 16 + 64 } };
    read(path, options, data, size);
    // As ppeout reads a shared object: only the units, and the code without symbols (through
    // .eh_frame_hdr's table), at sampled file offsets (spread over the file, so that some fall in
    // its code); and with its DWARF whole (modules by source file).
    options.wanted.clear();
    options.wantedOffsets.emplace();
    for (size_t offset = 0; offset < size; offset += std::max<size_t>(16, size / 512))
        options.wantedOffsets->push_back(offset);
    read(path, options, data, size);
    options.onlyWanted = false;
    disassemble(path, read(path, options, data, size));
    return 0;
}
