// Issue 35: a sampler of fixed period keeps its phase in a program loop of the same period (a loop
// of one interval, 70:30 in truth, read anywhere from 58:42 to 76:24 from run to run, each time with
// an error of about one point). The perf-ring events therefore change their period now and then,
// each to a rate drawn above the asked one, so that no loop stays in phase with the samples, and the
// drain thins their samples back to the asked rate. (Rates drawn either side of the asked one and
// balanced over the run kept the mean rate, but not each program phase's: a phase as long as a few
// stretches read up to 40 % off, far outside its error.) Pure arithmetic and raw system calls:
// safe on any thread.
#pragma once

#include <cstdint>
#include <sys/types.h>

namespace ppe {

// A thread's varied rates: a position along the golden-ratio sequence, from a random start. All
// zero (in .bss: libppe's state tables have no non-zero initialiser) is a valid start; seedDither
// spreads starts.
struct DitherState {
    uint32_t position = 0;
};

// The start of sequence `index`, from a random number the caller drew once.
DitherState seedDither(uint32_t random, int index);

// The CPU time of thread `tid` of this process (its kernel CPU clock), 0 when it has ended.
uint64_t threadCpuNs(pid_t tid);

// Rates are kept as their excess over the asked one, in 1024ths of it (0: the asked rate).
constexpr uint32_t kRateScale = 1024;

// The next stretch's rate: 1 + d times the asked one, d from 1/16 to 1/2 along a golden-ratio
// sequence (returned as d x kRateScale). Always above the asked rate, so that thinning
// (keepVariedSample) can bring every stretch back to it exactly, whatever CPU time the stretch got:
// a rate below could not be made up. No stretch samples at the asked interval itself, the one period
// a program's loop most likely matches (a loop timed to the same rate): within a stretch of about a
// hundred samples its phase drifts through such a loop at least six times. A loop whose period
// matches one stretch's stays in phase for that stretch: the wider the range, the fewer such
// stretches.
uint32_t nextDitheredExcess(DitherState& state);

// The period of a rate `excess` above the asked one (period intervalNs).
uint64_t periodWithExcess(uint64_t intervalNs, uint32_t excess);

// Thinning: a sample taken at a rate `excess` above the asked one is kept with probability
// 1 / (1 + excess / kRateScale), so that every stretch counts at the asked rate on average, whatever
// its length and whatever the program did in it. Weighting by the period instead would need
// fractional counts; thinning keeps the histogram's counts whole and their errors binomial.
bool keepVariedSample(uint32_t excess, uint64_t& random);

// The excess of a sample's own period (PERF_SAMPLE_PERIOD of an inherited event) over the asked
// rate, in kRateScale-ths (0 for a period at or above the asked one): keepVariedSample's argument.
uint32_t excessOfPeriod(uint64_t intervalNs, uint64_t periodNs);

// xorshift64: the next of a sequence whose state is never 0; randomSeed starts one (getrandom, or
// the ids when it fails).
uint64_t nextRandom(uint64_t& state);
uint64_t randomSeed(pid_t pid, pid_t tid);

// A thread inherits the period its creator's events have at that moment and keeps it for its life
// (the kernel gives no handle on an inherited event): a pool of threads created during a stretch
// at 1.2 times the asked rate would take 1.2 times the samples their CPU time is worth, all of
// them. So every thread must be created at the asked period: the periods change only where thread
// creation goes through libppe.so's pthread_create and fork (allowPeriodChanges, said once they
// are in place), and never while one is under way. Lock-free; the two sides exclude each other
// with sequentially consistent counters (each raises its own, then looks at the other's).
void allowPeriodChanges();
// On the collector thread: true when the periods may change now (endPeriodChange after).
bool beginPeriodChange();
void endPeriodChange();
// On a thread about to create a thread or process: waits for a change under way (a few system
// calls), and keeps further ones off until releasePeriodChanges. False (and nothing held) when the
// caller is creating the collector's own thread (markCollectorCreation): its samples are dropped,
// its period does not matter, and putting the asked periods back for it would give the program a
// first stretch at the asked one.
bool holdPeriodChanges();
void releasePeriodChanges();
// Around the collector thread's pthread_create (service_thread.cc), on the creating thread.
void markCollectorCreation(bool on);

} // namespace ppe
