#!/usr/bin/env bash
# Builds a shaped multi-rail test network on this machine: two "hosts" (network namespaces) joined
# by one veth pair per rail, each end shaped by an egress tbf (so both directions are shaped), plus
# an unshaped management network reachable from the root namespace. Needs root, netns, veth,
# bridge and tbf (all built into the CI kernel; netem is NOT available, so no delay/loss).
#   bash test/infra/rails.sh up RATE0 [RATE1 ...]   build it (runs `down` first), e.g. up 800mbit 200mbit
#   bash test/infra/rails.sh down                   kill processes left in the namespaces, delete all
#   bash test/infra/rails.sh rate I RATE            change rail I's rate live, both ends (tc replace)
#   bash test/infra/rails.sh status                 print namespaces, rails, rates; exit 1 if not up
#   bash test/infra/rails.sh check                  exit 0 if this machine can build it, else say why, exit 1
# Topology (namespace names from $NS_A / $NS_B, default tsmpiA / tsmpiB):
#   rail I:  $NS_A railI 198.18.I.1/30  <->  $NS_B railI 198.18.I.2/30   (tbf RATE burst 32kb latency 10ms,
#            gso_max_size 16384 on each end: a GSO size above the burst makes tbf segment in software
#            and eats both CPUs)
#   mgmt:    root-namespace bridge tsmpimg 198.19.0.254/24; $NS_A mgmt 198.19.0.1, $NS_B mgmt 198.19.0.2
#            (unshaped; a rendezvous server in the root namespace listens on 198.19.0.254)
# Only 198.18.0.0/15 is ever used. Run programs in a host with `ip netns exec tsmpiA node ...`
# (or `nsenter --net=/run/netns/tsmpiA` for daemons that need the real /sys, e.g. slurmd).
# Pair localAddress 198.18.I.1 with destination 198.18.I.2: the destination picks the rail.
# Expect TCP goodput of rate x 1448/1514 (tbf counts L2 bytes): 800mbit -> ~765, 200mbit -> ~191 Mbit/s.
# NOT for concurrent use: there is one such network per machine (fixed bridge name and 198.19.0.0/24),
# and `up`/`down` of one test run destroy another's network. Invocations are serialised with a
# lock file only so that two overlapping calls cannot interleave their steps.
set -euo pipefail
NS_A=${NS_A:-tsmpiA}
NS_B=${NS_B:-tsmpiB}
BR=tsmpimg                       # root-namespace bridge; its veth ports are ${BR}-a / ${BR}-b
BURST=32kb
LATENCY=10ms
GSO=16384
MAX_RAILS=64

say() { echo "rails: $*" >&2; }
die() { say "$*"; exit 1; }
. "$(dirname "$0")/netns-lib.sh"
usage() { sed -n '6,10p' "$0" | sed 's/^#  *//' >&2; exit 2; }
valid_rate() { [[ $1 =~ ^[0-9]+([.][0-9]+)?([kKmMgGtT]i?)?(bit|bps)$ ]]; }

# Tolerates any half-built state; never fails.
do_down() {
  local ns
  for ns in "$NS_A" "$NS_B"; do ns_exists "$ns" && kill_ns "$ns"; done
  # Delete the root-side veths and the bridge explicitly: after `ip netns del` the kernel destroys a
  # namespace's devices asynchronously, and a fast `up` would then find ${BR}-a still there.
  ip link del "$BR-a" 2>/dev/null || true
  ip link del "$BR-b" 2>/dev/null || true
  ip link del "$BR" 2>/dev/null || true
  for ns in "$NS_A" "$NS_B"; do
    del_ns "$ns"
  done
  return 0
}

shape() { # ns dev rate add|replace
  tc -n "$1" qdisc "$4" dev "$2" root tbf rate "$3" burst "$BURST" latency "$LATENCY"
}

do_up() {
  local n=$# i r
  [ "$n" -ge 1 ] || usage
  [ "$n" -le "$MAX_RAILS" ] || die "at most $MAX_RAILS rails"
  for r in "$@"; do valid_rate "$r" || die "bad rate '$r' (want e.g. 800mbit, 1gbit)"; done
  [ "$NS_A" != "$NS_B" ] || die "NS_A and NS_B must differ"
  do_down
  if ip -4 -o addr show | grep -q ' inet 198\.19\.0\.'; then
    die "198.19.0.0/24 is already used by another device in the root namespace: $(ip -4 -o addr show | awk '/ inet 198\.19\.0\./{print $2, $4}' | tr '\n' ' ')"
  fi
  trap 'rc=$?; if [ $rc -ne 0 ]; then say "up failed, tearing down the half-built network"; do_down; fi' EXIT
  ip netns add "$NS_A"
  ip netns add "$NS_B"
  ip -n "$NS_A" link set lo up
  ip -n "$NS_B" link set lo up
  i=0
  for r in "$@"; do
    ip link add "rail$i" netns "$NS_A" type veth peer name "rail$i" netns "$NS_B"
    ip -n "$NS_A" link set dev "rail$i" gso_max_size "$GSO"
    ip -n "$NS_B" link set dev "rail$i" gso_max_size "$GSO"
    ip -n "$NS_A" addr add "198.18.$i.1/30" dev "rail$i"
    ip -n "$NS_B" addr add "198.18.$i.2/30" dev "rail$i"
    shape "$NS_A" "rail$i" "$r" add
    shape "$NS_B" "rail$i" "$r" add
    ip -n "$NS_A" link set dev "rail$i" up
    ip -n "$NS_B" link set dev "rail$i" up
    i=$((i + 1))
  done
  ip link add "$BR" type bridge forward_delay 0
  ip addr add 198.19.0.254/24 dev "$BR"
  ip link set dev "$BR" up
  ip link add "$BR-a" type veth peer name mgmt netns "$NS_A"
  ip link add "$BR-b" type veth peer name mgmt netns "$NS_B"
  ip link set dev "$BR-a" master "$BR" up
  ip link set dev "$BR-b" master "$BR" up
  ip -n "$NS_A" addr add 198.19.0.1/24 dev mgmt
  ip -n "$NS_B" addr add 198.19.0.2/24 dev mgmt
  ip -n "$NS_A" link set dev mgmt up
  ip -n "$NS_B" link set dev mgmt up
  for ((i = 0; i < n; i++)); do wait_up "$NS_A" "rail$i"; wait_up "$NS_B" "rail$i"; done
  wait_up "$NS_A" mgmt; wait_up "$NS_B" mgmt
  wait_up "" "$BR-a"; wait_up "" "$BR-b"; wait_up "" "$BR"
  trap - EXIT
  echo "rails: up: $NS_A <-> $NS_B, $n rail(s): $*; mgmt $BR 198.19.0.254"
}

