#!/bin/bash
# test_agent_ssh_acks.sh - portzerod's SSH server acknowledges every segment
# in time: 20 OpenSSH logins (`ssh SWITCH show version`) from pz-iphost's
# namespace across pzfabric with real OpenSM, captured by tshark on the
# namespace's IPoIB interface:
#   - all 20 logins print portzero, and the capture holds their 20 SYNs;
#   - at most 3 segments from the client are retransmissions
#     (tcp.analysis.retransmission): the client's key exchange sends
#     NEWKEYS alone and, with Nagle, holds its next packet until that
#     segment is acknowledged; a delayed ACK left to lwIP's 250 ms timer
#     made the client's ~200 ms retransmission timer fire first in nearly
#     every login (16-17 of 20). None is retransmitted on an idle machine;
#     the allowance is for a scheduler that stalls the agent loop or the
#     fabric past 200 ms on a loaded one, which the fix cannot prevent.
# Usage: test_agent_ssh_acks.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init_one agentsshack "$1" "$2"
pzt_paths "test_agent_ssh_acks.sh PZIPHOST PORTZEROD PZCLI" "${@:3}"
pzt_require opensm ping ip ssh ssh-keygen tshark
pzt_require_preload
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
SW=Leaf2
SWADDR=10.83.0.4
ai_switch "$SW" "$SWADDR"
HOSTADDR=10.83.0.100
LOGINS=20
HOST_PID=
CAPTURE=
AI_PID_VARS=(CAPTURE) # stopped on exit before the host and the agent (ai_cleanup)

ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"
# Default client: Nagle on during the key exchange, as every OpenSSH login.
SSHOPT=(-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
    -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=10 -i "$WORK/admin_key")
login() { in_ns ssh "${SSHOPT[@]}" "admin@$SWADDR" show version 2>&1; }

fl_start_fabric --agent "$SW" "$NET" || exit 1
AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o "state_dir=$WORK/state" -o "ssh_authorized_keys=$WORK/admin_keys")
start_agent "$SW"
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "${AGENT[$SW]}"
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined "$SW"
fl_start_host Hca3 "$HOSTADDR/24"
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"
check "a first login (host key made, ARP resolved)" grep -q "^portzero " <<< "$(login)"

count() { tshark -r "$WORK/ssh.pcapng" -n -Y "$1" 2> /dev/null | wc -l; }
# tshark says "Capturing" before dumpcap captures: a ping it wrote down is the sign.
capturing() { in_ns ping -c 1 -W 1 "$SWADDR" && [ "$(count icmp)" -gt 0 ]; }
in_ns tshark -i ib0 -n -w "$WORK/ssh.pcapng" -f "tcp port 22 or icmp" > "$WORK/tshark.out" 2>&1 &
CAPTURE=$!
check "tshark captures in the namespace" wait_until 30 capturing
ok=0
for _ in $(seq "$LOGINS"); do
    grep -q "^portzero " <<< "$(login)" && ok=$((ok + 1))
done
check_eq "$LOGINS logins print portzero" "$LOGINS" "$ok"
# dumpcap writes the file behind the logins: wait for the last FIN before stopping it.
captured() {
    [ "$(count "ip.src == $HOSTADDR && tcp.flags.syn == 1 && tcp.flags.ack == 0")" -ge "$LOGINS" ] &&
        [ "$(count "ip.src == $HOSTADDR && tcp.flags.fin == 1")" -ge "$LOGINS" ]
}
check "the capture holds the $LOGINS logins' SYNs and FINs" wait_until 30 captured
# tshark closes its file on SIGTERM (a background job of a script ignores SIGINT).
PZT_GRACE=20 stop_pid "$CAPTURE"
CAPTURE=
retrans=$(count "ip.src == $HOSTADDR && tcp.analysis.retransmission")
tshark -r "$WORK/ssh.pcapng" -n -Y "tcp.analysis.retransmission" > "$WORK/retrans.txt" 2> /dev/null
echo "client retransmissions in $LOGINS logins: $retrans"
check "at most 3 retransmissions from the client in $LOGINS logins (was 16-17)" test "$retrans" -le 3
[ "$retrans" = 0 ] || head -n 12 "$WORK/retrans.txt"
stop_pid "${AGENT[$SW]}"
check "portzerod exits 0 on SIGTERM" test "$STOP_RC" = 0
AGENT[$SW]=
fl_finish
