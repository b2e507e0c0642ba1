// deny_perf_events [--per-cpu] COMMAND ARGS...: runs COMMAND where perf_event_open(2) fails with
// EACCES, as it does in many containers (Docker's default seccomp profile refuses it) and on kernels
// with kernel.perf_event_paranoid = 3. A seccomp filter is inherited by every child and kept across
// exec, so `deny_perf_events ctest ...` runs the whole suite as it would run there, and the
// collector must fall back to its timer mechanisms. Changing perf_event_paranoid instead would
// change the whole machine.
// With --per-cpu only events bound to a CPU (cpu != -1) are refused: a stand-in for a machine
// where perf-ring's per-CPU rings cannot be had (as root, the locked-memory limit that refuses
// them for ordinary users cannot be reached), so the collector must fall back to perf-task-clock.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PPE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PPE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "deny_perf_events: add this architecture's AUDIT_ARCH"
#endif

static int denyPerfEventOpen(int perCpuOnly)
{
    // The low 32 bits of the third argument, the int `cpu` (little-endian: the first word).
    const unsigned cpuWord = offsetof(struct seccomp_data, args) + 2 * sizeof(__u64);
    struct sock_filter filter[] = {
        // Another architecture's system call numbers mean other calls: let them through.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PPE_AUDIT_ARCH, 0, 5),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 3),
        // --per-cpu: an event of any CPU (cpu -1) is let through. Without it, two no-ops.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, cpuWord),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    if (!perCpuOnly) {
        const struct sock_filter nothing = BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
        filter[4] = nothing;
        filter[5] = nothing;
    }
    struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

int main(int argc, char** argv)
{
    const int perCpuOnly = argc > 1 && strcmp(argv[1], "--per-cpu") == 0;
    if (argc < 2 + perCpuOnly) {
        fprintf(stderr, "usage: deny_perf_events [--per-cpu] COMMAND [ARGS...]\n");
        return 125;
    }
    if (denyPerfEventOpen(perCpuOnly) != 0) {
        fprintf(stderr, "deny_perf_events: cannot install the seccomp filter: %s\n", strerror(errno));
        return 125;
    }
    char** command = argv + 1 + perCpuOnly;
    execvp(command[0], command);
    fprintf(stderr, "deny_perf_events: %s: %s\n", command[0], strerror(errno));
    return 127;
}
