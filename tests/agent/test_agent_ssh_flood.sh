#!/bin/bash
# test_agent_ssh_flood.sh - portzerod under an SSH password flood: 16
# paramiko guessers (tests/ssh/ssh_pwguess.py) from an emulated host's
# network namespace hammer admin (yescrypt hash) on the switch's IPoIB
# address for 20 s, with ssh_backoff_after = 3, base 500 ms, cap 2000 ms.
# Meanwhile, with the back-off logged:
#   - smpquery nodeinfo (LID-routed, through OpenSM's LFTs to portzerod) keeps
#     answering with the switch's NodeGUID, 5 times;
#   - the control socket answers (pz-cli show ip: IPoIB up);
#   - admin logs in with a key (show version) from a second host (its own
#     namespace and address: the guessers' address holds the 16 connections).
# Then: every guess was refused (none let in), the log shows the back-off
# start for the host's address once and the attempts held for their turn,
# the turns portzerod gave (its clock) at least 500 ms apart.
# Usage: test_agent_ssh_flood.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init_one agentsshflood "$1" "$2"
pzt_paths "test_agent_ssh_flood.sh PZIPHOST PORTZEROD PZCLI" "${@:3}"
pzt_require opensm ping ip ssh ssh-keygen mkpasswd smpquery
pzt_require_preload
/usr/bin/python3 -c 'import paramiko' 2> /dev/null || pzt_require python3-paramiko
GUESS=$(abspath "$(dirname "$0")/../ssh/ssh_pwguess.py")
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS2="pzt-$$-sshf2"
SW=Leaf2
SWADDR=10.83.0.4
ai_switch "$SW" "$SWADDR"
HOSTADDR=10.83.0.100
OPADDR=10.83.0.101
HOST_PID=
OP_PID=
AI_PID_VARS=(OP_PID) # stopped on exit before the host and the agent (ai_cleanup)
AI_NETNS=("$NS2")

ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"
ADMIN_HASH=$(mkpasswd -m yescrypt 'the-admin-pass')

AI_AGENT_ARGS=(-o "state_dir=$WORK/state" -o "ssh_authorized_keys=$WORK/admin_keys"
    -o "ssh_password_hash=$ADMIN_HASH" -o ssh_backoff_after=3 -o ssh_backoff_base_ms=500
    -o ssh_backoff_max_ms=2000)
start_agent "$SW"
SSHOPT=(-F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" -o StrictHostKeyChecking=accept-new
    -o BatchMode=yes -o ConnectTimeout=20)
ip_state() { cli "$SW" show ip 2> /dev/null | awk '/^IPoIB state/ { print $3 }'; }
as_admin() { ip netns exec "$NS2" ssh "${SSHOPT[@]}" -i "$WORK/admin_key" "admin@$SWADDR" "$@"; }

fl_start_fabric --agent "$SW" "$NET" || exit 1
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "${AGENT[$SW]}"
check "portzerod logs its password settings" \
    grep -q "ssh: passwords: 1 verifier thread(s), 8 waiting at most; back-off after 3 failures" \
    "$WORK/agent/err"
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined "$SW"
fl_start_host Hca3 "$HOSTADDR/24"
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"
# The operator's host.
"$PZIPHOST" --sockname "$SOCK" --ca Hca5 --address "$OPADDR/24" --netns "$NS2" \
    > "$WORK/op.out" 2> "$WORK/op.err" < /dev/null &
OP_PID=$!
check "operator's pz-iphost ready" wait_file "$WORK/op.out" 30 '^ready$' "$OP_PID"
check "idle: admin logs in with a key" grep -q "^portzero " <<< "$(as_admin show version 2>&1)"
LID=$(diag Hca1 smpquery -D portinfo 0,1,1,2 0 | awk -F. '/^Lid/ { print $NF }')
node_guid() { diag Hca1 smpquery nodeinfo "$LID" 2>> "$WORK/smp.err" | awk -F. '/^Guid/ { print $NF }'; }
GUID=$(node_guid)
check "idle: smpquery nodeinfo $LID answers (Guid $GUID)" grep -qE '^0x[0-9a-f]{16}$' <<< "$GUID"

# paramiko logs the connections the agent resets (a full table) on stderr: kept apart.
in_ns /usr/bin/python3 "$GUESS" flood - "$SWADDR" 22 admin 20 16 > "$WORK/flood.out" 2> "$WORK/flood.err" &
FLOOD=$!
check "the back-off starts for the host's address" \
    wait_file "$WORK/agent/err" 30 "back-off for $HOSTADDR after 3 failed passwords"
for i in 1 2 3 4 5; do
    got=$(node_guid)
    check_eq "flood: smpquery nodeinfo $i answers" "$GUID" "$got"
done
check_eq "flood: the control socket answers (show ip)" up "$(ip_state)"
as_admin -v show version > "$WORK/admin_flood.out" 2>&1
check "flood: admin logs in with a key" grep -q "^portzero " "$WORK/admin_flood.out" ||
    grep -E "^debug1: (Connect|Authenticat|Server accepts)|^ssh:|Connection|closed|reset|timed out" \
        "$WORK/admin_flood.out" | tail -n 8
check "flood: still running after the checks" kill -0 "$FLOOD"
wait "$FLOOD"
read -r _ attempts _ refused _ ok _ errors <<< "$(grep '^attempts ' "$WORK/flood.out")"
check "flood: guesses were made and refused ($attempts attempts, $refused refused, $errors errors)" \
    test "${refused:-0}" -ge 3
check_eq "flood: no guess let in" 0 "${ok:-x}"
check_eq "the back-off start is logged once" 1 \
    "$(grep -c "back-off for $HOSTADDR after 3 failed passwords" "$WORK/agent/err")"
mapfile -t turns < <(grep "password attempt from $HOSTADDR waits" "$WORK/agent/err" |
    sed 's/.*turn at \([0-9]*\).*/\1/' | sort -n)
check "attempts were held for their turn (${#turns[@]})" test "${#turns[@]}" -ge 2
ok=0
for ((k = 1; k < ${#turns[@]}; k++)); do
    [ $((turns[k] - turns[k - 1])) -ge 500 ] && ok=$((ok + 1))
done
check_eq "the turns are at least 500 ms apart" $((${#turns[@]} - 1)) "$ok"

stop_pid "${AGENT[$SW]}"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=
check "no sanitizer report" bash -c "! grep -q Sanitizer '$WORK/agent/err'"
fl_finish
