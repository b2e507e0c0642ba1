#!/usr/bin/env bash
# A one-node Slurm cluster in a scratch folder, for the batch-system tests (and for trying ppe under
# a real scheduler by hand):
#   test/slurm/cluster.sh start DIR   starts munged, slurmctld and slurmd with every file in DIR,
#                                     waits until the node is idle, and prints `export SLURM_CONF=...`
#   test/slurm/cluster.sh stop DIR    stops what `start` started, by the pids it recorded, and any
#                                     slurmstepd of its jobs still there, with their processes
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and munge
# (scripts/install-deps.sh). When the cluster cannot start, `start` writes the reason to DIR/skip
# and exits 0: the tests then skip with it. Memory limits are enforced through the memory cgroup
# (task/cgroup) where the machine has a writable one, v1 or v2 (v2 without systemd: IgnoreSystemd);
# where slurmd cannot bring the node up with it, or a job cannot run under it, the cluster starts
# again with task/none. DIR/features says which, and why.
#
# The node says it has 8 CPUs whatever the machine has (SlurmdParameters=config_overrides), so that
# an `srun -n 4` runs beside other test jobs on a 2-core machine instead of waiting for them.
set -euo pipefail

action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

skip() {
  echo "$*" >"$dir/skip"
  echo "slurm fixture: not started: $*" >&2
  exit 0
}

free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo 0
}

