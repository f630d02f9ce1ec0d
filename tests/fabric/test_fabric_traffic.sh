#!/bin/bash
# test_fabric_traffic.sh PZFABRIC PZFABRIC_CTL - the traffic model with OpenSM
# and perfquery on tests/integration/ft-2s4l.net (2 spines, 4 leaves).
#
# A flow added before the SM runs is unrouted and becomes routed once
# OpenSM (-R ftree --connect_roots) has programmed LIDs and LFTs; its path
# in flow-list follows the LFTs.  perfquery -x at every switch port of the
# path measures PortXmitData x 4 / interval (3 s) within 2% of the flow's rate.
# ca-rate makes the destination CA sink slower than its link: the switch
# port facing it counts XmitWait at (1 - R/C) x 1e6 ticks/s (within 5%),
# the upstream ports count waits too, an unrelated port none.  A victim
# flow sharing the hot flow's ingress buffer on VL 0 is slowed to the hot
# flow's pace.  error-inject adds exactly COUNT to the counter perfquery
# shows.  Bad commands fail with status 1 and a clear message.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/fabric/fabric_lib.sh
source "$HERE/fabric_lib.sh"
NET="$HERE/../integration/ft-2s4l.net"
fl_init traffic "${1:?usage: test_fabric_traffic.sh PZFABRIC PZFABRIC_CTL}" "${2:?}"
pzt_require opensm perfquery smpquery ibswitches

# flow_field ID N: field N of flow ID's flow-list line.
flow_field() { ctl flow-list | awk -v id="$1" -v n="$2" '$1 == id { print $n }'; }

# routed ID: whether flow ID is routed.
routed() { [ "$(flow_field "$1" 7)" = routed ]; }

# pq_val FIELD ARG...: FIELD of perfquery ARG... (from Hca8).
pq_val() {
    local field=$1
    shift
    diag Hca8 perfquery "$@" | sed -n "s/^$field:\.*\([0-9]*\)\$/\1/p" | head -1
}

# now: wall-clock time in seconds, ns resolution.
now() { date +%s.%N; }

# timed_read VAR T FIELD ARG...: perfquery FIELD into VAR, and into T the time
# its last answer (the counters' MAD) reached the client, as libpzumad2sim.so
# records it (PZ_UMAD2SIM_MAD_LOG): pzfabric computes the counters as it
# answers, so T is within one delivery of the read, whatever perfquery's
# start-up costs on a loaded machine (the midpoint of marks around the whole
# run was off by tens of ms: a 2.03% reading against 2%).
timed_read() {
    local _val _log="$WORK/madtime.log" # names the caller's VAR and T cannot be
    rm -f "$_log"
    _val=$(PZ_UMAD2SIM_MAD_LOG=$_log pq_val "$3" "${@:4}")
    printf -v "$1" '%s' "$_val"
    printf -v "$2" '%s' "$(tail -n 1 "$_log" 2> /dev/null || now)"
}

