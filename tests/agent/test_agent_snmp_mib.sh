#!/bin/bash
# test_agent_snmp_mib.sh - PORTZERO-MIB of portzerod over IPoIB, its
# hot-spot notifications and informs, with real net-snmp tools in pz-iphost's
# namespace (test_agent_snmp.sh covers IF-MIB,
# security, link traps and bad input):
#   - snmpbulkwalk -v3 authPriv of pzIbPortTable and pzCongTable on a 36-port
#     switch (tests/integration/ft-36port.net, leaf-2): every port 1..36 in
#     every column; PortState, PhysState, link width and speed of every port
#     as `smpquery portinfo` has them; every PortCounters error counter and
#     PortXmitWait of every port as `perfquery` reads them (after a hot-spot
#     made XmitWait move); class and peer of every port as the CLI's
#     `show congestion json` has them;
#   - the monitor settings read as pz-hotspot reads them (vendor PMA
#     attribute); the read-only user cannot set them; rwuser sets the
#     threshold (pz-hotspot sees it) and a value the monitor refuses gets
#     wrongValue;
#   - ifHCOutOctets of the hot-spot port brackets perfquery -x PortXmitData x 4
#     while the flows run;
#   - the dFtree scenario on leaf-2 port 2 (host-2-2 sinks 25 Gb/s, three
#     hosts send it 40 Gb/s each, pzfabric-ctl flows): snmptrapd gets
#     pzHotSpotOnset and pzHotSpotClear with pzCongClass/Ticks/Util equal to
#     the sample the monitor changed class on (its own log line), and the
#     CLI shows the class the notification says;
#   - a link that goes down during a hot-spot: the pzHotSpotClear carries the
#     monitor's zero link-down sample and pzCongTicks reads 0; the onset
#     after link-up carries that onset's sample;
#   - informs: an `informsink` snmptrapd acknowledges each notification once
#     (no retransmission arrives), and a `trapsess -Ci` sink that starts
#     listening only after the onset still gets it (retries), once.
# Usage: test_agent_snmp_mib.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI PZ_HOTSPOT
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init_one agentsnmpmib "$1" "$2"
pzt_paths "test_agent_snmp_mib.sh PZIPHOST PORTZEROD PZCLI HOTSPOT" "${@:3}"
pzt_require opensm ip snmpget snmpbulkwalk snmpset snmptrapd perfquery smpquery python3
pzt_require_preload
NET=$(abspath "$(dirname "$0")/../integration/ft-36port.net")
SW=leaf-2
SM=host-1-1
HOSTCA=host-2-1
DR=0,1,3,3 # SM -> leaf-1 -> spine-1 -> leaf-2
HOT=host-2-2
HP=2 # the hot-spot's port on leaf-2
NPORTS=36
IVL=500
SWADDR=10.81.0.4
ai_switch "$SW" "$SWADDR"
HOSTADDR=10.81.0.100
HOST_PID='' TRAPD_PID='' INFORMD_PID='' LATE_PID=''
# stopped on exit in this order, then the host and the agent (ai_cleanup)
AI_PID_VARS=(LATE_PID INFORMD_PID TRAPD_PID)
RO=("${PZT_SNMP_RO[@]}" -t 3 -r 2)
RW=("${PZT_SNMP_RW[@]}" -t 3 -r 2)
PZ=.1.3.6.1.4.1.99999
PORTT=$PZ.1.2.1
CONGT=$PZ.1.3.1
SET=$PZ.1.4
ONSET="$PZ\\.0\\.1( |\\||$)"
CLEAR="$PZ\\.0\\.2( |\\||$)"


{
    pzt_snmp_users
    echo "trap2sink $HOSTADDR:162 pztrap"
    echo "informsink $HOSTADDR:1162 pzinform"
    echo "trapsess -Ci -t 2 -r 5 -v 2c -c pzinform $HOSTADDR:1163"
} > "$WORK/snmp.conf"
echo "disableAuthorization yes" > "$WORK/trapd.conf"

