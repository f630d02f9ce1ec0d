#!/bin/bash
# test_cc_diags.sh - the Congestion Control agent
# (pma/cc_*) of pzfabric's switches against ibccquery, ibccconfig and
# OpenSM's --congestion_control, values checked.
#
#   test_cc_diags.sh PZFABRIC PZFABRIC-CTL NETFILE
#
# 1. OpenSM with congestion_control TRUE and a SwitchCongestionSetting (and a
#    CA setting and table) in its config file: no ERR line in its log, and
#    ibccquery reads back exactly what it programmed into every switch.
# 2. OpenSM stopped (nothing else talks CC): ibccquery CP, CI, CK, CL, SS, SP
#    (ports below 32: ibccquery and ibccconfig disagree on the block size
#    above), TI (against the clock); ibccconfig SS, SP and CK, read back
#    exactly.
# Like every test's umad2sim clients, these run with libpzumad2sim.so
# (attach/) after umad2sim: the CongestionLog's last event slots are in the
# MAD bytes umad2sim alone drops.
set -uo pipefail

source "$(dirname "$0")/../fabric/fabric_lib.sh"
NET=$(abspath "${3:?usage: test_cc_diags.sh PZFABRIC PZFABRIC-CTL NETFILE}")
fl_init ccdiags "$1" "$2"
pzt_require opensm ibccquery ibccconfig ibnetdiscover

# cc OUT TOOL ARG...: ibccquery/ibccconfig from Hca2 into OUT.
cc() {
    local out=$1
    shift
    diag Hca2 "$@" -t 3000 > "$out" 2>&1
}

# val FIELD FILE [N]: the Nth (default first) "FIELD:....value" of FILE.
val() { sed -n "s/^$1:\.*\(.*\)\$/\1/p" "$2" | sed -n "${3:-1}p"; }

want() { check_eq "$1" "$4" "$(val "$3" "$2")"; } # want NAME FILE FIELD VALUE

# spval FILE PORT FIELD: FIELD of PORT's entry in "ibccquery SP LID" output.
spval() {
    awk -v p="$2" -v f="$3" '/^Port:/ { sub(/^[^:]*:\.*/, ""); cur = ($0 == p); next }
        cur && index($0, f ":") == 1 { sub(/^[^:]*:\.*/, ""); print; exit }' "$1"
}

# mod32 A B: (B - A) mod 2^32.
mod32() { echo $(((($2 - $1) % 4294967296 + 4294967296) % 4294967296)); }

# --- 1. OpenSM --congestion_control with a configuration.
opensm -c "$WORK/defaults.conf" > /dev/null 2>&1
VICTIM=0x0000000000000000000000000000000000000000000000000000000000000018
CREDIT=0x0000000000000000000000000000000000000000000000000000000000000006
sed -e 's/^congestion_control .*/congestion_control TRUE/' \
    -e 's/^cc_sw_cong_setting_control_map .*/cc_sw_cong_setting_control_map 0x1f/' \
    -e "s/^cc_sw_cong_setting_victim_mask .*/cc_sw_cong_setting_victim_mask $VICTIM/" \
    -e "s/^cc_sw_cong_setting_credit_mask .*/cc_sw_cong_setting_credit_mask $CREDIT/" \
    -e 's/^cc_sw_cong_setting_threshold .*/cc_sw_cong_setting_threshold 0x0c/' \
    -e 's/^cc_sw_cong_setting_packet_size .*/cc_sw_cong_setting_packet_size 4/' \
    -e 's/^cc_sw_cong_setting_credit_starvation_threshold .*/cc_sw_cong_setting_credit_starvation_threshold 0x05/' \
    -e 's/^cc_sw_cong_setting_credit_starvation_return_delay .*/cc_sw_cong_setting_credit_starvation_return_delay 2:300/' \
    -e 's/^cc_sw_cong_setting_marking_rate .*/cc_sw_cong_setting_marking_rate 11/' \
    -e 's/^cc_ca_cong_setting_port_control .*/cc_ca_cong_setting_port_control 0x0001/' \
    -e 's/^cc_ca_cong_setting_control_map .*/cc_ca_cong_setting_control_map 0x0001/' \
    -e 's/^cc_ca_cong_setting_ccti_timer 0 .*/cc_ca_cong_setting_ccti_timer 0 150/' \
    -e 's/^cc_ca_cong_setting_ccti_increase 0 .*/cc_ca_cong_setting_ccti_increase 0 2/' \
    -e 's/^cc_ca_cong_setting_trigger_threshold 0 .*/cc_ca_cong_setting_trigger_threshold 0 3/' \
    -e 's/^cc_cct .*/cc_cct 0:0,1:10,2:20,3:30/' \
    "$WORK/defaults.conf" > "$WORK/cc.conf"
