#!/bin/bash
# test_agent_dgram.sh PZFABRIC PZFABRIC_CTL PORTZEROD ECHO_TOOL NETFILE - portzerod's
# port-0 datagram stack over board/sim and its switch-to-switch echo service
# (traffic/pz_echo.h), on tests/integration/ft-2s4l.net with pzfabric
# --agent Spine1 --agent Leaf3 and two portzerods (board = sim, monitor off
# so that the agents send nothing of their own).
#
# OpenSM (-R ftree --connect_roots) brings the subnet up and is stopped (a
# quiet fabric).  echo_tool, attached as the port-0 stack of Leaf1 (served
# in-process), runs the agent's own ping code (pz_echo_ping_start) against
# the agents.  Checked:
#  (a) N requests to Spine1's agent (LID from ibnetdiscover, QPN from its
#      log line) come back as N replies: sequence numbers, length/padding,
#      SLID = Spine1's LID, source QP = the agent's QPN, the service's Q_Key;
#      the same through the spine to Leaf3's agent;
#  (b) perfquery -x of Leaf1 port 1 (the cable to Spine1) moves by exactly
#      N packets and N x the packet's words each way;
#  (c) malformed echo datagrams are counted by the agent (debug log) and
#      never answered; the agent still answers smpquery;
#  (d) killing the agent releases Spine1's datagram stack (another stack can
#      attach to Spine1), and a restarted portzerod attaches again.
# Debian's libumad2sim aborts in its atexit handler after SIGTERM: the
# agents' exit status is not checked.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/fabric/fabric_lib.sh
source "$HERE/../fabric/fabric_lib.sh"
PORTZEROD=$(abspath "${3:?usage: test_agent_dgram.sh PZFABRIC PZFABRIC_CTL PORTZEROD ECHO_TOOL NET}")
ECHO_TOOL=$(abspath "${4:?}")
NET=$(abspath "${5:?}")
fl_init agentdgram "$1" "$2"
pzt_require opensm smpquery perfquery ibnetdiscover
N=20
SIZE=120
QKEY=0x505a0001
AGENT_PIDS=()

# Stop the agents on any exit, before fabric_lib's cleanup stops the fabric.
agents_cleanup() {
    local pid
    for pid in "${AGENT_PIDS[@]}"; do stop_pid "$pid" 2> /dev/null; done
    AGENT_PIDS=()
}
trap 'rc=$?; agents_cleanup; (exit $rc); fl_cleanup' EXIT

# start_agent NODE TAG: portzerod taking over NODE, logs in $WORK/TAG.{out,err}
# (reach = off: its probes and SA requests would move the exact counts).
start_agent() {
    mkdir -p "$WORK/$2"
    (cd "$WORK/$2" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$1 IBSIM_SOCKNAME=$SOCK \
        exec "$PORTZEROD" -o board=sim -o monitor=off -o reach=off -vvv > "$WORK/$2.out" \
        2> "$WORK/$2.err" < /dev/null) &
    AGENT_PIDS+=("$!")
    LAST_AGENT=$!
}

# agent_qpn TAG: the QPN the agent logged.
agent_qpn() { sed -n 's/.*port-0 datagrams: QPN \(0x[0-9a-f]*\) Q_Key.*/\1/p' "$WORK/$1.err" | tail -1; }

spine_answers() { diag Hca1 smpquery nodedesc "$SPINE" | grep -q 'Node Description:\.*Spine1'; }

et() { "$ECHO_TOOL" --sockname "$SOCK" --node "$@"; }

# pq FIELD LID PORT: a PortCountersExtended field, asked from Hca1 (Leaf1 port 3).
pq() { diag Hca1 perfquery -x "$2" "$3" | sed -n "s/^$1:\.*\([0-9]*\)\$/\1/p" | head -1; }

