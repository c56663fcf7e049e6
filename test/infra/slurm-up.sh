#!/usr/bin/env bash
# Starts a SLURM cluster on this machine for the tests (Debian's slurmctld, slurmd, munge; no
# systemd needed: the daemons fork by themselves).
#   bash test/infra/slurm-up.sh [single|multi|hosts]      (default: single)
#   single: one node "localhost" with CPUs=16 (config_overrides), so srun -n 16 needs no flags
#   multi:  four nodes n1..n4 (several slurmd on one machine, MULTIPLE_SLURMD), 16 CPUs each
#   hosts:  a node per test host of test/infra/hosts.sh (run `hosts.sh up N` first): node hK is
#           namespace tsmpi-hK at 198.18.64.K, its slurmd started inside it (nsenter --net, which
#           keeps the real /sys that slurmd needs), slurmctld in the root namespace reached at
#           198.18.64.254; tasks run inside their node's namespace and see only its address
# State lives in $TSMPI_SLURM_DIR (default /tmp/tsmpi-slurm); the daemons listen on ports from
# $TSMPI_SLURM_PORT (default 16817: slurmctld there, slurmd one above, multi-mode slurmd at +100..).
# Idempotent: stops a running cluster of the same directory first. Prints the slurm.conf path; export SLURM_CONF to it (the script also writes
# $TSMPI_SLURM_DIR/env.sh to source).
set -euo pipefail
mode=${1:-single}
dir=${TSMPI_SLURM_DIR:-/tmp/tsmpi-slurm}
port=${TSMPI_SLURM_PORT:-16817}
here=$(cd "$(dirname "$0")" && pwd)

need() { command -v "$1" >/dev/null 2>&1 || { echo "slurm-up: $1 is missing (apt-get install --no-install-recommends slurmctld slurmd slurm-client munge)" >&2; exit 2; }; }
need slurmctld; need slurmd; need srun; need munged

bash "$here/slurm-down.sh" >/dev/null 2>&1 || true
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"

# munge: key from the package's postinst; the daemon runs as the munge user.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [ -f /etc/munge/munge.key ] || { mkdir -p /etc/munge; dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  mkdir -p /run/munge /var/lib/munge /var/log/munge; chown munge:munge /run/munge /var/lib/munge /var/log/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

host=$(hostname -s)
ctld=localhost
if [ "$mode" = hosts ]; then
  names_file=${TSMPI_HOSTS_DIR:-/tmp/tsmpi-hosts}/names
  [ -s "$names_file" ] || { echo "slurm-up: no test hosts ($names_file is missing): run test/infra/hosts.sh up N first" >&2; exit 2; }
  ctld="localhost(198.18.64.254)"
  nodes=""
  names=""
  declare -A namespace_of
  while read -r addr ns; do
    namespace_of[h${ns##*-h}]=$ns
    k=${ns##*-h}
    nodes="$nodes
NodeName=h$k NodeHostname=$host NodeAddr=$addr CPUs=16 State=UNKNOWN"
    names="$names h$k"
  done < "$names_file"
elif [ "$mode" = multi ]; then
  nodes="NodeName=n[1-4] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((port + 101))-$((port + 104))] CPUs=16 State=UNKNOWN"
  names="n1 n2 n3 n4"
else
  nodes="NodeName=localhost NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN"
  names="localhost"
fi
cat > "$dir/slurm.conf" <<CONF
ClusterName=tsmpi
SlurmctldHost=$ctld
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=pmi2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=2
$nodes
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env.sh"
slurmctld
for name in $names; do
  mkdir -p "$dir/spool/$name"
  if [ "$mode" = hosts ]; then nsenter --net="/run/netns/${namespace_of[$name]}" -- slurmd -N "$name"; else slurmd -N "$name"; fi
done
count=$(echo $names | wc -w)
for _ in $(seq 100); do
  idle=$(sinfo -h -o '%t %D' 2>/dev/null | awk '$1=="idle"{n+=$2} END{print n+0}')
  [ "$idle" = "$count" ] && { echo "$SLURM_CONF"; exit 0; }
  sleep 0.1
done
echo "slurm-up: nodes did not become idle:" >&2; sinfo >&2 || true; tail -20 "$dir/log/slurmctld.log" >&2 || true
exit 1
