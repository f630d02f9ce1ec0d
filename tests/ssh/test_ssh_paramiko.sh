#!/usr/bin/env bash
# test_ssh_paramiko.sh - the ssh/ library against paramiko's SSHClient (what
# Netmiko and Ansible's paramiko transport log in with), through ssh_testd on
# 127.0.0.1.  paramiko sends SERVICE_REQUEST "ssh-userauth" again before each
# authentication attempt (OpenSSH's sshd accepts it each time): two keys of
# which the first is not authorised, a refused key and then the password (for
# both users), a refused key and a wrong password (refused, the server stays
# up).  Each login's command output and exit status are checked, and the
# server's count of failed attempts on that connection.
#
# Usage: test_ssh_paramiko.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
pzt_require_tools ssh-keygen ssh-keyscan mkpasswd /usr/bin/python3
PARAMIKO=$(dirname "$(abspath "$0")")/ssh_paramiko.py
if ! /usr/bin/python3 -c 'import paramiko' 2> /dev/null; then
    [ "${PZT_REQUIRE_ALL:-0}" = 1 ] && { echo "FAIL: python3-paramiko is not installed"; exit 1; }
    echo "SKIP: python3-paramiko is not installed"
    exit 77
fi
WORK=$(mktemp -d /tmp/pz_ssh_paramiko.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"
ssh-keygen -q -t ed25519 -N '' -C admin -f admin_key
ssh-keygen -q -t ecdsa -N '' -C monitor -f monitor_key
ssh-keygen -q -t ed25519 -N '' -C stranger -f stranger
ADMIN_HASH=$(mkpasswd -m yescrypt 'adm1n pass')
MONITOR_HASH=$(mkpasswd -m sha-512 'mon-pass')

ssh_start main --admin-keys "$WORK/admin_key.pub" --monitor-keys "$WORK/monitor_key.pub" \
    --admin-hash "$ADMIN_HASH" --monitor-hash "$MONITOR_HASH" --fail-delay 100
ssh_keyscan
# The connection a paramiko run makes: the next number after the last one the server
# logged (ssh-keyscan's and the earlier runs' "client version" lines are in by then; their
# "closed" lines may come later, so those are matched by number, not counted).
next_conn() {
    local last
    last=$(grep -oE '^\[conn [0-9]+\]' "$WORK/main.log" | grep -oE '[0-9]+' | sort -n | tail -n 1)
    echo $((${last:-0} + 1))
}

# paramiko USER COMMAND MODE ARGS...: sets OUT to ssh_paramiko.py's lines joined by "|",
# then waits for the server to log the connection's end and sets FAILS to its failed
# attempts.
paramiko() {
    local user=$1 cmd=$2 conn
    shift 2
    conn=$(next_conn)
    OUT=$(timeout 120 /usr/bin/python3 "$PARAMIKO" 127.0.0.1 "$PORT" "$WORK/known_hosts" \
        "$user" "$cmd" "$@" 2>&1 | paste -sd '|') || true
    FAILS=none
    if wait_file "$WORK/main.log" 30 "^\\[conn $conn\\] closed: "; then
        FAILS=$(grep "^\\[conn $conn\\] closed: " "$WORK/main.log" |
            sed -E 's/.* ([0-9]+) auth failures$/\1/')
    fi
}

paramiko admin whoami keys admin_key
check_eq "one key: admin logged in, whoami" "status 0|out admin" "$OUT"
check_eq "one key: no failed attempt" 0 "$FAILS"
paramiko admin whoami keys stranger admin_key
check_eq "two keys, the first not authorised: the second logs in" "status 0|out admin" "$OUT"
check_eq "two keys: one failed attempt, then the login on the same connection" 1 "$FAILS"
paramiko admin 'exit 42' keys stranger monitor_key admin_key
check_eq "three keys, two refused (one is the monitor's): exit status 42" "status 42" "$OUT"
check_eq "three keys: two failed attempts" 2 "$FAILS"
paramiko admin whoami key+password stranger 'adm1n pass'
check_eq "refused key, then the admin's password" "status 0|out admin" "$OUT"
check_eq "key then password: one failed attempt" 1 "$FAILS"
paramiko monitor whoami key+password admin_key 'mon-pass'
check_eq "refused key, then the monitor's password" "status 0|out monitor" "$OUT"
check_eq "key then the monitor's password: one failed attempt" 1 "$FAILS"
paramiko admin whoami key+password stranger 'wrong'
check_eq "refused key, then a wrong password: refused" \
    "error AuthenticationException: Authentication failed." "$OUT"
check_eq "key and wrong password: two failed attempts" 2 "$FAILS"
paramiko admin 'echo still up' keys admin_key
check_eq "the server is still up: a login after them" "status 0|out still up" "$OUT"
check "no connection ended with SERVICE_NOT_AVAILABLE (7)" \
    test "$(grep -c 'closed: reason 7,' "$WORK/main.log" || true)" = 0
