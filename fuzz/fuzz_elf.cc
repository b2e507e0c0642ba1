// libFuzzer target: ELF files with DWARF (debuginfo through LLVM), written to a temporary file
// because LLVM's object reader maps files by name.
#include "ppe/debuginfo/debug_info.h"

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <string>
#include <unistd.h>

// In the isolated reader's children (PPE_FUZZ_ISOLATE) a fatal signal ends the child, as it does
// under ppeout: the sanitizer's and libFuzzer's handlers, inherited across fork, would report a crash
// inside LLVM 14 there (which costs ppeout the file's DWARF, never the report) as a finding.
// Sanitizer reports of our own code in the children still come out, and fail fuzz/explore.sh.
static void defaultFatalSignals()
{
    for (int s : { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP })
        std::signal(s, SIG_DFL);
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    if (std::getenv("PPE_FUZZ_ISOLATE"))
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
    ppe::debuginfo::Options options;
    options.debugRoots.clear();
    // Fuzzing reads in-process, to find what the child process of loadDebugInfo protects ppeout
    // from; a replay (PPE_FUZZ_ISOLATE set, fuzz/replay.sh) takes ppeout's own path, where a crash
    // inside LLVM costs the file's DWARF, never the report.
    static const bool isolate = std::getenv("PPE_FUZZ_ISOLATE") != nullptr;
    options.isolate = isolate;
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    // And as ppeout reads its image: only the units that hold a (made-up) sampled address.
    options.onlyWanted = true;
    options.wanted = { { uint64_t(size) * 16, uint64_t(size) * 16 + 64 } };
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    // And as ppeout reads a shared object: only the units, and the code without symbols (through
    // .eh_frame_hdr's table), at sampled file offsets (spread over the file, so that some fall in
    // its code); and with its DWARF whole (modules by source file).
    options.wanted.clear();
    options.wantedOffsets.emplace();
    for (size_t offset = 0; offset < size; offset += std::max<size_t>(16, size / 512))
        options.wantedOffsets->push_back(offset);
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    options.onlyWanted = false;
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    return 0;
}
