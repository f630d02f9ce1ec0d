#!/bin/bash
# test_pzfabric_abuse.sh PZFABRIC SIM_ABUSE - pzfabric survives malformed
# control messages, garbage MADs and more clients than ibsim allows, logs the
# errors, keeps answering, and exits 0 on SIGTERM.  Stops what it starts by PID.
set -euo pipefail

# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
pzt_paths "test_pzfabric_abuse.sh PZFABRIC SIM_ABUSE" "$@"
NET=$(cd "$(dirname "$0")" && pwd)/ft-2s4l.net
WORK=$(mktemp -d /tmp/test_pzfabric_abuse.XXXXXX)
FABRIC=
failures=0

cleanup() {
    local rc=$?
    [ -z "$FABRIC" ] || PZT_GRACE=0 stop_pid "$FABRIC"
    pzt_cleanup_work "$rc" "$WORK/fabric.err"
    exit "$rc"
}
trap cleanup EXIT

cd "$WORK"
SOCK=pzfabuse$$
"$PZFABRIC" --sockname "$SOCK" "$NET" > fabric.out 2> fabric.err &
FABRIC=$!
wait_file fabric.out 10 '^ready$' "$FABRIC" || true
check "pzfabric ready" grep -qx ready fabric.out
check "sim_abuse: still answering afterwards" timeout 60 "$SIM_ABUSE" "$SOCK" Hca3
check "pzfabric still running" kill -0 "$FABRIC"
check "malformed control messages are logged" grep -q 'control message of 5 bytes' fabric.err
check "bad magic is logged" grep -q 'bad magic' fabric.err
check "garbage packets are logged" grep -q 'packet of .* bytes, expected 288' fabric.err
PZT_GRACE=10 stop_pid "$FABRIC"
FABRIC=
check "pzfabric exits 0 on SIGTERM" test "$STOP_RC" = 0
checks_finish