get() { in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" "$@" 2>&1; }
# trapd PORT LOG: snmptrapd in the namespace on PORT, one line per notification.
trapd() {
    ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd$1" snmptrapd -f -C -c "$WORK/trapd.conf" \
        -m '' -On -Lf "$2" -F '%b|%V|%v\n' "udp:$HOSTADDR:$1" < /dev/null > /dev/null 2>&1 &
}
from_sw() { grep -E "\\[$SWADDR\\].*$2" "$1" 2> /dev/null; }
nlines() { from_sw "$1" "$2" | wc -l; }
# varbind LINE OID: the value of OID's varbind in a snmptrapd line ("OID = TYPE: VALUE" fields).
varbind() { tr '|' '\n' <<< "$1" | awk -v o="$2" '$1 == o { print $NF }'; }
# column FILE COL: "port value" lines of a walked table column.
column() { sed -n "s/^$3\\.$2\\.\\([0-9]*\\) = [A-Za-z0-9]*: \\(.*\\)$/\\1 \\2/p" "$1"; }
hs() { diag "$SM" "$HOTSPOT" -t 3000 "$@"; }

fl_start_fabric --agent "$SW" --monitor-interval "$IVL" "$NET" || exit 1
AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf" -o "monitor_interval_ms=$IVL")
start_agent "$SW"
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "${AGENT[$SW]}"
fl_start_opensm "$SM"
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined "$SW"
fl_start_host "$HOSTCA" "$HOSTADDR/24"
trapd 162 "$WORK/trapd.log"
TRAPD_PID=$!
trapd 1162 "$WORK/informd.log"
INFORMD_PID=$!
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"
LID=$(diag "$SM" smpquery -D portinfo "$DR" 0 | awk -F. '/^Lid/ { print $NF }')
# coldStart went out when the IPoIB link came up, maybe before this sink listened
# (its retries cover about 6 s): noted, not checked (the onset and clear are).
wait_lines "$WORK/informd.log" 8 "\\[$SWADDR\\].*\\.1\\.3\\.6\\.1\\.6\\.3\\.1\\.1\\.5\\.1( |\\||$)" 1 &&
    note "informsink: the coldStart inform reached snmptrapd (1162)"

# --- The monitor settings: read, refused, written --------------------------------
hs "$LID" > "$WORK/hs0.out" 2>&1
hsf() { sed -n "s/.*\\<$1=\\([0-9]*\\).*/\\1/p" "$2" | head -1; }
check_eq "pzCongInterval/Threshold/LowUtil/Clear = pz-hotspot's settings" \
    "$(hsf interval_ms "$WORK/hs0.out") $(hsf threshold "$WORK/hs0.out") $(hsf low_util "$WORK/hs0.out") $(hsf clear "$WORK/hs0.out")" \
    "$(get "$SET.1.0" "$SET.2.0" "$SET.3.0" "$SET.4.0" | tr '\n' ' ' | sed 's/ $//')"
THR=$(get "$SET.2.0")
ro_set=$(in_ns snmpset "${RO[@]}" "$SWADDR" "$SET.2.0" u $((THR + 1)) 2>&1)
check "the read-only user cannot set pzCongThreshold" grep -qiE "noAccess|notWritable|authorization" <<< "$ro_set"
in_ns snmpset "${RW[@]}" "$SWADDR" "$SET.2.0" u $((THR + 1)) > /dev/null 2>&1
hs "$LID" > "$WORK/hs1.out" 2>&1
check_eq "rwuser set pzCongThreshold: pz-hotspot reads $((THR + 1))" $((THR + 1)) "$(hsf threshold "$WORK/hs1.out")"
bad_set=$(in_ns snmpset "${RW[@]}" "$SWADDR" "$SET.1.0" u 1 2>&1)
check "pzCongInterval 1 ms (the monitor refuses it): wrongValue" grep -q wrongValue <<< "$bad_set"
check_eq "pzCongInterval unchanged" "$IVL" "$(get "$SET.1.0")"
in_ns snmpset "${RW[@]}" "$SWADDR" "$SET.2.0" u "$THR" > /dev/null 2>&1
check_eq "pzCongThreshold restored" "$THR" "$(get "$SET.2.0")"

# monitor_event TEXT: the monitor's first log line with TEXT, noted; its
# congestion sample in ev_ticks (ticks/s) and ev_util (utilisation, per mille).
monitor_event() {
    local ev
    ev=$(grep -m1 "$1" "$WORK/agent/err")
    note "monitor: ${ev#*monitor: }"
    ev_ticks=$(sed -n 's/.*(congestion \([0-9]*\) ticks\/s.*/\1/p' <<< "$ev")
    ev_util=$(sed -n 's/.*utilisation \([0-9]*\)\.\([0-9]\)%.*/\1\2/p' <<< "$ev" | sed 's/^0*\([0-9]\)/\1/')
}

# --- The dFtree scenario on port $HP: onset ------------------------------------------
check "ca-rate $HOT 25" ctl ca-rate "$HOT" 25
FLOWS=()
for src in host-1-1 host-1-2 host-2-1; do
    id=$(ctl flow-add "$src" "$HOT" 40) && FLOWS+=("$id")
done
check_eq "three flows into $HOT" 3 "${#FLOWS[@]}"
check "snmptrapd: pzHotSpotOnset" wait_lines "$WORK/trapd.log" 15 "\\[$SWADDR\\].*$ONSET"
cls_now=$(cli "$SW" show congestion $HP json 2> /dev/null)
# The late inform sink: it starts listening after the onset went out.
sleep 2.5
trapd 1163 "$WORK/late.log"
LATE_PID=$!
on=$(from_sw "$WORK/trapd.log" "$ONSET" | head -1)
note "onset: $on"
monitor_event "monitor: port $HP normal -> hot-spot"
check_eq "onset pzCongClass.$HP = hotSpot(1)" 1 "$(varbind "$on" "$CONGT.2.$HP")"
check "the CLI shows port $HP hot-spot" grep -q '"class":"hot-spot"' <<< "$cls_now"
check_eq "onset pzCongTicks.$HP = the monitor's sample (its log)" "$ev_ticks" "$(varbind "$on" "$CONGT.3.$HP")"
check_eq "onset pzCongUtil.$HP = the monitor's sample (per mille)" "$ev_util" "$(varbind "$on" "$CONGT.4.$HP")"
check "informsink: the onset inform (1162)" wait_lines "$WORK/informd.log" 10 "\\[$SWADDR\\].*$ONSET"
check "trapsess -Ci: the onset inform reached the late sink by a retry" \
    wait_lines "$WORK/late.log" 15 "\\[$SWADDR\\].*$ONSET"
# ifHCOutOctets of the hot-spot's port while the flows run, against perfquery -x
# in between (a read of a port's counters serves requests for 50 ms: the
# second GET waits that long after perfquery, snmp/README.md).
IFX=.1.3.6.1.2.1.31.1.1.1
before=$(get "$IFX.10.$HP")
xmit=$(diag "$SM" perfquery -x "$LID" "$HP" | awk -F. '/^PortXmitData/ { print $NF }')
sleep 0.1
after=$(get "$IFX.10.$HP")
check "flows running: ifHCOutOctets.$HP ($before .. $after) brackets 4 x PortXmitData ($((xmit * 4)))" \
    test "$before" -le $((xmit * 4)) -a $((xmit * 4)) -le "$after" -a "$before" -lt "$after"
walk_c() { in_ns snmpbulkwalk "${RO[@]}" -On "$SWADDR" "$CONGT" > "$WORK/cong.walk" 2>&1; }
walk_c
check_eq "pzCongTable during the hot-spot: port $HP hotSpot(1)" 1 \
    "$(column "$WORK/cong.walk" 2 "$CONGT" | awk -v p=$HP '$1 == p { print $2 }')"

# --- Clear ------------------------------------------------------------------------------
for id in "${FLOWS[@]}"; do ctl flow-del "$id" > /dev/null; done
check "snmptrapd: pzHotSpotClear" wait_lines "$WORK/trapd.log" 15 "\\[$SWADDR\\].*$CLEAR"
off=$(from_sw "$WORK/trapd.log" "$CLEAR" | head -1)
note "clear: $off"
monitor_event "monitor: port $HP hot-spot -> "
check_eq "clear pzCongClass.$HP = normal(0)" 0 "$(varbind "$off" "$CONGT.2.$HP")"
check_eq "clear pzCongTicks.$HP = the monitor's sample" "$ev_ticks" "$(varbind "$off" "$CONGT.3.$HP")"
check_eq "clear pzCongUtil.$HP = the monitor's sample" "$ev_util" "$(varbind "$off" "$CONGT.4.$HP")"
check "informsink: the clear inform (1162)" wait_lines "$WORK/informd.log" 10 "\\[$SWADDR\\].*$CLEAR"
check "trapsess -Ci: the clear inform" wait_lines "$WORK/late.log" 10 "\\[$SWADDR\\].*$CLEAR"
sleep 3 # longer than a retry interval of either sink: a retransmission would be in
check_eq "informsink: onset and clear once each (acknowledged, not resent)" "1 1" \
    "$(nlines "$WORK/informd.log" "$ONSET") $(nlines "$WORK/informd.log" "$CLEAR")"
check_eq "trapsess -Ci: onset and clear once each" "1 1" \
    "$(nlines "$WORK/late.log" "$ONSET") $(nlines "$WORK/late.log" "$CLEAR")"
check_eq "trap2sink: exactly one onset and one clear" "1 1" \
    "$(nlines "$WORK/trapd.log" "$ONSET") $(nlines "$WORK/trapd.log" "$CLEAR")"

# --- pzCongTable against the CLI ------------------------------------------------------
walk_c
cli "$SW" show congestion json > "$WORK/cong.json" 2> /dev/null
want=$(python3 -c '
import json, sys
names = {"normal": 0, "hot-spot": 1, "low-util": 2, "congested": 3}
peers = {"unknown": 0, "ca": 1, "switch": 2}
for p in json.load(open(sys.argv[1]))["ports"]:
    print(p["port"], names.get(p["class"], -1), peers.get(p["peer"], -1))' "$WORK/cong.json")
got=$(join <(column "$WORK/cong.walk" 2 "$CONGT" | sort -k1,1) <(column "$WORK/cong.walk" 6 "$CONGT" | sort -k1,1) | sort -n)
check_eq "pzCongTable: $NPORTS rows" "$NPORTS" "$(wc -l <<< "$got")"
check_eq "pzCongClass and pzCongPeer of every port = show congestion json" "$want" "$got"

# --- pzIbPortTable against smpquery and perfquery, every port ----------------------
in_ns snmpbulkwalk "${RO[@]}" -On "$SWADDR" "$PORTT" > "$WORK/port.walk" 2>&1
for c in $(seq 2 24); do
    check_eq "pzIbPortTable column $c: ports 1..$NPORTS" "$(seq -s' ' "$NPORTS")" \
        "$(column "$WORK/port.walk" "$c" "$PORTT" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
done
# smpquery's words for the codes the MIB carries.
state_code() { case $1 in Down) echo 1 ;; Initialize) echo 2 ;; Armed) echo 3 ;; Active) echo 4 ;; *) echo 0 ;; esac; }
phys_code() { case $1 in Sleep) echo 1 ;; Polling) echo 2 ;; Disabled) echo 3 ;; PortConfigurationTraining) echo 4 ;; LinkUp) echo 5 ;; LinkErrorRecovery) echo 6 ;; *) echo 0 ;; esac; }
width_code() { case $1 in 1X) echo 1 ;; 4X) echo 2 ;; 8X) echo 4 ;; 12X) echo 8 ;; 2X) echo 16 ;; *) echo 0 ;; esac; }
speed_code() { case $1 in 2.5) echo 1 ;; 5.0) echo 2 ;; 10.0) echo 4 ;; *) echo 0 ;; esac; }
want=''
for p in $(seq "$NPORTS"); do
    pi=$(diag "$SM" smpquery -D portinfo "$DR" "$p")
    f() { sed -n "s/^$1:\\.*\\([^ ]*\\).*/\\1/p" <<< "$pi" | head -1; }
    want+="$p $(state_code "$(f LinkState)") $(phys_code "$(f PhysLinkState)")"
    if [ "$(f LinkState)" = Active ]; then
        want+=" $(width_code "$(f LinkWidthActive)") $(speed_code "$(f LinkSpeedActive)")"$'\n'
    else
        want+=" - -"$'\n'
    fi
