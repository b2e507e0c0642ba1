// `ppe-arc poke` and `ppe-arc restore` (control_commands.cc).
#pragma once

#include <atomic>
#include <string>

// argv[1] is "poke" or "restore"; `stop` is set by SIGINT, SIGTERM and SIGHUP. The exit status.
int controlMain(int argc, char** argv, const std::atomic<bool>& stop);
// The one-line error on standard error; 1.
int controlFail(const std::string& message);