# within NAME GOT WANT PERCENT: |GOT - WANT| <= PERCENT% of WANT.
within() {
    local verdict
    verdict=$(awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN {
        d = (g - w) / w; if (d < 0) d = -d; printf "%s %.5f", (d * 100 <= p) ? "ok" : "off", d }')
    echo "     $1: got $2, want $3: deviation ${verdict#* }"
    check "$1 (within $4%)" test "${verdict%% *}" = ok
}

# measure NAME WANT PERCENT SCALE SECONDS FIELD ARG...: perfquery FIELD ARG...
# twice, SECONDS apart; the change x SCALE per second must be within PERCENT%
# of WANT.  Timing noise of a loaded machine (a perfquery run takes 20-100
# ms) gets up to two more tries; a wrong rate fails all three.
measure() {
    local name=$1 want=$2 pct=$3 scale=$4 secs=$5 field=$6 try v0 v1 t0 t1 got
    shift 6
    for try in 1 2 3; do
        timed_read v0 t0 "$field" "$@"
        sleep "$secs"
        timed_read v1 t1 "$field" "$@"
        got=$(awk -v a="$v0" -v b="$v1" -v s="$t0" -v e="$t1" -v k="$scale" \
            'BEGIN { printf "%.0f", (b - a) * k / (e - s) }')
        awk -v g="$got" -v w="$want" -v p="$pct" 'BEGIN { d = (g - w) / w; exit !(d * d * 1e4 <= p * p) }' &&
            break
        echo "     $name: try $try got $got, want $want: again"
    done
    within "$name" "$got" "$want" "$pct"
}

# link_gbps LID PORT: the port's data rate in Gb/s from its PortInfo (8b/10b, 64b/66b).
link_gbps() {
    diag Hca8 smpquery portinfo "$1" "$2" | awk -F'[.:]+' '
        /^LinkWidthActive/ { w = $2 + 0 }
        /^LinkSpeedActive/ { s = $2 }
        /^LinkSpeedExtActive/ { e = $2 }
        END {
            lane = (s ~ /10/) ? 8 : (s ~ /5/) ? 4 : 2
            if (e ~ /25/) lane = 25; else if (e ~ /14/) lane = 14.0625 * 64 / 66
            print w * lane }'
}

fl_start_fabric "$NET"

# --- before the SM: unrouted flows, argument errors ----------------------------
id1=$(ctl flow-add Hca3 Hca5 25)
check_eq "flow-add prints the id" 1 "$id1"
check "before OpenSM the flow is unrouted" fails routed "$id1"
check_eq "unrouted: achieved 0" 0 "$(flow_field "$id1" 6)"
check "unrouted: says why" grep -q "no LID" <(ctl flow-list)
ctl_fails "flow-add from a switch" "Leaf1 is a switch" flow-add Leaf1 Hca5 10
ctl_fails "flow-add unknown node" 'no node "Nope"' flow-add Nope Hca5 10
ctl_fails "flow-add to itself" "same CA" flow-add Hca3 Hca3 10
ctl_fails "flow-add bad rate" 'bad rate "abc"' flow-add Hca3 Hca5 abc
ctl_fails "flow-add rate 0" 'bad rate "0"' flow-add Hca3 Hca5 0
ctl_fails "flow-add negative rate" 'bad rate "-5"' flow-add Hca3 Hca5 -5
ctl_fails "flow-add huge rate" 'bad rate' flow-add Hca3 Hca5 99999
ctl_fails "flow-add bad SL" 'bad SL "16"' flow-add Hca3 Hca5 10 --sl 16
ctl_fails "flow-add stray option" 'usage: flow-add' flow-add Hca3 Hca5 10 --vl 1
ctl_fails "flow-add missing rate" 'usage: flow-add' flow-add Hca3 Hca5
for bad in 1e3 12. .5 25.0000000001 0x10 " 5" 5%; do
    ctl_fails "flow-add rate \"$bad\"" 'bad rate' flow-add Hca3 Hca5 "$bad"
done
ctl_fails "flow-add SL not a number" 'bad SL' flow-add Hca3 Hca5 10 --sl x
ctl_fails "flow-del id too big" 'bad flow id' flow-del 4294967296
ctl_fails "flow-list with arguments" 'usage: flow-list' flow-list x
ctl_fails "flow-del unknown id" 'no flow 99' flow-del 99
ctl_fails "flow-del bad id" 'bad flow id' flow-del x1
ctl_fails "ca-rate of a switch" 'is a switch' ca-rate Spine1 10
ctl_fails "ca-rate bad rate" 'bad rate "1.2.3"' ca-rate Hca5 1.2.3
ctl_fails "error-inject bad port" 'Leaf1 has no port 9' error-inject Leaf1 9 symbol 1
ctl_fails "error-inject bad kind" 'unknown error kind "bogus"' error-inject Leaf1 1 bogus 1
ctl_fails "error-inject count 0" 'bad count "0"' error-inject Leaf1 1 symbol 0
ctl_fails "error-inject count too big" 'bad count' error-inject Leaf1 1 symbol 4294967296
ctl_fails "error-inject missing count" 'usage: error-inject' error-inject Leaf1 1 symbol
check "help lists flow-add" grep -q '^flow-add SRC DST GBPS' <(ctl help)
check "--help lists error-inject" grep -q 'error-inject NODE PORT KIND COUNT' <("$PZCTL" --help)

# --- OpenSM routes it ---------------------------------------------------------
fl_start_opensm Hca1
check "OpenSM: SUBNET UP" fl_wait_up 90
check "the flow becomes routed" wait_until 20 routed "$id1"
ctl flow-list > "$WORK/flows.txt"
cat "$WORK/flows.txt"
check_eq "flow-list: id src dst sl demand achieved state" "1 Hca3 Hca5 0 25 25 routed" \
    "$(awk '$1 == 1 { print $1, $2, $3, $4, $5, $6, $7 }' "$WORK/flows.txt")"
check_eq "flow-list: never moved between lanes" "moved=-" "$(awk '$1 == 1 { print $8 }' "$WORK/flows.txt")"
hops=$(awk '$1 == 1 { for (i = 9; i <= NF; i++) print $i }' "$WORK/flows.txt")
check_eq "path: 4 links, Hca3 to Leaf2, Leaf2 up, spine down to Leaf3, Leaf3 to Hca5" \
    "Hca3:1>Leaf2:3 Leaf2:X>SpineX:2 SpineX:3>Leaf3:X Leaf3:3>Hca5:1" \
    "$(echo "$hops" | paste -sd ' ' | sed -E 's/Leaf2:[12]>Spine[12]:2/Leaf2:X>SpineX:2/; s/Spine[12]:3>Leaf3:[12]/SpineX:3>Leaf3:X/')"

diag Hca8 ibswitches > "$WORK/switches.txt"
ibswitches_lid() { sed -n "s/.*\"$1\".* lid \([0-9]*\) .*/\1/p" "$WORK/switches.txt" | head -1; }
for sw in Leaf2 Leaf3 Leaf4 Spine1 Spine2; do
    check "LID of $sw" test -n "$(ibswitches_lid $sw)"
done

# The switch ports the flow leaves by: "NODE PORT" lines.
egress=$(echo "$hops" | tr ' ' '\n' | sed -n 's/^\(\(Leaf\|Spine\)[0-9]\):\([0-9]\)>.*/\1 \3/p')
check_eq "three switch egress ports on the path" 3 "$(echo "$egress" | wc -l)"

# --- data rate at every switch port of the path --------------------------------
while read -r sw port; do
    measure "$sw port $port: PortXmitData x 4 / s = 25 Gb/s" 3125000000 2 4 3 \
        PortXmitData -x "$(ibswitches_lid "$sw")" "$port"
done <<< "$egress"

# --- ca-rate: a hot-spot at Leaf3 port 3 -----------------------------------------
spine=$(echo "$egress" | awk '/^Spine/ { print $1, $2 }')
read -r SPINE SPORT <<< "$spine"
C=$(link_gbps "$(ibswitches_lid Leaf3)" 3)
echo "     link rate Leaf3.3: $C Gb/s"
check "link rate known" test "$(awk -v c="$C" 'BEGIN { print (c > 0) }')" = 1
ctl ca-rate Hca5 10
check_eq "ca-rate: the flow gets 10 Gb/s" 10 "$(flow_field "$id1" 6)"
want_wait=$(awk -v c="$C" 'BEGIN { printf "%.0f", (1 - 10 / c) * 1e6 }')
L3=$(ibswitches_lid Leaf3)
L4=$(ibswitches_lid Leaf4)
z0=0 z1=0 v0=0 v1=0 # set by timed_read
timed_read z0 t0 PortXmitWait "$L4" 3
measure "Leaf3 port 3 (facing Hca5): XmitWait ticks/s = (1 - 10/C) x 1e6" "$want_wait" 5 1 2 \
    PortXmitWait "$L3" 3
measure "$SPINE port $SPORT (upstream): XmitWait ticks/s = (1 - 10/C) x 1e6" "$want_wait" 5 1 2 \
    PortXmitWait "$(ibswitches_lid "$SPINE")" "$SPORT"
timed_read z1 t1 PortXmitWait "$L4" 3
check_eq "Leaf4 port 3 (unrelated): no XmitWait" 0 "$((z1 - z0))"

# --- a victim sharing the hot flow's ingress buffer ----------------------------
# Hca3 -> Hca7 enters Leaf2 at port 3 on VL 0 like the hot flow: HOL-blocked.
id2=$(ctl flow-add Hca3 Hca7 25)
check "victim flow routed" wait_until 5 routed "$id2"
check_eq "victim slowed to the hot flow's pace (10 Gb/s)" 10 "$(flow_field "$id2" 6)"
timed_read v0 t0 PortXmitWait "$L4" 3
sleep 1
timed_read v1 t1 PortXmitWait "$L4" 3
check_eq "victim's CA port (Leaf4 port 3): no XmitWait" 0 "$((v1 - v0))"
ctl flow-del "$id2" > /dev/null
ctl ca-rate Hca5 0
check_eq "ca-rate 0: back to the link rate, 25 Gb/s" 25 "$(flow_field "$id1" 6)"

# --- flow-del stops the data ----------------------------------------------------
ctl flow-del "$id1" > /dev/null
check_eq "flow-list empty after flow-del" "" "$(ctl flow-list)"
x0=$(counter Leaf3 3 xmit_data)
sleep 1
x1=$(counter Leaf3 3 xmit_data)
check "no flow: Leaf3 port 3 sends only MADs (< 10000 words/s)" test $((x1 - x0)) -lt 10000

# --- error-inject: exact counts -------------------------------------------------
L2=$(ibswitches_lid Leaf2)
s0=$(pq_val SymbolErrorCounter "$L2" 4)
r0=$(pq_val PortRcvErrors "$L2" 4)
m0=$(diag Hca8 perfquery -E "$L2" 4 | sed -n 's/^PortMalformedPktErrors:\.*//p')
ctl error-inject Leaf2 4 symbol 7
ctl error-inject Leaf2 4 malformed 3
ctl error-inject Leaf2 4 rcv-errors 2
check_eq "error-inject symbol 7: SymbolErrorCounter" $((s0 + 7)) "$(pq_val SymbolErrorCounter "$L2" 4)"
check_eq "error-inject malformed 3 + rcv-errors 2: PortRcvErrors" $((r0 + 5)) \
    "$(pq_val PortRcvErrors "$L2" 4)"
check_eq "error-inject malformed 3: PortMalformedPktErrors" $((m0 + 3)) \
    "$(diag Hca8 perfquery -E "$L2" 4 | sed -n 's/^PortMalformedPktErrors:\.*//p')"
d0=$(counter Hca5 1 link_downed)
ctl error-inject Hca5 1 link-downed 4
check_eq "error-inject link-downed 4: the CA port's counter" $((d0 + 4)) \
    "$(counter Hca5 1 link_downed)"

check "pzfabric still running" kill -0 "$FABRIC_PID"
fl_stop_opensm
fl_stop_fabric
check_eq "pzfabric exit status" 0 "$FABRIC_RC"
fl_finish