done
got=''
for p in $(seq "$NPORTS"); do
    v() { column "$WORK/port.walk" "$1" "$PORTT" | awk -v p="$p" '$1 == p { print $2 }'; }
    st=$(v 8)
    if [ "$st" = 4 ]; then got+="$p $st $(v 9) $(v 4) $(v 6)"$'\n'; else got+="$p $st $(v 9) - -"$'\n'; fi
done
check_eq "PortState, PhysState (and width, speed of active ports) of every port = smpquery portinfo" \
    "$want" "$got"
PQ="SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors PortRcvConstraintErrors LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped PortXmitWait"
in_ns snmpbulkwalk "${RO[@]}" -On "$SWADDR" "$PORTT" > "$WORK/port2.walk" 2>&1
want=''
got=''
for p in $(seq "$NPORTS"); do
    pq=$(diag "$SM" perfquery "$LID" "$p")
    want+="$p"
    for k in $PQ; do want+=" $(sed -n "s/^$k:\\.*\\([0-9]*\\)$/\\1/p" <<< "$pq")"; done
    want+=$'\n'
    got+="$p"
    for c in $(seq 12 24); do
        got+=" $(column "$WORK/port2.walk" "$c" "$PORTT" | awk -v p="$p" '$1 == p { print $2 }')"
    done
    got+=$'\n'
