// `ppe-arc calls --method inject` (inject_command.cc): inclusive call counts by code injection
// (injection.h), from the command line of `calls`.
#pragma once

#include "control_commands.h"

#include <atomic>
#include <string>

struct InjectRequest {
    std::string elf, functions, scratch; // --scratch SYMBOL or ADDR:SIZE
    double durationSeconds = 0;
    unsigned capacity = 64; // --depth: saved returns per function
    bool pct = false; // --action pct: the trampolines also start and stop the PCT (a core that lets the program)
};

// The exit status; the table on standard output, a refusal as one line on standard error.
int injectCalls(Attachment& a, const InjectRequest& r, const std::atomic<bool>& stop);
