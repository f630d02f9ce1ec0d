#!/bin/bash
# test_agent_ssh.sh - portzerod's SSH CLI on its IPoIB address, reached from
# an emulated host's network namespace (pz-iphost) across pzfabric with real
# OpenSM, by OpenSSH's client:
#   - admin logs in with an ed25519 key; `ssh SWITCH show version` prints
#     portzero, also while 20 idle TCP connections that never log in are
#     held; `show system` has the LID smpquery reads; an unknown command
#     exits 2, so does a 5013-character one (the CLI's "line too long");
#   - the monitor user logs in with a password (crypt(3) hash, SSH_ASKPASS),
#     may `show ip` and `route check` but not `iperf server off` or `clear
#     counters` (exit 3, "% not allowed for this user");
#   - a wrong password and an unknown key are refused;
#   - `ping` (a CLI job) runs through exec, switch to the host, exit 0;
#   - an interactive shell (ssh -tt) runs two commands and `exit`;
#   - paramiko logs in after a refused key, with the next key (admin) or the
#     password (monitor);
#   - dbclient on a pty: 110 `show interfaces ib json` (~100 kB) typed ahead
#     of `exit`, ten times, each run ends by itself with all 110 outputs and
#     status 0;
#   - the host key stays the same across a portzerod restart (state_dir).
# Usage: test_agent_ssh.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init_one agentssh "$1" "$2"
pzt_paths "test_agent_ssh.sh PZIPHOST PORTZEROD PZCLI" "${@:3}"
pzt_require opensm ping ip ssh ssh-keygen ssh-keyscan mkpasswd smpquery dbclient dropbearconvert \
    /usr/bin/python3
pzt_require_preload
PARAMIKO=$(abspath "$(dirname "$0")/../ssh/ssh_paramiko.py")
PTY_DRIVE=$(abspath "$(dirname "$0")/../ssh/pty_drive.py")
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
SW=Leaf2
SWADDR=10.82.0.4
ai_switch "$SW" "$SWADDR"
HOSTADDR=10.82.0.100
HOST_PID=

ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/other_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"
MONITOR_HASH=$(mkpasswd -m sha-512 'monitor-pass-1')
printf '#!/bin/sh\necho "$PZT_SSH_PASSWORD"\n' > "$WORK/askpass"
chmod +x "$WORK/askpass"

AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o "state_dir=$WORK/state" -o "ssh_authorized_keys=$WORK/admin_keys"
    -o "ssh_monitor_password_hash=$MONITOR_HASH")
SSHOPT=(-F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" -o StrictHostKeyChecking=accept-new
    -o BatchMode=yes -o ConnectTimeout=10)
as_admin() { in_ns ssh "${SSHOPT[@]}" -i "$WORK/admin_key" "admin@$SWADDR" "$@"; }
as_monitor() { # as_monitor PASSWORD COMMAND...
    local pw=$1
    shift
    in_ns env PZT_SSH_PASSWORD="$pw" SSH_ASKPASS="$WORK/askpass" SSH_ASKPASS_REQUIRE=force \
        ssh -F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" -o StrictHostKeyChecking=accept-new \
        -o PreferredAuthentications=password -o NumberOfPasswordPrompts=1 -o ConnectTimeout=10 \
        "monitor@$SWADDR" "$@" < /dev/null
}

fl_start_fabric --agent "$SW" "$NET" || exit 1
start_agent "$SW"
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "${AGENT[$SW]}"
check "portzerod logs its SSH server" grep -q "ssh: server on TCP 22" "$WORK/agent/err"
check "host keys are stored mode 0600" bash -c "test \"\$(stat -c %a '$WORK/state'/*ed25519* | sort -u)\" = 600"
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined "$SW"
fl_start_host Hca3 "$HOSTADDR/24"
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"

check "admin (ed25519 key): show version names portzero" \
    grep -q "^portzero " <<< "$(as_admin show version 2>&1)"
# 20 TCP connections that never log in (more than the 16 the server keeps) do not lock
# the operator out for the login grace time: the newcomer replaces the oldest idle one.
in_ns bash -c "for i in \$(seq 20); do eval \"exec \$((i + 10))<>/dev/tcp/$SWADDR/22\" || true; done
    echo held; sleep 60" > "$WORK/idle.out" 2>&1 &
IDLE=$!
check "20 idle TCP connections held" wait_file "$WORK/idle.out" 20 '^held$'
check "admin logs in past 20 idle connections that never log in" \
    grep -q "^portzero " <<< "$(as_admin show version 2>&1)"
check "portzerod logs the dropped idle connection" \
    grep -q "ssh: connections full, dropped one from" "$WORK/agent/err"
kill "$IDLE" 2> /dev/null
wait "$IDLE" 2> /dev/null
LID=$(diag Hca1 smpquery -D portinfo 0,1,1,2 0 | awk -F. '/^Lid/ { print $NF }')
check_eq "admin: show system has smpquery's LID" "$LID" \
    "$(as_admin show system 2> /dev/null | awk '/^LID/ { print $2 }')"
check_eq "admin: an unknown command exits 2" 2 "$(as_admin no such command > /dev/null 2>&1; echo $?)"
# A command longer than the CLI's line is the CLI's usage error (exit 2), at any length:
# 5000 characters too, not a refused exec request (ssh's own 255).
long_out=$(as_admin "show version $(head -c 5000 /dev/zero | tr '\0' x)" 2>&1)
check_eq "admin: a 5013-character command exits 2" 2 "$?"
check_eq "admin: a 5013-character command: the CLI's message" \
    "% line too long (at most 511 characters)" "$long_out"
