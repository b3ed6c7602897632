#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing `tusk sweep --backend slurm` for real.
#
#   scripts/slurm-test-cluster.sh start    install slurm-wlm and munge if missing (Debian 12,
#                                          as root), then start munged, slurmctld and slurmd
#   scripts/slurm-test-cluster.sh env      print `export SLURM_CONF=...` for the clients
#   scripts/slurm-test-cluster.sh status   sinfo of the test cluster
#   scripts/slurm-test-cluster.sh stop     stop the three daemons and remove the state
#
# Everything lives in one directory, $TUSK_SLURM_DIR (default /tmp/tusk-slurm-test): the
# slurm.conf, a munge key made for it, the spool and state directories, pid and log files.
# Nothing in /etc is changed and no system service is enabled; the daemons use their own
# ports (16817, 16818) and munge socket, so a real Slurm on the machine is left alone.
# The clients (sbatch, squeue, sinfo, scancel) find the cluster through SLURM_CONF.
#
# The daemons run as root (SlurmUser=root): the test cluster is for tests on a throwaway machine
# or CI, not for sharing. Exit status of `start`: 0 running; 3 cannot run here (not root, or
# the packages cannot be installed), with the reason on stderr; 1 a daemon did not come up
# (its log is printed).
set -euo pipefail

DIR=${TUSK_SLURM_DIR:-/tmp/tusk-slurm-test}
CONF=$DIR/slurm.conf
NODE=$(hostname -s)
CTLD_PORT=16817
SLURMD_PORT=16818

cannot() {
  echo "slurm-test-cluster: cannot start a Slurm test cluster here: $*" >&2
  exit 3
}

install_packages() {
  local missing=()
  for p in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "slurm-test-cluster: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # policy-rc.d-less machines with systemd would start the packaged services: they stay
  # unconfigured (no /etc/slurm/slurm.conf) and fail harmlessly; this cluster does not use them.
  { apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; } \
    >&2 || cannot "apt-get install ${missing[*]} failed"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop() {
  # Only the daemons this script started, by the pids they wrote.
  for name in slurmd slurmctld munged; do
    local pf=$DIR/$name.pid
    if pid_alive "$pf"; then
      local pid
      pid=$(cat "$pf")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$DIR"
}

write_conf() {
  local cpus mem_mb
  cpus=$(nproc)
  mem_mb=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
  cat > "$CONF" <<EOF
# Written by tusk's scripts/slurm-test-cluster.sh: one node, this machine.
ClusterName=tusk-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
# Schedule pending jobs (array tasks) every 0.1 s, not every 2 s: tests wait less.
SchedulerParameters=sched_min_interval=100000,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  [ "$(id -u)" -eq 0 ] || cannot "it needs root (the daemons run as root); run as root or skip the Slurm test"
  command -v apt-get >/dev/null || cannot "no apt-get (Debian's slurm-wlm and munge are expected)"
  install_packages
  if pid_alive "$DIR/slurmctld.pid" && pid_alive "$DIR/slurmd.pid" && pid_alive "$DIR/munged.pid"; then
    echo "slurm-test-cluster: already running ($CONF)" >&2
    return 0
  fi
  stop
  mkdir -p "$DIR/state" "$DIR/spool"
  chmod 0755 "$DIR"
  # A key for this cluster only (munge refuses keys readable by others).
  dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
  chmod 0600 "$DIR/munge.key"
  munged --force --socket="$DIR/munge.socket" --key-file="$DIR/munge.key" \
    --pid-file="$DIR/munged.pid" --log-file="$DIR/munged.log" --seed-file="$DIR/munged.seed" \
    || { cat "$DIR/munged.log" >&2 2>/dev/null; echo "slurm-test-cluster: munged did not start" >&2; exit 1; }
  write_conf
  slurmctld -c -f "$CONF" || { cat "$DIR/slurmctld.log" >&2; exit 1; }
  slurmd -f "$CONF" -N "$NODE" || { cat "$DIR/slurmd.log" >&2; exit 1; }
  export SLURM_CONF=$CONF
  for _ in $(seq 150); do
    if sinfo -h -N -o "%T" 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "slurm-test-cluster: running: node $NODE, $(nproc) CPUs, partition debug ($CONF)" >&2
      return 0
    fi
    sleep 0.2
  done
  echo "slurm-test-cluster: the node did not become idle in 30 s" >&2
  sinfo -N -l >&2 || true
  tail -20 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2 || true
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  status) SLURM_CONF=$CONF sinfo -N -l ;;
  *) echo "usage: $0 start|stop|env|status" >&2; exit 2 ;;
esac
