// `ppe-arc conditions`, `ppe-arc count` and `ppe-arc calls` (counter_commands.cc).
#pragma once

#include "ppe/arc/aux_registers.h"
#include "ppe/arc/pct.h"

#include <atomic>
#include <string>

// argv[1] is "conditions", "count" or "calls"; `stop` is set by SIGINT, SIGTERM and SIGHUP. The exit status.
int counterMain(int argc, char** argv, const std::atomic<bool>& stop);

// Counter 0 of the PCT reached through `aux`, stopped, zeroed and counting `event` (by name); run
// at once when `run`, else left for a trampoline to start (calls --method inject --event).
ppe::Result<ppe::arc::Pct> prepareCounter(ppe::arc::AuxRegisters* aux, const std::string& event, bool run);
