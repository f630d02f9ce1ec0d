#!/bin/bash
# test_fabric_pcap.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL - pzfabric --pcap.
#
# For each capture format (pcap: LINKTYPE_INFINIBAND, the default; erf: ERF
# records): pzfabric --pcap on ibsim's net.2sw2path4hca, OpenSM to SUBNET UP,
# a LID-routed smpquery and an saquery (GMPs on QP1), then OpenSM stops and
# pzfabric with it.  tshark must decode the capture: as many packets as
# pzfabric counted link hops, NodeInfo, PortInfo and LinearForwardingTable
# SMPs among them, the LID-routed query to the switch's LID, SA packets on
# QP1 with P_Key 0xFFFF, and nothing malformed, no expert info.
#
# tshark (4.0) cannot open pcap files of link type 247: the test reads a copy
# with link type USER0 (147) and a user DLT entry for the "infiniband"
# dissector, the command fabric/README.md documents.  ERF files are read as
# they are.
set -euo pipefail

# shellcheck source=tests/fabric/fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
fl_init pcap "${1:?usage: test_fabric_pcap.sh PZFABRIC PZFABRIC_CTL ...}" "${2:?}"
pzt_require opensm smpquery saquery tshark
fl_example_net net.2sw2path4hca
UAT='uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'

# le32 FILE OFFSET: the 4 little-endian bytes at OFFSET, as a number.
le32() { od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '; }

# ts FORMAT ARG...: tshark on the capture of FORMAT ("running as root" note dropped).
ts() {
    local fmt=$1
    shift
    if [ "$fmt" = pcap ]; then
        tshark -r "$WORK/user0.pcap" -o "$UAT" "$@" 2> /dev/null
    else
        tshark -r "$WORK/cap.erf" "$@" 2> /dev/null
    fi
}

# capture_run FORMAT: pzfabric with the capture, OpenSM, a few diags; sets HOPS.
capture_run() {
    local fmt=$1
    fl_start_fabric --pcap "$WORK/cap.$fmt" --pcap-format "$fmt" "$NET"
    check "$fmt: status names the capture" test "$(status_value capture)" = "$WORK/cap.$fmt"
    fl_start_opensm Hca1
    check "$fmt: OpenSM: SUBNET UP" fl_wait_up 60
    SW1=$(diag Hca1 smpquery -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
    check "$fmt: smpquery nodedesc $SW1 (LID-routed)" diag Hca2 smpquery nodedesc "$SW1"
    check "$fmt: saquery (SA, QP1)" diag Hca2 saquery -s
    fl_stop_opensm
    HOPS=$(status_value hops)
    check_eq "$fmt: captured as many packets as link hops" "$HOPS" "$(status_value captured)"
    fl_stop_fabric
    check_eq "$fmt: pzfabric exits 0" 0 "$FABRIC_RC"
}

# decode_checks FORMAT: what tshark must find in the capture.
decode_checks() {
    local fmt=$1
    ts "$fmt" > "$WORK/$fmt.txt"
    check_eq "$fmt: tshark reads every packet" "$HOPS" "$(wc -l < "$WORK/$fmt.txt")"
    check "$fmt: more than 100 packets" test "$HOPS" -gt 100
    ts "$fmt" -T fields -e infiniband.mad.mgmtclass -e infiniband.mad.attributeid \
        > "$WORK/$fmt.attrs"
    check "$fmt: NodeInfo SMPs" grep -qE '^0x81[[:space:]]+0x0011$' "$WORK/$fmt.attrs"
    check "$fmt: PortInfo SMPs" grep -qE '^0x81[[:space:]]+0x0015$' "$WORK/$fmt.attrs"
    check "$fmt: LinearForwardingTable SMPs" grep -qE '[[:space:]]0x0019$' "$WORK/$fmt.attrs"
    check "$fmt: SubnGet(NodeInfo) in the summary" grep -q 'SubnGet(NodeInfo)' "$WORK/$fmt.txt"
    check "$fmt: SubnSet(LinearForwardingTable) in the summary" \
        grep -q 'SubnSet(LinearForwardingTable)' "$WORK/$fmt.txt"
    check "$fmt: LID-routed NodeDescription to the switch's LID" \
        test -n "$(ts "$fmt" -Y "infiniband.lrh.dlid == $SW1 && infiniband.mad.mgmtclass == 0x01 && infiniband.mad.attributeid == 0x0010")"
    check "$fmt: SA packets on QP1 with P_Key 0xffff" \
        test -n "$(ts "$fmt" -Y 'infiniband.mad.mgmtclass == 0x03 && infiniband.bth.destqp == 1 && infiniband.bth.p_key == 0xffff')"
    check "$fmt: SMPs on VL15" \
        test -z "$(ts "$fmt" -Y 'infiniband.bth.destqp == 0 && infiniband.lrh.vl != 15')"
    check "$fmt: no packet flagged malformed" test "$(grep -ci malformed "$WORK/$fmt.txt" || true)" = 0
    check "$fmt: no _ws.malformed" test -z "$(ts "$fmt" -Y _ws.malformed)"
    check "$fmt: no expert info" test -z "$(ts "$fmt" -q -z expert | grep -v '^=*$' || true)"
}

capture_run pcap
check "pcap: link type 247 (LINKTYPE_INFINIBAND)" test "$(le32 "$WORK/cap.pcap" 20)" = 247
check "pcap: nanosecond pcap magic" test "$(le32 "$WORK/cap.pcap" 0)" = $((0xa1b23c4d))
cp "$WORK/cap.pcap" "$WORK/user0.pcap"
printf '\223' | dd of="$WORK/user0.pcap" bs=1 seek=20 conv=notrunc status=none
decode_checks pcap

capture_run erf
check "erf: first record has type 21 (InfiniBand)" \
    test "$(od -An -tu1 -j 8 -N1 "$WORK/cap.erf" | tr -d ' ')" = 21
decode_checks erf

rc=0
"$PZFABRIC" --pcap /nonexistent/dir/x.pcap "$NET" > /dev/null 2> "$WORK/bad.err" || rc=$?
check "unwritable --pcap: exit status 2" test "$rc" = 2
check "unwritable --pcap: says which file" grep -q "/nonexistent/dir/x.pcap" "$WORK/bad.err"
rc=0
"$PZFABRIC" --pcap "$WORK/x" --pcap-format pcapng "$NET" > /dev/null 2> "$WORK/bad.err" || rc=$?
check "unknown --pcap-format: exit status 2" test "$rc" = 2
fl_finish
