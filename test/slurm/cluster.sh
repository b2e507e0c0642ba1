#!/usr/bin/env bash
# A one-node Slurm cluster in a scratch folder, for the batch-system tests (and for trying ppe under
# a real scheduler by hand):
#   test/slurm/cluster.sh start DIR   starts munged, slurmctld and slurmd with every file in DIR,
#                                     waits until the node is idle, and prints `export SLURM_CONF=...`
#   test/slurm/cluster.sh stop DIR    stops what `start` started, by the pids it recorded
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and munge
# (scripts/install-deps.sh). When the cluster cannot start, `start` writes the reason to DIR/skip
# and exits 0: the tests then skip with it. Memory limits are enforced through the memory cgroup
# (task/cgroup) where the machine has one; DIR/features says whether it does.
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

stop() {
  local f pid
  # Jobs first: their slurmstepd would outlive slurmd.
  if [ -f "$dir/slurmctld.pid" ] && [ -f "$dir/slurm.conf" ]; then
    SLURM_CONF="$dir/slurm.conf" scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 100); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h -t RUNNING,COMPLETING,PENDING 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
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
}

memory_cgroup() {
  if [ -d /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/memory ]; then
    echo v1
  elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null && [ -w /sys/fs/cgroup ]; then
    echo v2
  fi
}

write_config() {
  local host cpus memory cgroup task select
  host=$(hostname -s)
  cpus=8
  memory=$(awk '/MemTotal/ { print int($2 / 1024) - 1024 }' /proc/meminfo)
  cgroup=$(memory_cgroup)
  task=task/none
  select=CR_Core
  if [ -n "$cgroup" ]; then
    task=task/cgroup
    select=CR_Core_Memory
    printf 'CgroupPlugin=cgroup/%s\nCgroupMountpoint=/sys/fs/cgroup\nConstrainRAMSpace=yes\nConstrainSwapSpace=yes\nAllowedSwapSpace=0\n' \
      "$cgroup" >"$dir/cgroup.conf"
    echo "memory-cgroup $cgroup" >"$dir/features"
  else
    echo "no-memory-cgroup" >"$dir/features"
  fi
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

start() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  stop
  rm -rf "$dir/state" "$dir/spool" "$dir/skip"
  mkdir -p "$dir/state" "$dir/spool"
  [ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start jobs"
  for tool in munged slurmctld slurmd sinfo srun sbatch scancel; do
    command -v "$tool" >/dev/null || skip "no $tool (Debian: slurm-wlm munge; scripts/install-deps.sh)"
  done
  write_config
  start_munge
  slurmctld -f "$dir/slurm.conf" || skip "slurmctld did not start (see $dir/slurmctld.log)"
  slurmd -f "$dir/slurm.conf" || skip "slurmd did not start (see $dir/slurmd.log)"
  local state=""
  for _ in $(seq 1 300); do
    state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.1
  done
  [ "$state" = idle ] || skip "the node did not become idle in 30 s (state '$state'; see $dir/slurmd.log)"
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
