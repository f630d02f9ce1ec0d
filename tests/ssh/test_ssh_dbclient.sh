#!/usr/bin/env bash
# test_ssh_dbclient.sh - the ssh/ library against dropbear's client
# (dbclient), through ssh_testd on 127.0.0.1, on a pseudo-terminal (-t) as an
# operator or a script uses it: a shell given "seq 20000" (~110 kB) and
# "exit 3" typed ahead, and a command on a pty printing the same, ten times
# each (RUNS).  Each run must bring the whole output and end by itself with
# the command's exit status.
#
# dbclient (2022.83, and dropbear's current source) removes its last
# channel once it has written out the output it still held, after its loop's
# "no channel left: exit" check, and then sleeps in select() until the server
# sends something: without the server's SSH_MSG_IGNORE after the close
# (ssh_channel.c send_wakeup) about half of these runs hung for hours.
#
# Usage: test_ssh_dbclient.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
pzt_require_tools dbclient dropbearconvert ssh-keygen ssh-keyscan python3
PTY_DRIVE=$(dirname "$(abspath "$0")")/pty_drive.py
WORK=$(mktemp -d /tmp/pz_ssh_dbclient.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"
ssh-keygen -q -t ed25519 -N '' -C admin -f admin_key
dropbearconvert openssh dropbear admin_key admin_key.db > /dev/null 2>&1
ssh_start main --admin-keys "$WORK/admin_key.pub"
ssh_keyscan
# dbclient's known_hosts is $HOME/.ssh/known_hosts, host names without the port.
mkdir -p home/.ssh
sed -E 's/^\[127\.0\.0\.1\]:[0-9]+ /127.0.0.1 /' known_hosts > home/.ssh/known_hosts
export HOME=$WORK/home
# A hang is hours; 30 s only keeps a broken run from stalling the suite.
export PTY_DRIVE_EXIT_WAIT=30

# numbers FILE: "COUNT LAST" of the lines that are only a number, in a pty transcript.
numbers() {
    tr -d '\r' < "$1" | grep -xE '[0-9]+' | awk '{ n++; last = $0 } END { print n + 0, last }'
}

runs=${RUNS:-10}

# shell_run I / exec_run I: one run; true if it brought all 20000 lines and its status.
shell_run() {
    local st got
    st=$(python3 "$PTY_DRIVE" "shell.$1" 100 40 -- \
        dbclient -t -i admin_key.db -p "$PORT" admin@127.0.0.1 << 'STEPS'
expect pz>
send seq 20000\rexit 3\r
STEPS
    ) || true
    got="$st, $(numbers "shell.$1")"
    [ "$got" = "exit 3, 20000 20000" ] || { echo "     shell run $1: $got" && return 1; }
}
exec_run() {
    local st got
    st=$(python3 "$PTY_DRIVE" "exec.$1" 100 40 -- \
        dbclient -t -i admin_key.db -p "$PORT" admin@127.0.0.1 'seq 20000' < /dev/null) || true
    got="$st, $(numbers "exec.$1")"
    [ "$got" = "exit 0, 20000 20000" ] || { echo "     exec run $1: $got" && return 1; }
}

# Up to the first failure of each kind (a hung run costs PTY_DRIVE_EXIT_WAIT).
shell_ok=0
exec_ok=0
sessions=0
for i in $(seq 1 "$runs"); do
    if [ "$shell_ok" = $((i - 1)) ]; then
        sessions=$((sessions + 1))
        ! shell_run "$i" || shell_ok=$((shell_ok + 1))
    fi
    if [ "$exec_ok" = $((i - 1)) ]; then
        sessions=$((sessions + 1))
        ! exec_run "$i" || exec_ok=$((exec_ok + 1))
    fi
done
check_eq "pty shell, 110 kB typed ahead of 'exit 3': all output, status 3, $runs runs" \
    "$runs" "$shell_ok"
check_eq "pty exec 'seq 20000': all output, status 0, $runs runs" "$runs" "$exec_ok"
check "every session was a pty (pty-req 100x40)" \
    test "$(grep -c '^pty 100x40' main.log)" = "$sessions"
