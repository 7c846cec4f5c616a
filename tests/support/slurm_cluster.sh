#!/usr/bin/env bash
# A one-node Slurm cluster for a test, as plain processes (no systemd): munged (shared, started when none answers),
# slurmctld and slurmd with a slurm.conf for this host written into DIR, on free ports. Run as root (slurmd needs
# it to start tasks as their user). packaging/install-deps.sh installs slurmctld, slurmd, slurm-client and munge.
#
#   slurm_cluster.sh start DIR   prints "SLURM_CONF=DIR/slurm.conf" once `sinfo` shows the node idle
#   slurm_cluster.sh stop DIR    stops the two daemons (munged stays for other tests)
set -euo pipefail

command=${1:?start or stop}
dir=${2:?a folder for the cluster}
conf="$dir/slurm.conf"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop() {
  for daemon in slurmd slurmctld; do
    if [ -f "$dir/$daemon.pid" ]; then
      kill "$(cat "$dir/$daemon.pid")" 2> /dev/null || true
    fi
  done
  for _ in $(seq 50); do
    alive=0
    for daemon in slurmd slurmctld; do
      [ -f "$dir/$daemon.pid" ] && kill -0 "$(cat "$dir/$daemon.pid")" 2> /dev/null && alive=1
    done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for daemon in slurmd slurmctld; do
    [ -f "$dir/$daemon.pid" ] && kill -9 "$(cat "$dir/$daemon.pid")" 2> /dev/null || true
  done
}

start_munge() {
  if munge -n 2> /dev/null | unmunge > /dev/null 2>&1; then return 0; fi
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
  chmod 0755 /run/munge
  runuser -u munge -- munged
  for _ in $(seq 50); do
    munge -n 2> /dev/null | unmunge > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "slurm_cluster.sh: munged does not answer" >&2
  return 1
}

case "$command" in
stop) stop ;;
start)
  for tool in slurmctld slurmd sinfo munged; do
    command -v "$tool" > /dev/null || [ -x "/usr/sbin/$tool" ] || {
      echo "slurm_cluster.sh: $tool is missing (packaging/install-deps.sh installs it)" >&2
      exit 3
    }
  done
  [ "$(id -u)" = 0 ] || { echo "slurm_cluster.sh: needs root (slurmd starts tasks as their user)" >&2; exit 3; }
  start_munge
  mkdir -p "$dir/state" "$dir/spool"
  host=$(hostname)
  # The node as slurmd finds it (sockets, cores, threads, memory): a node line that differs from what it registers
  # with can keep jobs waiting ("Requested partition configuration not available now").
  node=$(/usr/sbin/slurmd -C 2> /dev/null | head -1)
  [ -n "$node" ] || node="NodeName=$host CPUs=$(nproc)"
  cat > "$conf" << CONF
ClusterName=pitwalltest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=5
$node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF="$conf"
  /usr/sbin/slurmctld
  /usr/sbin/slurmd
  for _ in $(seq 300); do
    sinfo -h -o %t 2> /dev/null | grep -qx idle && break
    sleep 0.1
  done
  # Ready when a step runs: one task per CPU (and more with -O), given at most 20 s each try.
  for _ in 1 2 3; do
    if timeout 20 srun -n "$(nproc)" -O true > /dev/null 2>&1; then
      echo "SLURM_CONF=$conf"
      exit 0
    fi
  done
  echo "slurm_cluster.sh: the node did not become idle; slurmctld.log and slurmd.log in $dir say why" >&2
  tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  stop
  exit 1
  ;;
*) echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