out=$(as_admin ping "$HOSTADDR" count 3 interval 100 2>&1)
check "admin: ping the host through exec (a CLI job)" grep -q "3 packets transmitted, 3 received" <<< "$out"
check_eq "monitor (password): show ip" "up" \
    "$(as_monitor monitor-pass-1 show ip 2> /dev/null | awk '/^IPoIB state/ { print $3 }')"
check_eq "monitor: iperf server off is denied (exit 3)" 3 \
    "$(as_monitor monitor-pass-1 iperf server off > /dev/null 2>&1; echo $?)"
mon_out=$(as_monitor monitor-pass-1 clear counters 2> /dev/null)
check_eq "monitor: clear counters is denied (exit 3)" 3 "$?"
check_eq "monitor: clear counters: the CLI's message" "% not allowed for this user" "$mon_out"
check_eq "monitor: route check, which changes nothing, runs (exit 0)" 0 \
    "$(as_monitor monitor-pass-1 route check > /dev/null 2>&1; echo $?)"
check_eq "a wrong password is refused (ssh exit 255)" 255 \
    "$(as_monitor wrong-password show ip > /dev/null 2>&1; echo $?)"
check_eq "an unknown key is refused (ssh exit 255)" 255 \
    "$(in_ns ssh "${SSHOPT[@]}" -i "$WORK/other_key" "admin@$SWADDR" show version > /dev/null 2>&1; echo $?)"
shell_out=$(printf 'show version\nshow ip\nexit\n' |
    in_ns ssh "${SSHOPT[@]}" -tt -i "$WORK/admin_key" "admin@$SWADDR" 2>&1)
check "shell: the prompt" grep -q "switch> " <<< "$shell_out"
check "shell: show version ran" grep -q "portzero " <<< "$shell_out"
check "shell: show ip ran" grep -q "IPoIB state" <<< "$shell_out"

# paramiko (Netmiko, Ansible's paramiko transport) asks for ssh-userauth again before each
# attempt: a refused key, then the next key or the password, on the same connection.
paramiko() { # paramiko USER COMMAND MODE ARGS...: ssh_paramiko.py's lines joined by "|"
    local user=$1 cmd=$2
    shift 2
    in_ns timeout 120 /usr/bin/python3 "$PARAMIKO" "$SWADDR" 22 "$WORK/known_hosts" \
        "$user" "$cmd" "$@" 2>&1 | paste -sd '|'
}
out=$(paramiko admin 'show version' keys "$WORK/other_key" "$WORK/admin_key")
check "paramiko: the other key refused, then the admin's: show version" \
    grep -q '^status 0|out portzero ' <<< "$out"
out=$(paramiko monitor 'show ip' key+password "$WORK/admin_key" monitor-pass-1)
check "paramiko: the admin's key refused for monitor, then its password: show ip" \
    grep -qE '^status 0\|.*\|out IPoIB state +up' <<< "$out"

# dbclient on a pty: ~100 kB of output (110 `show interfaces ib json`) typed ahead of
# `exit`, ten times; each run must end by itself (dbclient slept for hours after some of
# them: ssh/README.md) with all of it.
mkdir -p "$WORK/home/.ssh"
cp "$WORK/known_hosts" "$WORK/home/.ssh/known_hosts"
dropbearconvert openssh dropbear "$WORK/admin_key" "$WORK/admin_key.db" > /dev/null 2>&1
printf 'expect switch> \nsend %s\nsend exit\\r\n' \
    "$(printf 'show interfaces ib json\\r%.0s' $(seq 110))" > "$WORK/steps"
dbc_ok=0
for i in $(seq 10); do
    st=$(HOME=$WORK/home PTY_DRIVE_EXIT_WAIT=30 python3 "$PTY_DRIVE" "$WORK/dbc.$i" 100 40 -- \
        ip netns exec "$NS" dbclient -t -i "$WORK/admin_key.db" "admin@$SWADDR" < "$WORK/steps") ||
        true
    n=$(grep -o '"ports"' "$WORK/dbc.$i" | wc -l)
    [ "$st $n" = "exit 0 110" ] || { echo "     dbclient run $i: $st, $n outputs" && break; }
    dbc_ok=$((dbc_ok + 1))
done
note "dbclient run 1: $(stat -c %s "$WORK/dbc.1") bytes"
check_eq "dbclient pty shell: 110 outputs then exit, each of 10 runs ends with status 0" 10 "$dbc_ok"

# The host key across a restart.
key1=$(in_ns ssh-keyscan -t ed25519 "$SWADDR" 2> /dev/null | awk '{ print $3 }')
stop_pid "${AGENT[$SW]}"
AGENT[$SW]=
check "pzfabric saw the agent go" wait_file "$WORK/fabric.err" 10 "switch $SW lost its agent"
start_agent "$SW"
check "restarted portzerod ready" wait_lines "$WORK/agent/out" 20 '^ready$' 2
check "$SW joins again" wait_until 60 joined "$SW"
key2() { in_ns ssh-keyscan -t ed25519 "$SWADDR" 2> /dev/null | awk '{ print $3 }'; }
same_key() { test -n "$key1" -a "$(key2)" = "$key1"; }
check "the ed25519 host key is the same after a restart" wait_until 30 same_key
check "known_hosts still accepted: show version after the restart" \
    grep -q "^portzero " <<< "$(as_admin show version 2>&1)"

stop_pid "${AGENT[$SW]}"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=
check "no sanitizer report" bash -c "! grep -q Sanitizer '$WORK/agent/err'"
fl_finish