# check_replies FILE COUNT SLID SRC_QP FIRST_SEQ: COUNT reply lines, in
# sequence order from FIRST_SEQ, with the right SLID, QP, Q_Key and length.
check_replies() {
    local file=$1 count=$2 slid=$3 qp=$4 seq=$5 bad=0 line want
    [ "$(grep -c '^reply ' "$file")" = "$count" ] || return 1
    while read -r line; do
        printf -v want 'reply seq %u slid %u sl 0 pkey 0xffff qkey %s src_qp %s len %u' \
            "$seq" "$slid" "$QKEY" "$qp" "$SIZE"
        [ "${line% rtt_ns *}" = "$want" ] || { bad=1; echo "     got:  $line" >&2; echo "     want: $want" >&2; }
        seq=$((seq + 1))
    done < <(grep '^reply ' "$file")
    return $bad
}

fl_start_fabric --agent Spine1 --agent Leaf3 "$NET"
start_agent Spine1 spine
SPINE_AGENT=$LAST_AGENT
start_agent Leaf3 leaf3
check "portzerod (Spine1) ready" wait_file "$WORK/spine.out" 20 '^ready$' "$SPINE_AGENT"
check "portzerod (Leaf3) ready" wait_file "$WORK/leaf3.out" 20 '^ready$' "$LAST_AGENT"
SPINE_QPN=$(agent_qpn spine)
LEAF3_QPN=$(agent_qpn leaf3)
check "Spine1's agent logged its QPN ($SPINE_QPN) and Q_Key" \
    grep -q "port-0 datagrams: QPN $SPINE_QPN Q_Key $QKEY" "$WORK/spine.err"
check "Leaf3's agent logged its QPN ($LEAF3_QPN)" test -n "$LEAF3_QPN"
check "pzfabric: Spine1's stack attached with the agent's Q_Key" \
    grep -q "datagram stack attached to Spine1 (QP $SPINE_QPN, Q_Key $QKEY)" "$WORK/fabric.err"

fl_start_opensm Hca1
check "OpenSM: SUBNET UP" fl_wait_up 60
fl_switch_lids Hca1 SPINE=Spine1 LEAF1=Leaf1 LEAF3=Leaf3
fl_stop_opensm_quiet

# --- (a) + (b): N echoes Leaf1 -> Spine1, counted on the cable between them.
XP0=$(pq PortXmitPkts "$LEAF1" 1)
RP0=$(pq PortRcvPkts "$LEAF1" 1)
XD0=$(pq PortXmitData "$LEAF1" 1)
RD0=$(pq PortRcvData "$LEAF1" 1)
rc=0
et Leaf1 ping "$SPINE" "$SPINE_QPN" "$N" "$SIZE" 15000 > ping1.out 2> ping1.err || rc=$?
check_eq "echo_tool: $N replies from Spine1's agent" 0 "$rc"
check_eq "echo_tool summary" "sent $N received $N malformed 0 stray 0" "$(tail -1 ping1.out)"
check "every reply: in order, SLID $SPINE, QP $SPINE_QPN, Q_Key $QKEY, $SIZE bytes" \
    check_replies ping1.out "$N" "$SPINE" "$SPINE_QPN" 0
WORDS=$(((28 + SIZE + (4 - SIZE % 4) % 4 + 4) / 4))
check_eq "Leaf1 port 1 PortXmitPkts +$N (requests)" $((XP0 + N)) "$(pq PortXmitPkts "$LEAF1" 1)"
check_eq "Leaf1 port 1 PortRcvPkts +$N (replies)" $((RP0 + N)) "$(pq PortRcvPkts "$LEAF1" 1)"
check_eq "Leaf1 port 1 PortXmitData +$N x $WORDS words" $((XD0 + N * WORDS)) \
    "$(pq PortXmitData "$LEAF1" 1)"
check_eq "Leaf1 port 1 PortRcvData +$N x $WORDS words" $((RD0 + N * WORDS)) \
    "$(pq PortRcvData "$LEAF1" 1)"
check "Spine1's agent counted $N requests and replies" \
    grep -q "echo: requests $N replies-sent $N malformed 0 " "$WORK/spine.err"

