#!/bin/bash
# test_fabric_dgram.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL DGRAM_TOOL - port-0 UD
# datagrams between two switches of tests/integration/ft-2s4l.net.
#
# OpenSM (-R ftree --connect_roots) programs the LFTs and is stopped (a quiet
# fabric).  dgram_tool attaches as the port-0 stacks of Leaf1 and Leaf3 over
# "<sockname>:dgram" (board/sim datagram API); Leaf1 sends N datagrams to
# Leaf3's LID and QP.  Checked: every datagram arrives once, in order, with
# its payload, SLID, DLID, QPs, Q_Key and P_Key; a wrong Q_Key never
# arrives; perfquery -x of the spine port on the LFT route towards Leaf3
# moves by exactly N packets and N x the packet's words; tshark decodes the
# capture with N UD SEND_ONLY packets per link of the route and their DETH
# fields; malformed messages on the dgram socket are refused or ignored and
# pzfabric still answers smpquery afterwards; a node takes several stacks
# (QPs) up to its limit, and two QPs on Leaf1 with IPoIB's and the echo
# service's Q_Keys each receive only their own datagrams.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/fabric/fabric_lib.sh
source "$HERE/fabric_lib.sh"
fl_init dgram "${1:?usage: test_fabric_dgram.sh PZFABRIC PZFABRIC_CTL ... DGRAM_TOOL}" "${2:?}"
DGRAM_TOOL=$(abspath "${5:?}")
pzt_require opensm smpquery perfquery ibroute tshark
NET=$HERE/../integration/ft-2s4l.net
N=25
SIZE=200
QKEY=0x0b1b
UAT='uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'

dg() { "$DGRAM_TOOL" --sockname "$SOCK" "$@"; }

# pq FIELD LID PORT: a PortCountersExtended field, asked from Hca1.
pq() { diag Hca1 perfquery -x "$2" "$3" | sed -n "s/^$1:\.*\([0-9]*\)\$/\1/p" | head -1; }

fl_start_fabric --pcap "$WORK/cap.pcap" "$NET"
fl_start_opensm Hca1
check "OpenSM: SUBNET UP" fl_wait_up 60
fl_stop_opensm