do_rate() {
  [ $# -eq 2 ] || usage
  local i=$1 r=$2 ns
  [[ $i =~ ^[0-9]+$ ]] || die "bad rail index '$i'"
  valid_rate "$r" || die "bad rate '$r' (want e.g. 800mbit, 1gbit)"
  for ns in "$NS_A" "$NS_B"; do
    ns_exists "$ns" || die "namespace $ns does not exist (run: rails.sh up ...)"
    ip -n "$ns" link show dev "rail$i" >/dev/null 2>&1 || die "rail$i does not exist in $ns"
  done
  shape "$NS_A" "rail$i" "$r" replace
  shape "$NS_B" "rail$i" "$r" replace
}

tbf_rate() { # ns dev
  tc -n "$1" qdisc show dev "$2" 2>/dev/null | awk '$2=="tbf"{for(k=1;k<NF;k++) if($k=="rate"){print $(k+1); exit}} END{}' | grep . || echo "unshaped"
}
addr_of() { # ns dev
  ip -n "$1" -4 -o addr show dev "$2" 2>/dev/null | awk '{print $4; exit}'
}

do_status() {
  local ok=0 ns dev
  for ns in "$NS_A" "$NS_B"; do
    if ns_exists "$ns"; then echo "namespace $ns"; else echo "namespace $ns: MISSING"; ok=1; fi
  done
  [ $ok -eq 0 ] || return 1
  local rails
  rails=$(ip -n "$NS_A" -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | grep -E '^rail[0-9]+$' | sort -V || true)
  [ -n "$rails" ] || { echo "no rails"; return 1; }
  for dev in $rails; do
    local b=missing
    ip -n "$NS_B" link show dev "$dev" >/dev/null 2>&1 && b="$(addr_of "$NS_B" "$dev") tx $(tbf_rate "$NS_B" "$dev")" || ok=1
    printf '%-7s %s %s tx %s  <->  %s %s\n' "$dev" "$NS_A" "$(addr_of "$NS_A" "$dev")" "$(tbf_rate "$NS_A" "$dev")" "$NS_B" "$b"
  done
  if ip link show dev "$BR" >/dev/null 2>&1; then
    printf 'mgmt    %s %s  %s %s  %s %s\n' "$BR" "$(ip -4 -o addr show dev "$BR" | awk '{print $4; exit}')" \
      "$NS_A" "$(addr_of "$NS_A" mgmt)" "$NS_B" "$(addr_of "$NS_B" mgmt)"
  else
    echo "mgmt    bridge $BR MISSING"; ok=1
  fi
  return $ok
}

# Builds a throw-away namespace with a veth, bridge and tbf to prove this machine can do it.
do_check() {
  [ "$(id -u)" = 0 ] || { say "not root"; return 1; }
  local c
  for c in ip tc flock; do command -v "$c" >/dev/null 2>&1 || { say "$c is missing (apt-get install iproute2 util-linux)"; return 1; }; done
  local t="tsmpichk$$" out
  trap 'ip netns del "'"$t"'" 2>/dev/null || true' RETURN
  out=$(ip netns add "$t" 2>&1) || { say "ip netns add fails: $out"; return 1; }
  out=$(ip -n "$t" link add c0 type veth peer name c1 2>&1) || { say "veth unavailable: $out"; return 1; }
  out=$(ip -n "$t" link set dev c0 gso_max_size "$GSO" 2>&1) || { say "cannot set gso_max_size: $out"; return 1; }
  out=$(tc -n "$t" qdisc add dev c0 root tbf rate 100mbit burst "$BURST" latency "$LATENCY" 2>&1) || { say "tbf unavailable: $out"; return 1; }
  out=$(ip -n "$t" link add cb type bridge 2>&1) || { say "bridge unavailable: $out"; return 1; }
  echo "rails: ok (root, netns, veth, bridge, tbf available)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  up) lock tsmpi-rails; do_up "$@" ;;
  down) lock tsmpi-rails; do_down; echo "rails: down" ;;
  rate) lock tsmpi-rails; do_rate "$@" ;;
  status) do_status ;;
  check) do_check ;;
  *) usage ;;
esac