done
check_eq "the 12 error counters and PortXmitWait of every port = perfquery" "$want" "$got"
xw=$(column "$WORK/port2.walk" 24 "$PORTT" | awk -v p=$HP '$1 == p { print $2 }')
check "pzIbPortXmitWait.$HP moved during the hot-spot ($xw)" test "${xw:-0}" -gt 0

# --- A link that goes down during a hot-spot ----------------------------------------
# The clear carries the monitor's link-down sample (0 ticks/s, as its log says),
# and pzCongTicks reads 0 while the link is down; the onset after the link came
# back carries that onset's own sample, not the first hot-spot's (the history
# used to run through the link-down without a break).
# last_event TEXT: as monitor_event, from the monitor's newest line with TEXT.
last_event() {
    local ev
    ev=$(grep "$1" "$WORK/agent/err" | tail -1)
    note "monitor: ${ev#*monitor: }"
    ev_ticks=$(sed -n 's/.*(congestion \([0-9]*\) ticks\/s.*/\1/p' <<< "$ev")
    ev_util=$(sed -n 's/.*utilisation \([0-9]*\)\.\([0-9]\)%.*/\1\2/p' <<< "$ev" | sed 's/^0*\([0-9]\)/\1/')
}
FLOWS=()
for src in host-1-1 host-1-2 host-2-1; do
    id=$(ctl flow-add "$src" "$HOT" 40) && FLOWS+=("$id")
