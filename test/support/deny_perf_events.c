// deny_perf_events COMMAND ARGS...: runs COMMAND where perf_event_open(2) fails with EACCES, as it
// does in many containers (Docker's default seccomp profile refuses it) and on kernels with
// kernel.perf_event_paranoid = 3. A seccomp filter is inherited by every child and kept across
// exec, so `deny_perf_events ctest ...` runs the whole suite as it would run there, and the
// collector must fall back to its timer mechanisms. Changing perf_event_paranoid instead would
// change the whole machine.
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

static int denyPerfEventOpen(void)
{
    struct sock_filter filter[] = {
        // Another architecture's system call numbers mean other calls: let them through.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PPE_AUDIT_ARCH, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: deny_perf_events COMMAND [ARGS...]\n");
        return 125;
    }
    if (denyPerfEventOpen() != 0) {
        fprintf(stderr, "deny_perf_events: cannot install the seccomp filter: %s\n", strerror(errno));
        return 125;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny_perf_events: %s: %s\n", argv[1], strerror(errno));
    return 127;
}