check "OpenSM config has congestion_control TRUE" grep -q '^congestion_control TRUE' cc.conf

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1 -F "$WORK/cc.conf" --congestion_control
check "OpenSM (congestion_control): SUBNET UP" fl_wait_up 60
diag Hca2 ibnetdiscover > disc.txt 2>&1
discovered_lid() { sed -n "s/^\(Switch\|Ca\).*\"$1\".* lid \([0-9]*\) .*/\2/p" disc.txt | head -1; }
LEAF=$(discovered_lid Leaf1)
check "Leaf1's LID found" test -n "$LEAF"
HCA3=$(diag Hca3 smpquery -D portinfo 0 2> /dev/null | sed -n 's/^Lid:\.*//p')
check "Hca3's LID found" test -n "$HCA3"
sleep 2 # CC MADs follow the sweep
switches=0
for sw in Spine1 Spine2 Leaf1 Leaf2 Leaf3 Leaf4; do
    cc ss.txt ibccquery SS "$(discovered_lid $sw)"
    got="$(val Control_Map ss.txt) $(val Victim_Mask ss.txt) $(val Credit_Mask ss.txt)"
    got="$got $(val Threshold ss.txt) $(val Packet_Size ss.txt) $(val CS_Threshold ss.txt)"
    got="$got $(val CS_ReturnDelay ss.txt) $(val Marking_Rate ss.txt)"
    check_eq "OpenSM programmed $sw's SwitchCongestionSetting" \
        "0x0000001f ${VICTIM#0x} ${CREDIT#0x} 0x0c 4 0x05 0x812c 11" "$got"
    switches=$((switches + 1))
done
check_eq "all six switches checked" 6 "$switches"
cc cs.txt ibccquery CS "$HCA3"
want "OpenSM programmed Hca3's CACongestionSetting Control_Map" cs.txt Control_Map 0x0001
want "... Port_Control" cs.txt Port_Control 0x0001
want "... SL 0 CCTI_Timer" cs.txt CCTI_Timer 150
want "... SL 0 CCTI_Increase" cs.txt CCTI_Increase 2
want "... SL 0 Trigger_Threshold" cs.txt Trigger_Threshold 3
cc ct.txt ibccquery CT "$HCA3"
want "OpenSM programmed Hca3's CongestionControlTable (CCTI_Limit 3)" ct.txt CCTI_Limit 3
check_eq "OpenSM logged no error (ERR lines)" 0 "$(grep -c 'ERR' sm/osm.log)"
fl_stop_opensm

# --- 2. ibccquery and ibccconfig against Leaf1, nothing else talking CC.
cc cp.txt ibccquery CP "$LEAF"
want "CP: ClassVersion 2" cp.txt ClassVersion 2
want "CP: BaseVersion 1" cp.txt BaseVersion 1
cc ci.txt ibccquery CI "$LEAF"
want "CI: CongestionInfo 0 (no credit starvation)" ci.txt CongestionInfo 0x0000
want "CI: ControlTableCap 0 on a switch" ci.txt ControlTableCap 0
cc ck.txt ibccquery CK "$LEAF"
want "CK: CC_Key 0" ck.txt CC_Key 0x0000000000000000
want "CK: CC_KeyViolations 0" ck.txt CC_KeyViolations 0
# TI twice, 1 s apart; libpzumad2sim.so logs when each answer arrived
# (PZ_UMAD2SIM_MAD_LOG), so the board time between the two TimeStamps can be
# compared with the real time between them, whatever the load.
export PZ_UMAD2SIM_MAD_LOG=$WORK/ti1.log
cc t1.txt ibccquery TI "$LEAF"
unset PZ_UMAD2SIM_MAD_LOG
cc cl.txt ibccquery CL "$LEAF"
sleep 1
export PZ_UMAD2SIM_MAD_LOG=$WORK/ti2.log
cc t2.txt ibccquery TI "$LEAF"
unset PZ_UMAD2SIM_MAD_LOG
want "CL: LogType 1 (switch)" cl.txt LogType 1
want "CL: LogEventsCounter 0 (the fabric marks nothing)" cl.txt LogEventsCounter 0
want "CL: CongestionFlags 0" cl.txt CongestionFlags 0x00
want "CL: PortMap empty" cl.txt PortMap "$(printf '0%.0s' {1..64})"
check "CL: no event listed (all 15 slots empty; MAD bytes 224-255 intact)" \
    fails grep -q '^SLID:' cl.txt
ti1=$(val Timestamp t1.txt)
ti2=$(val Timestamp t2.txt)
cur=$(val CurrentTimeStamp cl.txt)
check "TI: answered twice" test -n "$ti1" -a -n "$ti2"
check "CL: CurrentTimeStamp between the two TI reads" \
    test "$(mod32 "$ti1" "$cur")" -le "$(mod32 "$ti1" "$ti2")"
