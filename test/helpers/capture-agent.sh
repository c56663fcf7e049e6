#!/usr/bin/env bash
# A launch agent for the tests (tsmpi run --launch-agent "bash capture-agent.sh"): records the
# first line of its stdin (the job secret the launcher sends its process) and its arguments in
# $HOSTS_TEST_CAPTURE, then becomes ssh with the same stdin.
set -euo pipefail
IFS= read -r line
printf '%s\n' "$line" > "$HOSTS_TEST_CAPTURE/secret"
printf '%s\n' "$*" >> "$HOSTS_TEST_CAPTURE/argv"
exec ssh -o BatchMode=yes "$@" < <(printf '%s\n' "$line"; exec cat)
