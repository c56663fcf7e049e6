#!/usr/bin/env bash
# Stops the cluster started by slurm-up.sh (slurmd, slurmctld; munged is left running).
set -u
dir=${TSMPI_SLURM_DIR:-/tmp/tsmpi-slurm}
stop() { # pidfile name
  local pid
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null) || return 0
  if [ -n "$pid" ] && grep -q "$2" "/proc/$pid/comm" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do grep -q "^State:.*[RS]" "/proc/$pid/status" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$1"
}
for f in "$dir"/run/slurmd-*.pid; do [ -e "$f" ] && stop "$f" slurmd; done
stop "$dir/run/slurmctld.pid" slurmctld
exit 0