# TimeStamp counts 1.024 us units.
d=$(mod32 "$ti1" "$ti2")
real=$(awk -v a="$(tail -n 1 ti1.log)" -v b="$(tail -n 1 ti2.log)" 'BEGIN { printf "%.0f", (b - a) * 1e6 / 1.024 }')
echo "     TI: $d units between the reads, $real by the clock"
check "TI: advances with real time (within 2%)" \
    awk -v d="$d" -v r="$real" 'BEGIN { x = (d - r) / r; exit !(r > 900000 && x < 0.02 && x > -0.02) }'

# SwitchCongestionSetting: Set, then read back.
cc set.txt ibccconfig SS "$LEAF" 0x1F 0x1E 0x6 0xA 8 0x3 1:100 7
cc ss.txt ibccquery SS "$LEAF"
want "ibccconfig SS: Control_Map" ss.txt Control_Map 0x0000001f
want "ibccconfig SS: Victim_Mask" ss.txt Victim_Mask "$(printf '0%.0s' {1..62})1e"
want "ibccconfig SS: Credit_Mask" ss.txt Credit_Mask "$(printf '0%.0s' {1..63})6"
want "ibccconfig SS: Threshold" ss.txt Threshold 0x0a
want "ibccconfig SS: Packet_Size" ss.txt Packet_Size 8
want "ibccconfig SS: CS_Threshold" ss.txt CS_Threshold 0x03
want "ibccconfig SS: CS_ReturnDelay 1:100" ss.txt CS_ReturnDelay 0x4064
want "ibccconfig SS: Marking_Rate" ss.txt Marking_Rate 7
# Control_Map 0x4 applies only threshold and packet size.
cc set.txt ibccconfig SS "$LEAF" 0x4 0x0 0x0 0x2 5 0x0 0:0 0
cc ss.txt ibccquery SS "$LEAF"
want "ibccconfig SS map 0x4: Threshold applied" ss.txt Threshold 0x02
want "ibccconfig SS map 0x4: Packet_Size applied" ss.txt Packet_Size 5
want "ibccconfig SS map 0x4: Marking_Rate kept" ss.txt Marking_Rate 7
want "ibccconfig SS map 0x4: Victim_Mask kept" ss.txt Victim_Mask "$(printf '0%.0s' {1..62})1e"

# SwitchPortCongestionSetting, ports below 32.
cc set.txt ibccconfig SP "$LEAF" 3 1 0 0x9 16 42
cc set.txt ibccconfig SP "$LEAF" 1 1 1 0x2 0 300
cc sp3.txt ibccquery SP "$LEAF" 3
want "ibccconfig SP 3: Valid" sp3.txt Valid 1
want "ibccconfig SP 3: Control_Type" sp3.txt Control_Type 0
want "ibccconfig SP 3: Threshold" sp3.txt Threshold 0x09
want "ibccconfig SP 3: Packet_Size" sp3.txt Packet_Size 16
want "ibccconfig SP 3: Cong_Parm_Marking_Rate" sp3.txt Cong_Parm_Marking_Rate 42
cc sp.txt ibccquery SP "$LEAF"
check_eq "SP (all ports): port 1 Control_Type 1 (credit starvation)" 1 "$(spval sp.txt 1 Control_Type)"
check_eq "SP (all ports): port 1 Cong_Parm 300" 300 "$(spval sp.txt 1 Cong_Parm_Marking_Rate)"
check_eq "SP (all ports): port 3 Threshold 0x09" 0x09 "$(spval sp.txt 3 Threshold)"
check_eq "SP (all ports): port 2 untouched" "0 0x00 0" \
    "$(spval sp.txt 2 Valid) $(spval sp.txt 2 Threshold) $(spval sp.txt 2 Cong_Parm_Marking_Rate)"
check_eq "SP (all ports): port 4 untouched" 0 "$(spval sp.txt 4 Valid)"

# CongestionKeyInfo: a key with the protect bit set hides the agent from
# requests without it (they are dropped and counted as violations).
cc set.txt ibccconfig CK "$LEAF" 0x1234 1 0 0
cc ck.txt ibccquery -c 0x1234 CK "$LEAF"
want "ibccconfig CK: CC_Key set" ck.txt CC_Key 0x0000000000001234
want "ibccconfig CK: CC_KeyProtectBit set" ck.txt CC_KeyProtectBit 1
cc nokey.txt ibccquery CI "$LEAF"
check "CK: a request without the key gets no answer" fails grep -q '^# CongestionInfo' nokey.txt
cc ck.txt ibccquery -c 0x1234 CK "$LEAF"
check "CK: the violation was counted" test "$(val CC_KeyViolations ck.txt)" -ge 1
cc set.txt ibccconfig -c 0x1234 CK "$LEAF" 0 0 0 0
cc ci.txt ibccquery CI "$LEAF"
check "CK: key 0 again, requests without a key answered" grep -q '^# CongestionInfo' ci.txt

check "pzfabric still running" kill -0 "$FABRIC_PID"
fl_stop_fabric
check_eq "pzfabric exits 0 on SIGTERM" 0 "$FABRIC_RC"
fl_finish
