// `ppe-arc conditions`, `ppe-arc count` and `ppe-arc calls` (counter_commands.cc).
#pragma once

#include <atomic>

// argv[1] is "conditions", "count" or "calls"; `stop` is set by SIGINT, SIGTERM and SIGHUP. The exit status.
int counterMain(int argc, char** argv, const std::atomic<bool>& stop);
