#!/bin/bash
# test_pzfabric_abuse.sh PZFABRIC SIM_ABUSE - pzfabric survives malformed
# control messages, garbage MADs and more clients than ibsim allows, logs the
# errors, keeps answering, and exits 0 on SIGTERM.  Stops what it starts by PID.
set -euo pipefail

PZFABRIC=${1:?usage: test_pzfabric_abuse.sh PZFABRIC SIM_ABUSE}
SIM_ABUSE=${2:?usage: test_pzfabric_abuse.sh PZFABRIC SIM_ABUSE}
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
PZFABRIC=$(abspath "$PZFABRIC")
SIM_ABUSE=$(abspath "$SIM_ABUSE")
NET=$(cd "$(dirname "$0")" && pwd)/ft-2s4l.net
WORK=$(mktemp -d /tmp/test_pzfabric_abuse.XXXXXX)
FABRIC=
failures=0

cleanup() {
    local rc=$?
    if [ -n "$FABRIC" ]; then
        kill -KILL "$FABRIC" 2>/dev/null || true
    fi
    if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
        echo "--- tail of pzfabric's stderr"
        tail -n 30 "$WORK/fabric.err" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}

cd "$WORK"
SOCK=pzfabuse$$
"$PZFABRIC" --sockname "$SOCK" "$NET" > fabric.out 2> fabric.err &
FABRIC=$!
for _ in $(seq 100); do
    grep -qx ready fabric.out 2>/dev/null && break
    sleep 0.1
done
check "pzfabric ready" grep -qx ready fabric.out
check "sim_abuse: still answering afterwards" timeout 60 "$SIM_ABUSE" "$SOCK" Hca3
check "pzfabric still running" kill -0 "$FABRIC"
check "malformed control messages are logged" grep -q 'control message of 5 bytes' fabric.err
check "bad magic is logged" grep -q 'bad magic' fabric.err
check "garbage packets are logged" grep -q 'packet of .* bytes, expected 288' fabric.err
set +e
kill -TERM "$FABRIC"
wait "$FABRIC"
rc=$?
set -e
FABRIC=
check "pzfabric exits 0 on SIGTERM" test "$rc" = 0
echo "$failures failed"
test "$failures" = 0
