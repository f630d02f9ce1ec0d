#!/bin/bash
# test_fabric_mcast.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL - multicast.
#
# On ibsim's net.2sw2path4hca with OpenSM and a partitions file that makes
# the IPoIB broadcast group (Default=0x7fff,ipoib): before anyone joins,
# the switches have no MFT entries; Hca1, Hca2 and Hca3 join the group
# through the SA (mcast_tool join, an MCMemberRecord Set), OpenSM programs
# the MFTs (ibroute -M: Switch1 ports 1 2 3, Switch2 ports 1 3).  A packet
# Hca1 sends to the MLID reaches Hca2 and Hca3 once each, not Hca4 and not
# Hca1 again (the ports' multicast counters, pzfabric's mcast-delivered);
# one from Hca4, which is no member, reaches the three members.
set -euo pipefail

# shellcheck source=tests/fabric/fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
MCAST_TOOL=$(abspath "${4:?usage: test_fabric_mcast.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL}")
fl_init mcast "$1" "$2"
pzt_require opensm smpquery ibroute
fl_example_net net.2sw2path4hca
BCAST_MGID=ff12:401b:ffff::ffff:ffff # IPoIB broadcast group of P_Key 0xffff

# mft_ports LID MLID: the ports ibroute -M LID marks for MLID ("1 2 3"), or "".
mft_ports() {
    diag Hca2 ibroute -M "$1" | awk -v mlid="$2" '
        /Ports:/ { for (i = 1; i <= length($0); i++) {
                       c = substr($0, i, 1)
                       if (c ~ /[0-9]/ && (i == length($0) || substr($0, i + 1, 1) == " ")) {
                           j = i; while (j > 1 && substr($0, j - 1, 1) ~ /[0-9]/) j--
                           col[i] = substr($0, j, i - j + 1) } } }
        $1 == mlid { s = ""
                     for (i in col) if (substr($0, i, 1) == "x") s = s " " col[i]
                     print s }' | tr ' ' '\n' | sort -n | xargs
}

# mft_programmed LID: whether the switch has ports for MLID 0xc000.
mft_programmed() { [ -n "$(mft_ports "$1" 0xc000)" ]; }

# mcast NODE: "multicast_xmit_pkts multicast_rcv_pkts" of port 1 of a CA.
mcast() { echo "$(counter "$1" 1 multicast_xmit_pkts) $(counter "$1" 1 multicast_rcv_pkts)"; }

fl_start_fabric "$NET"
echo "Default=0x7fff,ipoib : ALL=full ;" > "$WORK/partitions.conf"
fl_start_opensm Hca1 -P "$WORK/partitions.conf"
check "OpenSM: SUBNET UP" fl_wait_up 60
SW1=$(diag Hca1 smpquery -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
SW2=$(diag Hca1 smpquery -D portinfo 0,1,3 0 | sed -n 's/^Lid:\.*//p')
check "the switches have LIDs" test -n "$SW1" -a -n "$SW2"
check_eq "no MFT entry before anyone joins" "" "$(mft_ports "$SW1" 0xc000)"

for host in Hca1 Hca2 Hca3; do
    check_eq "$host joins $BCAST_MGID: MLID 0xc000" 0xc000 \
        "$(diag "$host" "$MCAST_TOOL" join "$BCAST_MGID")"
done
check "OpenSM programs Switch1's MFT" wait_until 20 mft_programmed "$SW1"
check_eq "Switch1 MFT 0xc000: Hca1, Hca3, Switch2" "1 2 3" "$(mft_ports "$SW1" 0xc000)"
check_eq "Switch2 MFT 0xc000: Hca2, Switch1" "1 3" "$(mft_ports "$SW2" 0xc000)"

delivered0=$(status_value mcast-delivered)
check "Hca1 sends to 0xc000" diag Hca1 "$MCAST_TOOL" send 0xc000
check_eq "Hca1: sent once, not received back" "1 0" "$(mcast Hca1)"
check_eq "Hca2: received once" "0 1" "$(mcast Hca2)"
check_eq "Hca3: received once" "0 1" "$(mcast Hca3)"
check_eq "Hca4 (no member): nothing" "0 0" "$(mcast Hca4)"
check_eq "Switch1 -> Switch2: one copy" 1 "$(counter Switch1 3 multicast_xmit_pkts)"
check_eq "Switch2 -> Switch1: none" 0 "$(counter Switch2 3 multicast_xmit_pkts)"
check_eq "status: 2 copies delivered" $((delivered0 + 2)) "$(status_value mcast-delivered)"

check "Hca4 (no member) sends to 0xc000" diag Hca4 "$MCAST_TOOL" send 0xc000
check_eq "Hca4's packet reaches Hca1, Hca2, Hca3" "1 2 2" \
    "$(counter Hca1 1 multicast_rcv_pkts) $(counter Hca2 1 multicast_rcv_pkts) $(counter Hca3 1 multicast_rcv_pkts)"
check_eq "status: 5 copies delivered in all" $((delivered0 + 5)) "$(status_value mcast-delivered)"
check_eq "Hca4 does not get its own packet" "1 0" "$(mcast Hca4)"

fl_stop_opensm
fl_stop_fabric
check_eq "pzfabric exits 0" 0 "$FABRIC_RC"
fl_finish
