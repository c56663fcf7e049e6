# Helpers for the test networks' scripts (rails.sh, hosts.sh): sourced, not run. Each script sets
# `say` (its own prefix) before using them.

ns_exists() { [ -e "/run/netns/$1" ]; }

# Serialises invocations of one script (lock name), so that two overlapping calls cannot interleave.
lock() { # name
  mkdir -p /run/lock
  exec 9>"/run/lock/$1.lock"
  flock -w 30 9 || { say "another $1 is still running (lock /run/lock/$1.lock)"; exit 1; }
}

# Waits until `ip [-n NS] link show dev DEV` reports state UP (it can read DOWN just after `set up`).
wait_up() { # ns-or-empty dev
  local i
  for i in $(seq 500); do
    if [ -n "$1" ]; then ip -n "$1" -o link show dev "$2" 2>/dev/null; else ip -o link show dev "$2" 2>/dev/null; fi | grep -q ' state UP ' && return 0
    sleep 0.01
  done
  say "${1:-root}/$2 did not come up within 5 s"
  exit 1
}

# Kills every process in a namespace: TERM, up to 2 s grace, then KILL.
kill_ns() { # ns
  local pids i
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [ -n "$pids" ] || return 0
  say "killing processes left in $1: $(echo $pids)"
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 20); do
    [ -n "$(ip netns pids "$1" 2>/dev/null || true)" ] || return 0
    sleep 0.1
  done
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
  for i in $(seq 20); do
    [ -n "$(ip netns pids "$1" 2>/dev/null || true)" ] || return 0
    sleep 0.1
  done
  say "warning: processes still in $1 after SIGKILL"
}

# Deletes a namespace, even one whose `ip netns del` fails (a stale mount).
del_ns() { # ns
  ns_exists "$1" || return 0
  ip netns del "$1" 2>/dev/null || { umount "/run/netns/$1" 2>/dev/null || true; rm -f "/run/netns/$1"; }
}
