// The perf events both perf mechanisms open (sampler.h: perf-task-clock, one per thread;
// ring_sampler.h: perf-ring, one per CPU): the same task clock, each with its own delivery.
#pragma once

#include <cstdint>
#include <linux/perf_event.h>
#include <sys/types.h>

namespace ppe {

// What both count: the user-mode CPU time (task clock) of the calling process's threads, those
// created later included, one sample per `periodNs`; disabled until enabled.
perf_event_attr taskClockAttr(uint64_t periodNs);

// perf_event_open(attr, tid, cpu), close-on-exec, its descriptor moved to a number at or above 512,
// out of the way of programs that assume small numbers; -1 with errno on failure. Signal-safe.
int openPerfEvent(perf_event_attr& attr, pid_t tid, int cpu);

} // namespace ppe
