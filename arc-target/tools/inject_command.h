// `ppe-arc calls --method inject` (inject_command.cc): inclusive call counts by code injection
// (injection.h), from the command line of `calls`.
#pragma once

#include "control_commands.h"

#include "ppe/arc/aux_registers.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

struct InjectRequest {
    std::string elf, functions, scratch; // --scratch SYMBOL or ADDR:SIZE
    double durationSeconds = 0;
    unsigned capacity = 64; // --depth: saved returns per function
    // --event: counter 0 counts it, started and stopped by the trampoline of the one --function at
    // its outermost entry and return (a core whose program may write PCT_CONTROL), through `aux`.
    std::string event;
    ppe::arc::AuxRegisters* aux = nullptr;
};

// --scratch or --aux-stub `text`: ADDR:SIZE (run-time), or SYMBOL, a data object of the ELF file
// `elf` (at the load bias). Its address and size.
ppe::Result<std::pair<uint32_t, uint32_t>> memoryRegion(
    const std::string& option, const std::string& text, const std::string& elf, uint64_t bias);

// The exit status; the table on standard output, a refusal as one line on standard error.
int injectCalls(Attachment& a, const InjectRequest& r, const std::atomic<bool>& stop);
