# shellcheck shell=bash
# ssh_lib.sh - what the tests of tests/ssh/ share, on top of tests/lib.sh
# (whose pzt_require_tools TOOL... skips a test when a tool is missing):
#
#   ssh_start NAME ARGS...         ssh_testd (path in $TESTD) on an ephemeral
#                                  port with state in $WORK/NAME.state; sets
#                                  PORT and PID (also appended to PIDS); log
#                                  $WORK/NAME.log
#   sshc [ssh options] DEST CMD... the OpenSSH client with no user config
#                                  (-F /dev/null), the test's known_hosts
#                                  ($WORK/known_hosts, from ssh-keyscan),
#                                  strict host key checking, BatchMode, port
#                                  $PORT
#   ssh_keyscan                    refreshes $WORK/known_hosts for $PORT
#   ssh_askpass PASSWORD USER PROMPTS CMD...
#                                  the OpenSSH client with password
#                                  authentication only, PASSWORD given through
#                                  SSH_ASKPASS (no sshpass), at most PROMPTS
#                                  tries, as USER on port $PORT
#   ssh_finish                     stops PIDS, cleans up, exits with the checks
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PIDS=()

ssh_start() {
    local name=$1
    shift
    "$TESTD" --state "$WORK/$name.state" "$@" > "$WORK/$name.out" 2> "$WORK/$name.log" &
    PID=$!
    PIDS+=("$PID")
    if ! wait_file "$WORK/$name.out" 20 '^listening [0-9]+' "$PID"; then
        echo "FAIL ssh_testd $name did not start"
        cat "$WORK/$name.log"
        return 1
    fi
    PORT=$(awk '/^listening/ { print $2 }' "$WORK/$name.out")
}

# ssh_keyscan: the server's host keys into known_hosts.  ssh-keyscan gives up after 5 s
# by default, and a failure here ended a `set -e` script without a word on a loaded
# machine: a 30 s limit, three tries, and a FAIL line when none gets a key.  A try that
# gets nothing exits 1, which `set -e` would take as the script's end: `|| true`, the
# file says whether it worked.
ssh_keyscan() {
    local try
    for try in 1 2 3; do
        ssh-keyscan -T 30 -p "$PORT" -t ed25519,ecdsa 127.0.0.1 > "$WORK/known_hosts" \
            2> "$WORK/keyscan.err" || true
        [ -s "$WORK/known_hosts" ] && return 0
        echo "note ssh-keyscan try $try got no host key from port $PORT: $(tr '\n' ' ' < "$WORK/keyscan.err")"
    done
    echo "FAIL ssh-keyscan got no host key from port $PORT (3 tries)"
    return 1
}

sshc() {
    timeout 60 ssh -F /dev/null -o UserKnownHostsFile="$WORK/known_hosts" \
        -o StrictHostKeyChecking=yes -o BatchMode=yes -o IdentitiesOnly=yes \
        -o ConnectTimeout=10 -p "$PORT" "$@"
}

ssh_askpass() {
    local pw=$1 user=$2 prompts=$3
    shift 3
    printf '#!/bin/sh\necho "%s"\n' "$pw" > "$WORK/askpass.sh"
    chmod +x "$WORK/askpass.sh"
    SSH_ASKPASS="$WORK/askpass.sh" SSH_ASKPASS_REQUIRE=force DISPLAY=none \
        timeout 60 ssh -F /dev/null -o UserKnownHostsFile="$WORK/known_hosts" \
        -o StrictHostKeyChecking=yes -o PubkeyAuthentication=no \
        -o PreferredAuthentications=password -o NumberOfPasswordPrompts="$prompts" \
        -p "$PORT" "$user@127.0.0.1" "$@" < /dev/null
}

# shellcheck disable=SC2317 # called through trap
ssh_finish() {
    local rc=$?
    [ ${#PIDS[@]} -eq 0 ] || stop_pid "${PIDS[@]}"
    pzt_cleanup_work "$rc" "$WORK"/*.log
    if [ "$rc" = 0 ] && [ "$failures" = 0 ]; then
        echo "$passes passed, $failures failed"
        exit 0
    fi
    echo "$passes passed, $failures failed"
    exit 1
}