# Through the spine to the other agent (two hops each way).
rc=0
et Leaf1 ping "$LEAF3" "$LEAF3_QPN" 5 "$SIZE" 15000 > ping2.out 2> ping2.err || rc=$?
check_eq "echo_tool: 5 replies from Leaf3's agent" 0 "$rc"
check "those replies: SLID $LEAF3, QP $LEAF3_QPN" check_replies ping2.out 5 "$LEAF3" "$LEAF3_QPN" 0

# --- (c): malformed echo datagrams: counted, not answered; SMPs still served.
rc=0
et Leaf1 bad "$SPINE" "$SPINE_QPN" 1500 > bad.out 2> bad.err || rc=$?
check_eq "malformed datagrams: none answered" "sent 6 answers 0" "$(tail -1 bad.out)"
check "Spine1's agent counted 5 malformed and 1 stray reply" \
    wait_until 5 grep -q "echo: requests $N replies-sent $N malformed 5 replies 0 stray 1 " \
    "$WORK/spine.err"
check_eq "... each malformed one logged" 5 "$(grep -c 'echo: dropped a malformed datagram' "$WORK/spine.err")"
check "Spine1's agent still runs" kill -0 "$SPINE_AGENT"
check "Spine1's agent still answers smpquery" spine_answers
rc=0
et Leaf1 ping "$SPINE" "$SPINE_QPN" 3 "$SIZE" 15000 > ping3.out 2>&1 || rc=$?
check_eq "and still echoes afterwards" 0 "$rc"

# --- (d): the stack is released with the process and taken again on restart.
stop_pid "$SPINE_AGENT" 2> /dev/null # its exit status is umad2sim's (see above)
check "pzfabric: Spine1's stack detached" wait_file "$WORK/fabric.err" 5 'datagram stack of Spine1 detached'
# Another stack can attach now; a node takes several (one QP each): a new
# agent attaches its own QP next to it.
et Spine1 bad 1 2 4000 > hold.out 2> hold.err &
HOLD=$!
check "another stack attached to Spine1" wait_file hold.out 5 '^qpn ' "$HOLD"
start_agent Spine1 spine2
check "portzerod (Spine1, next to another stack) ready" wait_file "$WORK/spine2.out" 20 '^ready$' "$LAST_AGENT"
HOLD_QPN=$(sed -n 's/^qpn \(0x[0-9a-f]*\).*/\1/p' hold.out)
check "... attached a QP of its own next to it" \
    grep -q "port-0 datagrams: QPN 0x[0-9a-f]* Q_Key $QKEY" "$WORK/spine2.err"
SPINE2_QPN=$(agent_qpn spine2)
check "... whose QPN ($SPINE2_QPN) is not the other stack's ($HOLD_QPN)" \
    test -n "$HOLD_QPN" -a -n "$SPINE2_QPN" -a "$SPINE2_QPN" != "$HOLD_QPN"
check "... and serves SMPs" spine_answers
wait "$HOLD" || true
stop_pid "$LAST_AGENT" 2> /dev/null
check "pzfabric: that agent is gone" wait_file "$WORK/fabric.err" 5 'Spine1 lost its agent'
start_agent Spine1 spine3
check "restarted portzerod (Spine1) ready" wait_file "$WORK/spine3.out" 20 '^ready$' "$LAST_AGENT"
check "restarted portzerod attached its datagram stack again" \
    grep -q "port-0 datagrams: QPN 0x[0-9a-f]* Q_Key $QKEY" "$WORK/spine3.err"
SPINE_QPN=$(agent_qpn spine3)
rc=0
et Leaf1 ping "$SPINE" "$SPINE_QPN" 3 "$SIZE" 15000 > ping4.out 2>&1 || rc=$?
check_eq "the restarted agent echoes" 0 "$rc"
check "a second stack on Spine1 attaches next to the agent" et Spine1 bad 1 2 0
agents_cleanup
check "pzfabric still runs" kill -0 "$FABRIC_PID"
fl_stop_fabric
check_eq "pzfabric exits 0" 0 "$FABRIC_RC"
fl_finish