# "PID PPID" for every process, from /proc.
parents() {
  local stat line
  for stat in /proc/[0-9]*/stat; do
    read -r line <"$stat" 2>/dev/null || continue
    line=${line##*) }
    line=${line#* }
    echo "${stat//[!0-9]/} ${line%% *}"
  done
}

# The given pids and every process below them (children, theirs, ...).
with_descendants() {
  parents | awk -v roots="$*" '
    { parent[$1] = $2 }
    END {
      n = split(roots, given, " ")
      for (i = 1; i <= n; ++i) keep[given[i]] = 1
      do {
        grown = 0
        for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grown = 1 }
      } while (grown)
      for (p in keep) print p
    }'
}

# This cluster's slurmstepd processes: the ones below its slurmd ($1), and the ones that are not (a
# slurmstepd is forked by a child of slurmd that exits at once, and is left to init) but hold one of
# DIR's files open (slurmstepd logs to DIR/slurmd.log).
own_stepds() {
  local pid fd
  {
    if [ -n "${1:-}" ]; then with_descendants "$1"; fi
    for pid in /proc/[0-9]*; do
      [ "$(cat "$pid/comm" 2>/dev/null)" = slurmstepd ] || continue
      for fd in "$pid"/fd/*; do
        case "$(readlink "$fd" 2>/dev/null)" in
        "$dir"/*)
          echo "${pid#/proc/}"
          break
          ;;
        esac
      done
    done
  } | sort -u | while read -r pid; do
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmstepd ]; then echo "$pid"; fi
  done
}

# Ends the cluster's slurmstepd processes still there ($1: slurmd's pid, if it is still running) and
# everything below them (the jobs), by pid: TERM, then KILL two seconds later.
end_stepds() {
  local -a stepds pids
  local pid
  mapfile -t stepds < <(own_stepds "${1:-}")
  [ "${#stepds[@]}" -gt 0 ] || return 0
  mapfile -t pids < <(with_descendants "${stepds[@]}")
  echo "slurm fixture: ending slurmstepd ${stepds[*]} and what they run (pids ${pids[*]})" >&2
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 20); do
    for pid in "${pids[@]}"; do
      if kill -0 "$pid" 2>/dev/null; then
        sleep 0.1
        continue 2
      fi
    done
    return 0
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
}

stop() {
  local f pid slurmd=""
  # Jobs first: their slurmstepd would outlive slurmd.
  if [ -f "$dir/slurmctld.pid" ] && [ -f "$dir/slurm.conf" ]; then
    SLURM_CONF="$dir/slurm.conf" scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 100); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h -t RUNNING,COMPLETING,PENDING 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  if [ -f "$dir/slurmd.pid" ]; then slurmd=$(cat "$dir/slurmd.pid"); fi
  end_stepds "$slurmd"
  for f in slurmd slurmctld munged; do
    [ -f "$dir/$f.pid" ] || continue
    pid=$(cat "$dir/$f.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$f.pid"
  done
  end_stepds
}

# The version of the memory cgroup jobs can be confined with (v1 or v2), or nothing and the reason
# in DIR/cgroup.why: the controller must be mounted, and a folder creatable in it (root may not, in
# a container).
memory_cgroup() {
  local root version
  if [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
    root=/sys/fs/cgroup/memory version=v1
  elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    root=/sys/fs/cgroup version=v2
  else
    echo "no memory cgroup controller mounted at /sys/fs/cgroup" >"$dir/cgroup.why"
    return 0
  fi
  if mkdir "$root/ppe-probe.$$" 2>/dev/null; then
    rmdir "$root/ppe-probe.$$"
    echo "$version"
  else
    echo "the memory cgroup ($version, $root) is not writable here" >"$dir/cgroup.why"
  fi
}

# cgroup.conf for task/cgroup under cgroup v1 or v2. Under v2 without systemd (a container, CI),
# IgnoreSystemd=yes makes slurmd build its own cgroup tree instead of asking systemd over dbus, and
# CgroupAutomount=yes (which Slurm 22.05 takes under v2 together with IgnoreSystemd) enables the
# memory controller in it.
write_cgroup_conf() {
  {
    echo "CgroupPlugin=cgroup/$1"
    if [ "$1" = v2 ]; then echo "IgnoreSystemd=yes"; fi
    echo "CgroupAutomount=yes"
    echo "CgroupMountpoint=/sys/fs/cgroup"
    printf 'ConstrainRAMSpace=yes\nConstrainSwapSpace=yes\nAllowedSwapSpace=0\n'
  } >"$dir/cgroup.conf"
}

# slurm.conf with the task plugin $1: task/cgroup (memory enforced) or task/none.
write_config() {
  local host cpus memory task=$1 select=CR_Core
  host=$(hostname -s)
  cpus=8
  memory=$(awk '/MemTotal/ { print int($2 / 1024) - 1024 }' /proc/meminfo)
  if [ "$task" = task/cgroup ]; then select=CR_Core_Memory; fi
  cat >"$dir/slurm.conf" <<EOF
ClusterName=ppetest
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=$task
SelectType=select/cons_tres
SelectTypeParameters=$select
DefMemPerCPU=512
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
KillWait=5
InactiveLimit=0
MinJobAge=300
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=ppe Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
}

start_munge() {
  mkdir -p "$dir/munge"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 2>/dev/null
  chmod 400 "$dir/munge/key"
  munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munge/log" --seed-file="$dir/munge/seed" || skip "munged did not start (see $dir/munge/log)"
}

# Starts slurmctld and slurmd and waits until the node is idle, at most $1 seconds; 1, with the
# reason in DIR/daemons.why, when slurmd is gone or the node is not idle by then.
start_daemons() {
  local state="" pid
  rm -f "$dir/daemons.why"
  if ! slurmctld -f "$dir/slurm.conf"; then
    echo "slurmctld did not start (see $dir/slurmctld.log)" >"$dir/daemons.why"
    return 1
  fi
  if ! slurmd -f "$dir/slurm.conf"; then
    echo "slurmd did not start (see $dir/slurmd.log)" >"$dir/daemons.why"
    return 1
  fi
  for _ in $(seq 1 $(($1 * 10))); do
    state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return 0
    pid=$(cat "$dir/slurmd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "the node did not become idle in $1 s (state '$state'; see $dir/slurmd.log)" >"$dir/daemons.why"
  return 1
}

# 0 when a one-task job step with a memory limit runs (under task/cgroup, its cgroup is made).
job_runs() {
  if SLURM_CONF="$dir/slurm.conf" timeout 30 srun -n 1 -t 1 --mem=64M true >"$dir/probe.out" 2>&1; then
    return 0
  fi
  echo "a job could not run under it (see $dir/probe.out)" >"$dir/daemons.why"
  return 1
}

# The last error slurmd or the probe job said.
last_error() {
  cat "$dir/slurmd.log" "$dir/probe.out" 2>/dev/null | grep -iE 'error|fatal' | tail -1 | cut -c1-200 || true
}

# task/cgroup where the machine has a memory cgroup and Slurm can use it; else task/none, with the
# reason in DIR/features.
start_cluster() {
  local cgroup why
  cgroup=$(memory_cgroup)
  if [ -n "$cgroup" ]; then
    write_cgroup_conf "$cgroup"
    write_config task/cgroup
    if start_daemons 20 && job_runs; then
      echo "memory-cgroup $cgroup" >"$dir/features"
      return
    fi
    why="task/cgroup (cgroup $cgroup) did not work: $(cat "$dir/daemons.why"): $(last_error)"
    echo "$why" >"$dir/cgroup.why"
    echo "slurm fixture: $why; starting again with task/none" >&2
    stop
    rm -rf "$dir/state" "$dir/spool" "$dir/cgroup.conf"
    mkdir -p "$dir/state" "$dir/spool"
    start_munge
  fi
  write_config task/none
  echo "no-memory-cgroup: $(cat "$dir/cgroup.why")" >"$dir/features"
  start_daemons 30 || skip "$(cat "$dir/daemons.why")"
}

start() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  stop
  rm -rf "$dir/state" "$dir/spool" "$dir/skip" "$dir/features" "$dir/cgroup.conf" "$dir/cgroup.why" \
    "$dir/daemons.why" "$dir/probe.out"
  mkdir -p "$dir/state" "$dir/spool"
  [ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start jobs"
  for tool in munged slurmctld slurmd sinfo srun sbatch scancel squeue; do
    command -v "$tool" >/dev/null || skip "no $tool (Debian: slurm-wlm munge; scripts/install-deps.sh)"
  done
  start_munge
  start_cluster
  echo "export SLURM_CONF=$dir/slurm.conf"
}

case "$action" in
start) start ;;
stop)
  dir=$(cd "$dir" 2>/dev/null && pwd) || exit 0
  stop
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
