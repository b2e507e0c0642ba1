// libFuzzer target: ELF files with DWARF (debuginfo through LLVM), written to a temporary file
// because LLVM's object reader maps files by name.
#include "ppe/debuginfo/debug_info.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

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
    options.isolate = false; // find what the child process of loadDebugInfo protects ppeout from
    (void)ppe::debuginfo::loadDebugInfo(path, options);
    return 0;
}