done
check "snmptrapd: a second pzHotSpotOnset" wait_lines "$WORK/trapd.log" 15 "\\[$SWADDR\\].*$ONSET" 2
check "pzfabric-ctl link-down $SW $HP during the hot-spot" ctl link-down "$SW" "$HP"
check "snmptrapd: pzHotSpotClear for the link-down" wait_lines "$WORK/trapd.log" 15 "\\[$SWADDR\\].*$CLEAR" 2
off=$(from_sw "$WORK/trapd.log" "$CLEAR" | tail -1)
note "clear: $off"
last_event "monitor: port $HP hot-spot -> "
check_eq "link-down clear: the monitor's sample is 0 ticks/s, 0 per mille" "0 0" "$ev_ticks $ev_util"
check_eq "link-down clear pzCongClass/Ticks/Util.$HP = the monitor's sample" "0 $ev_ticks $ev_util" \
    "$(varbind "$off" "$CONGT.2.$HP") $(varbind "$off" "$CONGT.3.$HP") $(varbind "$off" "$CONGT.4.$HP")"
check_eq "link down: pzCongClass/Ticks/Util.$HP read normal, 0, 0" "0 0 0" \
    "$(get "$CONGT.2.$HP" "$CONGT.3.$HP" "$CONGT.4.$HP" | tr '\n' ' ' | sed 's/ $//')"
check "pzfabric-ctl link-up $SW $HP" ctl link-up "$SW" "$HP"
check "snmptrapd: pzHotSpotOnset after the link came back" \
    wait_lines "$WORK/trapd.log" 30 "\\[$SWADDR\\].*$ONSET" 3
on=$(from_sw "$WORK/trapd.log" "$ONSET" | tail -1)
note "onset: $on"
last_event "monitor: port $HP normal -> hot-spot"
check_eq "onset after link-up: pzCongTicks/Util.$HP = that onset's sample" "$ev_ticks $ev_util" \
    "$(varbind "$on" "$CONGT.3.$HP") $(varbind "$on" "$CONGT.4.$HP")"
for id in "${FLOWS[@]}"; do ctl flow-del "$id" > /dev/null; done

stop_pid "${AGENT[$SW]}"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=
check "no sanitizer report" bash -c "! grep -q Sanitizer '$WORK/agent/err'"
fl_finish
