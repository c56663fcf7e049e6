#!/usr/bin/env bash
# Builds a network of test hosts on this machine: N network namespaces joined by a bridge, each
# with its own address in 198.18.64.0/24 and its own sshd (Debian's openssh-server; keys made for
# the test, root login by key only), and writes a hostfile for `tsmpi run --hostfile`.
#   bash test/infra/hosts.sh up N             build N hosts (1..64; runs `down` first)
#   bash test/infra/hosts.sh down             kill what runs in the hosts, delete them
#   bash test/infra/hosts.sh link K up|down   take host K's link up or down (inside its namespace)
#   bash test/infra/hosts.sh status           print the hosts; exit 1 if not up
#   bash test/infra/hosts.sh check            exit 0 if this machine can build them, else say why
# Topology: bridge tsmpihbr 198.18.64.254/24 in the root namespace (where a launcher outside the
# hosts runs); host K is namespace ${TSMPI_HOSTS_NS:-tsmpi-h}K with eth0 198.18.64.K/24 (its peer
# tsmpihK on the bridge) and lo; what its sshd starts also has host name tsmpi-hK. Programs run in a host with `ip netns exec tsmpi-hK ...`
# (daemons that need the real /sys, such as slurmd, with `nsenter --net=/run/netns/tsmpi-hK`).
# Files in $TSMPI_HOSTS_DIR (default /tmp/tsmpi-hosts): hostfile ("198.18.64.K slots=S", S from
# $TSMPI_HOSTS_SLOTS, default 2), names (address and namespace per line), the client key
# id_ed25519, the host key, known_hosts, authorized_keys, and hK/ (sshd_config, pid, log).
# The ssh client finds the key through /etc/ssh/ssh_config.d/tsmpi-hosts.conf (Host 198.18.64.*),
# written by `up` and removed by `down`, so a plain `ssh 198.18.64.1` works, as on a cluster.
# Only 198.18.0.0/15 is used. One such network per machine (fixed bridge name and subnet).
set -euo pipefail
DIR=${TSMPI_HOSTS_DIR:-/tmp/tsmpi-hosts}
NS=${TSMPI_HOSTS_NS:-tsmpi-h}
SLOTS=${TSMPI_HOSTS_SLOTS:-2}
BR=tsmpihbr
NET=198.18.64
MAX_HOSTS=64
CLIENT_CONF=/etc/ssh/ssh_config.d/tsmpi-hosts.conf

say() { echo "hosts: $*" >&2; }
die() { say "$*"; exit 1; }
. "$(dirname "$0")/netns-lib.sh"
usage() { sed -n '5,9p' "$0" | sed 's/^#  *//' >&2; exit 2; }

hosts_up() { # the namespaces that exist, in host order
  local k
  for k in $(seq "$MAX_HOSTS"); do ns_exists "$NS$k" && echo "$k"; done
  return 0
}

