#!/usr/bin/env bash
# A launch agent for the tests (tsmpi run --launch-agent "bash elsewhere-agent.sh"): ssh, but the
# command it runs names Node at a path the host does not have ($HOSTS_TEST_NODE, the launcher's
# node, becomes /nonexistent/bin/node), as on a host where Node is installed elsewhere.
set -euo pipefail
host=$1
shift
command=$*
exec ssh -o BatchMode=yes "$host" "${command//"$HOSTS_TEST_NODE"//nonexistent/bin/node}"
