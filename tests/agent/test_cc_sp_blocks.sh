#!/bin/bash
# test_cc_sp_blocks.sh - SwitchPortCongestionSetting blocks of a 36-port
# switch against ibccconfig and ibccquery (issue 22 item 11).
#
#   test_cc_sp_blocks.sh PZFABRIC PZFABRIC-CTL NETFILE(ft-36port.net)
#
# The CC agent keeps IBA's (and OpenSM's, ib_sw_port_cong_setting_t) 32
# port entries per block: AttributeModifier b holds ports 32b..32b+31.
# The diags disagree with it and with each other: ibccquery reads block
# PORT/48 and prints entry PORT%48; ibccconfig Gets block PORT/32, edits
# entry PORT%32, then Sets block PORT/48.  For ports < 32 all agree.  For
# port 33, "ibccconfig SP LID 33 ..." exits 0 having written block 0 (ports
# 0-31) with block 1's entries and port 33's new values at entry 1: port 1
# changes, port 33 does not, and "ibccquery SP LID 33" prints entry 33 of
# block 0, past the 32 entries (zeros).  The switch does what the spec
# says with what it was sent.  No diag reads block 1 of a switch with fewer
# than 49 ports (ibccquery refuses "port 49"); tests/unit/test_cc_agent.c
# checks that block 1 entry 1 is port 33.
set -uo pipefail

source "$(dirname "$0")/../fabric/fabric_lib.sh"
NET=$(abspath "${3:?usage: test_cc_sp_blocks.sh PZFABRIC PZFABRIC-CTL NETFILE}")
fl_init ccsp "$1" "$2"
pzt_require opensm ibccquery ibccconfig ibnetdiscover

cc() { # cc OUT TOOL ARG...: a CC diag from host-1-2 into OUT
    local out=$1
    shift
    diag host-1-2 "$@" -t 3000 > "$out" 2>&1
}
# entry FILE FIELD: FIELD of the (one) entry "ibccquery SP LID PORT" printed.
entry() { sed -n "s/^$2:\.*//p" "$1" | head -n 1; }

fl_start_fabric "$NET" || exit 1
fl_start_opensm host-1-1
check "OpenSM: SUBNET UP" fl_wait_up 60
fl_switch_lids host-1-2 LEAF=leaf-2
fl_stop_opensm

cc set.txt ibccconfig SP "$LEAF" 33 1 0 0x9 16 42
check_eq "ibccconfig SP $LEAF 33 ...: exits 0" 0 "$?"
cc p1.txt ibccquery SP "$LEAF" 1
check_eq "... it wrote block 33/48 = 0: port 1 got port 33's values (Valid Threshold Packet_Size)" \
    "1 0x09 16" "$(entry p1.txt Valid) $(entry p1.txt Threshold) $(entry p1.txt Packet_Size)"
cc p33.txt ibccquery SP "$LEAF" 33
check_eq "ibccquery SP $LEAF 33 reads entry 33 of block 0: past the 32 entries, Valid 0" 0 \
    "$(entry p33.txt Valid)"

# Ports below 32: both tools agree with the switch.
cc set.txt ibccconfig SP "$LEAF" 5 1 1 0x3 8 300
cc p5.txt ibccquery SP "$LEAF" 5
check_eq "ibccconfig / ibccquery SP port 5: written and read back" "1 1 0x03 8 300" \
    "$(entry p5.txt Valid) $(entry p5.txt Control_Type) $(entry p5.txt Threshold) $(entry p5.txt Packet_Size) $(entry p5.txt Cong_Parm_Marking_Rate)"

fl_finish