# Tolerates any half-built state; never fails.
do_down() {
  local k pid
  for k in $(hosts_up); do
    # Each host's sshd first, quietly; then anything left (a test's processes) is named.
    pid=$(cat "$DIR/h$k/sshd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && grep -q sshd "/proc/$pid/comm" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  done
  for k in $(hosts_up); do kill_ns "$NS$k"; done
  for k in $(seq "$MAX_HOSTS"); do ip link del "tsmpih$k" 2>/dev/null || true; done
  ip link del "$BR" 2>/dev/null || true
  for k in $(seq "$MAX_HOSTS"); do del_ns "$NS$k"; done
  rm -f "$CLIENT_CONF"
  return 0
}

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing ($2)"; }

keys() {
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  rm -f "$DIR"/id_ed25519* "$DIR"/ssh_host_ed25519_key* "$DIR/known_hosts" "$DIR/authorized_keys"
  ssh-keygen -q -t ed25519 -N '' -C tsmpi-test-client -f "$DIR/id_ed25519"
  ssh-keygen -q -t ed25519 -N '' -C tsmpi-test-host -f "$DIR/ssh_host_ed25519_key"
  cp "$DIR/id_ed25519.pub" "$DIR/authorized_keys"
  echo "$NET.* $(cut -d' ' -f1,2 "$DIR/ssh_host_ed25519_key.pub")" > "$DIR/known_hosts"
  chmod 600 "$DIR/id_ed25519" "$DIR/ssh_host_ed25519_key"
  mkdir -p "$(dirname "$CLIENT_CONF")"
  cat > "$CLIENT_CONF" <<CONF
# Written by tsmpi's test/infra/hosts.sh for its test hosts; removed by \`hosts.sh down\`.
Host $NET.*
  User root
  IdentityFile $DIR/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $DIR/known_hosts
  StrictHostKeyChecking yes
  LogLevel ERROR
CONF
}

start_sshd() { # k
  local k=$1 d="$DIR/h$1"
  mkdir -p "$d" /run/sshd
  # ClientAlive: a session whose client vanished (its host's link down) ends within 6 s, and
  # with it the command it ran.
  cat > "$d/sshd_config" <<CONF
ListenAddress $NET.$k:22
HostKey $DIR/ssh_host_ed25519_key
PidFile $d/sshd.pid
AuthorizedKeysFile $DIR/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding no
PrintMotd no
ClientAliveInterval 2
ClientAliveCountMax 3
MaxStartups 64
MaxSessions 64
LogLevel ERROR
CONF
  # A host name of its own (a UTS namespace): programs that name files after the host name, as
  # Open MPI's shared-memory segments in the /dev/shm all hosts share, must not collide.
  ip netns exec "$NS$k" unshare --uts sh -c "hostname $NS$k && exec /usr/sbin/sshd -f '$d/sshd_config' -E '$d/sshd.log'"
}

do_up() {
  [ $# -eq 1 ] && [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$MAX_HOSTS" ] || usage
  local n=$1 k
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
  need ip "apt-get install iproute2"
  need ssh-keygen "apt-get install openssh-client"
  [ -x /usr/sbin/sshd ] || die "/usr/sbin/sshd is missing (apt-get install --no-install-recommends openssh-server)"
  do_down
  if ip -4 -o addr show | grep -q " inet $NET\."; then
    die "$NET.0/24 is already used in the root namespace: $(ip -4 -o addr show | awk -v p=" inet $NET." 'index($0,p){print $2, $4}' | tr '\n' ' ')"
  fi
  trap 'rc=$?; if [ $rc -ne 0 ]; then say "up failed, tearing down the half-built hosts"; do_down; fi' EXIT
  keys
  ip link add "$BR" type bridge forward_delay 0
  ip addr add "$NET.254/24" dev "$BR"
  ip link set dev "$BR" up
  : > "$DIR/hostfile.new"
  : > "$DIR/names"
  for k in $(seq "$n"); do
    ip netns add "$NS$k"
    ip -n "$NS$k" link set lo up
    ip link add "tsmpih$k" type veth peer name eth0 netns "$NS$k"
    ip link set dev "tsmpih$k" master "$BR" up
    ip -n "$NS$k" addr add "$NET.$k/24" dev eth0
    ip -n "$NS$k" link set dev eth0 up
    echo "$NET.$k slots=$SLOTS" >> "$DIR/hostfile.new"
    echo "$NET.$k $NS$k" >> "$DIR/names"
  done
  for k in $(seq "$n"); do wait_up "$NS$k" eth0; wait_up "" "tsmpih$k"; done
  wait_up "" "$BR"
  for k in $(seq "$n"); do start_sshd "$k"; done
  # Each sshd answers before `up` returns: a test's first ssh must not race the daemon's start.
  for k in $(seq "$n"); do
    local i ok=0
    for i in $(seq 100); do
      if ssh -o BatchMode=yes -o ConnectTimeout=2 "$NET.$k" true 2>/dev/null; then ok=1; break; fi
      sleep 0.05
    done
    [ $ok = 1 ] || die "sshd on $NET.$k does not answer: $(cat "$DIR/h$k/sshd.log" 2>/dev/null)"
  done
  mv "$DIR/hostfile.new" "$DIR/hostfile"
  trap - EXIT
  echo "hosts: up: $n host(s) $NET.1..$NET.$n on bridge $BR ($NET.254); hostfile $DIR/hostfile"
}

do_link() {
  [ $# -eq 2 ] || usage
  local k=$1 state=$2
  [[ $k =~ ^[0-9]+$ ]] || die "bad host number '$k'"
  [ "$state" = up ] || [ "$state" = down ] || die "link takes up or down, got '$state'"
  ns_exists "$NS$k" || die "host $k ($NS$k) does not exist (run: hosts.sh up N)"
  ip -n "$NS$k" link set dev eth0 "$state"
  [ "$state" = down ] || wait_up "$NS$k" eth0
}

do_status() {
  local k any=1
  for k in $(hosts_up); do
    any=0
    local addr state sshd=stopped pid
    addr=$(ip -n "$NS$k" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4; exit}')
    state=$(ip -n "$NS$k" -o link show dev eth0 2>/dev/null | grep -o 'state [A-Z]*' || echo 'state ?')
    pid=$(cat "$DIR/h$k/sshd.pid" 2>/dev/null || true)
    [ -n "$pid" ] && grep -q sshd "/proc/$pid/comm" 2>/dev/null && sshd="sshd $pid"
    echo "host $k: $NS$k eth0 $addr $state, $sshd"
  done
  [ $any = 0 ] || echo "no hosts"
  return $any
}

do_check() {
  [ "$(id -u)" = 0 ] || { say "not root"; return 1; }
  local c
  for c in ip flock ssh ssh-keygen; do command -v "$c" >/dev/null 2>&1 || { say "$c is missing (apt-get install iproute2 openssh-client)"; return 1; }; done
  [ -x /usr/sbin/sshd ] || { say "/usr/sbin/sshd is missing (apt-get install --no-install-recommends openssh-server)"; return 1; }
  local t="tsmpihchk$$" out
  trap 'ip netns del "'"$t"'" 2>/dev/null || true' RETURN
  out=$(ip netns add "$t" 2>&1) || { say "ip netns add fails: $out"; return 1; }
  out=$(ip -n "$t" link add c0 type veth peer name c1 2>&1) || { say "veth unavailable: $out"; return 1; }
  out=$(ip -n "$t" link add cb type bridge 2>&1) || { say "bridge unavailable: $out"; return 1; }
  echo "hosts: ok (root, netns, veth, bridge, sshd available)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  up) lock tsmpi-hosts; do_up "$@" ;;
  down) lock tsmpi-hosts; do_down; echo "hosts: down" ;;
  link) lock tsmpi-hosts; do_link "$@" ;;
  status) do_status ;;
  check) do_check ;;
  *) usage ;;
esac