# Hca1 hangs off Leaf1 port 3; Leaf1 port 1 goes to Spine1, whose port 3 is Leaf3.
LEAF1=$(diag Hca1 smpquery -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
LEAF3=$(diag Hca1 smpquery -D portinfo 0,1,1,3 0 | sed -n 's/^Lid:\.*//p')
check "LIDs of Leaf1 ($LEAF1) and Leaf3 ($LEAF3)" test -n "$LEAF1" -a -n "$LEAF3"
# The LFT route Leaf1 -> Leaf3: Leaf1's port for LEAF3 picks the spine.
UP=
while read -r lid port _; do
    [[ $lid == 0x* ]] && ((lid == LEAF3)) && UP=$((10#$port))
done < <(diag Hca1 ibroute "$LEAF1" "$LEAF3" "$LEAF3")
check "Leaf1 routes Leaf3 up through port 1 or 2 (got '$UP')" test "$UP" = 1 -o "$UP" = 2
SPINE_PATH="0,1,$UP"
SPINE=$(diag Hca1 smpquery -D portinfo "$SPINE_PATH" 0 | sed -n 's/^Lid:\.*//p')
check "spine LID ($SPINE)" test -n "$SPINE"

XPKTS0=$(pq PortXmitPkts "$SPINE" 3)
XDATA0=$(pq PortXmitData "$SPINE" 3)
UPKTS0=$(pq PortUnicastXmitPkts "$SPINE" 3)
HOPS0=$(status_value hops)

# The receiver first (it must be attached before anything is sent to it).
dg --node Leaf3 recv "$N" 20000 > "$WORK/recv.out" 2> "$WORK/recv.err" &
RECV_PID=$!
check "receiver attached" wait_file "$WORK/recv.out" 10 '^qpn ' "$RECV_PID"
read -r _ RQPN _ RLID < <(head -1 "$WORK/recv.out")
check_eq "receiver's LID is Leaf3's" "$LEAF3" "$RLID"
# A wrong Q_Key first: dropped by Leaf3's QP, never printed.
check "a datagram with a wrong Q_Key is posted" dg --node Leaf1 send "$LEAF3" "$RQPN" 1 "$SIZE" 0 0xffff 0x1234
dg --node Leaf1 send "$LEAF3" "$RQPN" "$N" "$SIZE" > "$WORK/send.out" 2>&1
read -r _ SQPN _ SLID < <(head -1 "$WORK/send.out")
check_eq "sender's LID is Leaf1's" "$LEAF1" "$SLID"
check "sender posted $N" grep -q "^sent $N\$" "$WORK/send.out"
rc=0
wait "$RECV_PID" || rc=$?
check_eq "receiver got $N datagrams" 0 "$rc"
grep '^seq ' "$WORK/recv.out" > "$WORK/recv.lines" || true
check_eq "$N lines" "$N" "$(wc -l < "$WORK/recv.lines")"
printf -v want_tail 'slid %u dlid %u sl 0 src_qp %s dst_qp %s qkey 0x%08x pkey 0xffff len %u grh 0 payload ok' \
    "$LEAF1" "$LEAF3" "$SQPN" "$RQPN" "$QKEY" "$SIZE"
bad=0
for ((i = 0; i < N; i++)); do
    line=$(sed -n "$((i + 1))p" "$WORK/recv.lines")
    [ "$line" = "seq $i $want_tail" ] || { bad=$((bad + 1)); echo "     got: $line"; }
done
check_eq "every datagram in order with its fields ($want_tail)" 0 "$bad"

# Exactly N + 1 datagrams crossed the spine's port 3 (the wrong Q_Key one too: it was dropped at Leaf3).
WORDS=$(((28 + SIZE + (4 - SIZE % 4) % 4 + 4) / 4))
check_eq "spine port 3 PortXmitPkts +$((N + 1))" $((XPKTS0 + N + 1)) "$(pq PortXmitPkts "$SPINE" 3)"
check_eq "spine port 3 PortUnicastXmitPkts +$((N + 1))" $((UPKTS0 + N + 1)) \
    "$(pq PortUnicastXmitPkts "$SPINE" 3)"
check_eq "spine port 3 PortXmitData +$((N + 1)) x $WORDS words" $((XDATA0 + (N + 1) * WORDS)) \
    "$(pq PortXmitData "$SPINE" 3)"
check "link hops grew by at least 2 x $((N + 1))" test "$(status_value hops)" -ge $((HOPS0 + 2 * (N + 1)))

# Malformed messages on the datagram socket; pzfabric survives them.
check "abuse of the dgram socket refused as expected" dg --node Spine1 abuse
check "pzfabric still runs" kill -0 "$FABRIC_PID"
check_eq "status: 1 datagram dropped for its Q_Key" 1 "$(status_value dgram-qkey-dropped)"
check_eq "status: $N delivered" "$N" "$(status_value dgram-delivered)"
check "status: malformed messages counted" test "$(status_value dgram-malformed)" -ge 4
check "status: refused sends counted" test "$(status_value dgram-refused)" -ge 4
check "pzfabric still answers smpquery" diag Hca2 smpquery nodedesc "$LEAF3"
check "the bad messages were logged" grep -q 'datagram socket (Spine1)' "$WORK/fabric.err"
check "Spine1 is free again after the abuse connection closed" \
    wait_until 5 dg --node Spine1 send "$LEAF3" "$RQPN" 1
check "a datagram with a GRH is posted" dg --node Leaf1 send "$LEAF3" "$RQPN" 1 "$SIZE" 2 0xffff $QKEY grh

# Two QPs on one node (two connections to Leaf1), IPoIB's Q_Key and the echo
# service's: each receives only the datagrams for its QP with its Q_Key.
QKEY_ECHO=0x505a0001
QDROP0=$(status_value dgram-qkey-dropped)
dg --node Leaf1 --qkey $QKEY recv 2 20000 > "$WORK/qp_ip.out" 2>&1 &
QP_IP_PID=$!
dg --node Leaf1 --qkey $QKEY_ECHO recv 2 20000 > "$WORK/qp_echo.out" 2>&1 &
QP_ECHO_PID=$!
check "first QP on Leaf1 attached" wait_file "$WORK/qp_ip.out" 10 '^qpn ' "$QP_IP_PID"
check "second QP on Leaf1 attached" wait_file "$WORK/qp_echo.out" 10 '^qpn ' "$QP_ECHO_PID"
read -r _ IPQPN _ < <(head -1 "$WORK/qp_ip.out")
read -r _ ECHOQPN _ < <(head -1 "$WORK/qp_echo.out")
check "... with QP numbers of their own ($IPQPN, $ECHOQPN)" test "$IPQPN" != "$ECHOQPN"
# Crossed Q_Keys first: dropped (a receiver that printed them would fail below).
check "crossed Q_Keys posted" dg --node Leaf3 send "$LEAF1" "$IPQPN" 1 64 0 0xffff $QKEY_ECHO
check "... both ways" dg --node Leaf3 send "$LEAF1" "$ECHOQPN" 1 64 0 0xffff $QKEY
check "2 to the first QP" dg --node Leaf3 send "$LEAF1" "$IPQPN" 2 64 0 0xffff $QKEY
check "2 to the second QP" dg --node Leaf3 send "$LEAF1" "$ECHOQPN" 2 64 0 0xffff $QKEY_ECHO
rc=0
wait "$QP_IP_PID" || rc=$?
check_eq "first QP received 2" 0 "$rc"
rc=0
wait "$QP_ECHO_PID" || rc=$?
check_eq "second QP received 2" 0 "$rc"
check_eq "... each its own: QP and Q_Key (first)" 2 \
    "$(grep -c "^seq [01] .* dst_qp $IPQPN qkey $(printf 0x%08x $QKEY) .* payload ok" "$WORK/qp_ip.out")"
check_eq "... each its own: QP and Q_Key (second)" 2 \
    "$(grep -c "^seq [01] .* dst_qp $ECHOQPN qkey $(printf 0x%08x $QKEY_ECHO) .* payload ok" "$WORK/qp_echo.out")"
check_eq "status: the 2 crossed ones dropped for their Q_Key" $((QDROP0 + 2)) \
    "$(status_value dgram-qkey-dropped)"
check_eq "captured as many packets as link hops" "$(status_value hops)" "$(status_value captured)"
fl_stop_fabric
check_eq "pzfabric exits 0" 0 "$FABRIC_RC"

# The capture: the datagrams as UD SEND_ONLY packets with their DETH.
cp "$WORK/cap.pcap" "$WORK/user0.pcap"
printf '\223' | dd of="$WORK/user0.pcap" bs=1 seek=20 conv=notrunc status=none
ts() { tshark -r "$WORK/user0.pcap" -o "$UAT" "$@" 2> /dev/null; }
FILTER="infiniband.lrh.lnh == 2 && infiniband.bth.opcode == 0x64 && infiniband.deth.q_key == $QKEY && infiniband.lrh.dlid == $LEAF3"
ts -Y "$FILTER" -T fields -e infiniband.lrh.slid -e infiniband.bth.destqp -e infiniband.deth.srcqp \
    -e infiniband.grh.paylen > "$WORK/dgram.fields"
# Leaf1 -> spine and spine -> Leaf3: two links, N datagrams each (+ the Spine1 one after the abuse).
got=$(grep -c . "$WORK/dgram.fields" || true)
check "tshark finds the $N datagrams on both links (got $got)" test "$got" -ge $((2 * N))
from_leaf1=0
wrong_qp=0
while read -r slid dqp sqp _; do
    ((slid == LEAF1)) || continue
    from_leaf1=$((from_leaf1 + 1))
    ((dqp == RQPN && sqp == SQPN)) || wrong_qp=$((wrong_qp + 1))
done < "$WORK/dgram.fields"
check_eq "$((2 * N)) of them from Leaf1" $((2 * N)) "$from_leaf1"
check_eq "every one from Leaf1's QP to Leaf3's" 0 "$wrong_qp"
check "the wrong Q_Key datagram is in the capture too" \
    test -n "$(ts -Y 'infiniband.deth.q_key == 0x1234')"
check_eq "the GRH datagram on both links: PayLen, DGID, SL 2" \
    "$(printf '%s\n' "$((12 + 8 + SIZE + 4))	fe80::1234	2" "$((12 + 8 + SIZE + 4))	fe80::1234	2")" \
    "$(ts -Y 'infiniband.lrh.lnh == 3 && infiniband.bth.opcode == 0x64' -T fields \
        -e infiniband.grh.paylen -e infiniband.grh.dgid -e infiniband.lrh.sl)"
check "no packet flagged malformed" test -z "$(ts -Y _ws.malformed)"
check "no expert info" test -z "$(ts -q -z expert | grep -v '^=*$' || true)"
fl_finish
