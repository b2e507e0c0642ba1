// GDB target descriptions (GDB manual, appendix G "Target Descriptions"): the registers a server
// has, their numbers and sizes, and so where the PC lies in a `g` reply and which number `p`
// takes. Read from the server (qXfer:features:read) or from a user's file (`--tdesc FILE`).
#pragma once

#include "ppe/gdbremote/xml.h"
#include "ppe/support/result.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::gdbremote {

struct RegisterInfo {
    std::string name;
    unsigned bitsize = 0;
    unsigned regnum = 0; // explicit `regnum=`, or one more than the previous register's
    std::string type;
    std::string group;
    std::string feature; // the enclosing <feature name=...>
    std::size_t offset = 0; // bytes into the `g` reply: the sizes of the lower-numbered registers
    std::size_t bytes() const { return (bitsize + 7) / 8; }
};

struct TargetDescription {
    std::string architecture; // <architecture>, e.g. "i386:x86-64", "aarch64", "arc:ARCv2"
    std::string osabi;
    std::vector<RegisterInfo> registers; // sorted by regnum
    std::vector<std::string> documents; // every document read, in order (the root first)

    const RegisterInfo* find(std::string_view name) const;
    // The program counter, found by name: "pc" (aarch64, riscv, ARC, most), "rip" (amd64),
    // "eip" (i386). Never by number: OpenOCD's ARC has it at 64, the Synopsys QEMU at 36.
    const RegisterInfo* pc() const;
    // The size of a `g` reply carrying every described register.
    std::size_t registerBytes() const;
};

// Fetches one document of the description by its name ("target.xml", an xi:include href).
using DocumentFetcher = std::function<Result<std::string>(const std::string& name)>;

// Reads `root` and, in document order, every xi:include it names (depth and count bounded).
Result<TargetDescription> readTargetDescription(const std::string& root, const DocumentFetcher& fetch);
// `--tdesc FILE`: the same, with includes read relative to the file's directory.
Result<TargetDescription> readTargetDescriptionFile(const std::string& path);

} // namespace ppe::gdbremote
