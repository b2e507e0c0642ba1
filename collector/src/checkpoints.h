// The live file's state for a recovery (live_state.h): refreshed by a job of the collector thread
// at start, every 0.5 s and at each checkpoint, whenever the live profile is file-backed.
//
// PPE_SNAPSHOT_SIGNAL: the same snapshot when that signal arrives (a batch system's warning before
// the time limit: sbatch --signal=B:USR2@120), and the program carries on.
//
// PPE_CHECKPOINT: every N seconds a snapshot of the profile so far (status "checkpoint"),
// renamed over the previous one, and the live file pushed to disk, so that even a node crash loses
// at most one interval. Written by a job of the collector thread (service_thread.h), never in a
// signal handler on a sampled thread, with its own scratch memory (never the exit path's).
#pragma once

namespace ppe {

// Starts the live file's state job and the checkpoints that g_ppe.config asks for (none when
// PPE_CHECKPOINT is unset), on the collector thread. Returns
// false and sets *why when they cannot run (the profile is still written at the end). Not
// signal-safe.
bool startCheckpoints(const char** why);

// In a forked child: its own collector thread, and no checkpoint of the parent's left under way.
// Returns false and sets *why when they cannot run. Not signal-safe (atfork child handler).
bool restartCheckpointsInChild(const char** why);

// Asks for the live file's mappings to be refreshed now (an object was unloaded). Safe to call
// from a signal handler.
void liveMappingsChanged();

// Asks for the live file's usage record (and mappings) to be taken again now: sampling has just
// started, and a recovery reads the time after the record as running time only when the record
// says it ran. Safe to call from a signal handler.
void refreshLiveStateNow();

// Asks for a checkpoint now (PPE_SNAPSHOT_SIGNAL), on the collector thread; nothing when there is
// no checkpoint job. One already being written is not repeated. Safe to call from a signal handler.
void requestCheckpoint();

// Stops the checkpoints and waits (at most about 2 s) for one being committed, so that it cannot
// land after the final profile; from then on the caller owns the output name. Safe to call from a
// signal handler.
void endCheckpoints();

} // namespace ppe
