#!/bin/bash
# test_agent_reach_lost.sh - a switch whose agent dies is reported lost
# (issue 27 item 3).  On the six-agent set-up of agent_ip_lib.sh (ft-2s4l,
# a portzerod per switch, OpenSM -R ftree --connect_roots at Hca1), Spine1
# also running the SNMP agent with the host's snmptrapd as its trap sink:
#   - every switch reaches Leaf4; then Leaf4's portzerod is killed (kill -9):
#     pzfabric stops answering for the switch and OpenSM drops it from the
#     subnet, so the others' discovery lists it no more;
#   - Spine1, Spine2, Leaf1, Leaf2 and Leaf3 keep it in their tables as
#     "lost" (pz-cli show reachability json) and log the change to lost;
#     `reachability check` on Leaf2 exits 1 naming Leaf4 lost;
#   - SNMP: snmptrapd receives pzReachLost from Spine1 with pzReachStatus
#     lost(3) for Leaf4's LID, and snmpget reads 3 there;
#   - the SM hears it: Spine1 queues the reachability-lost notice for
#     Leaf4's LID (status byte 4) and OpenSM logs a vendor notice from
#     Spine1 after the kill;
#   - Leaf1 runs with reach_lost_keep_s=8: it forgets Leaf4 after that
#     (its table lists 4 peers), the others still list it.
# Usage: test_agent_reach_lost.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS="-o monitor=off -o reach_interval_ms=1000 -o reach_timeout_ms=400 \
-o reach_lost_after=3 -o reach_refresh_s=2 -vv"
AI_CLI_TIMEOUT=30
ai_init reachlost 10.89.0 "$1" "$2" "$3" "$4" "$5"
pzt_require opensm ibnetdiscover ip snmptrapd snmpget python3
pzt_require_preload
HOSTADDR=10.89.0.100
SPINE1_ADDR=${ADDR[Spine1]}
PZ=.1.3.6.1.4.1.99999
AI_AGENT_EXTRA[Spine1]="-o state_dir=$WORK/state -o snmp_config=$WORK/snmp.conf"
AI_AGENT_EXTRA[Leaf1]="-o reach_lost_keep_s=8"
{
    echo "trap2sink $HOSTADDR:162 pztrap"
    echo 'rocommunity pzpublic 10.89.0.0/24'
} > "$WORK/snmp.conf"
WATCHERS=(Spine1 Spine2 Leaf1 Leaf2 Leaf3)

# status_of SWITCH PEER: PEER's status in SWITCH's show reachability json ("" if not listed).
status_of() {
    cli "$1" show reachability json 2> /dev/null | python3 -c '
import json, sys
try:
    for p in json.load(sys.stdin)["switches"]:
        if p["name"] == sys.argv[1]:
            print(p["status"])
except (ValueError, KeyError, TypeError):
    pass' "$2"
}
# peers_of SWITCH: how many peers SWITCH lists.
peers_of() {
    cli "$1" show reachability json 2> /dev/null |
        python3 -c 'import json, sys; print(len(json.load(sys.stdin)["switches"]))' 2> /dev/null
}
is_status() { test "$(status_of "$1" "$2")" = "$3"; }

ai_start_all || exit 1
fl_switch_lids Hca2 SPINE1_LID=Spine1 LEAF4_LID=Leaf4
ai_start_host "$HOSTADDR/24"
echo "disableAuthorization yes" > "$WORK/trapd.conf"
ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd" snmptrapd -f -C -c "$WORK/trapd.conf" \
    -m '' -On -Lf "$WORK/trapd.log" -F '%b|%V|%v\n' "udp:$HOSTADDR:162" < /dev/null &
AI_PIDS+=("$!")
check "ping Spine1 from the host" wait_until 20 ip netns exec "$NS" ping -c 1 -W 1 "$SPINE1_ADDR"
for s in "${WATCHERS[@]}"; do
    check "$s reaches Leaf4" wait_until 40 is_status "$s" Leaf4 reachable
done
osm_before=$(grep -c "Received Vendor Notice .* from LID:$SPINE1_LID " "$WORK/sm/osm.log")

kill -9 "${AGENT[Leaf4]}"
wait "${AGENT[Leaf4]}" 2> /dev/null
AGENT[Leaf4]=
check "pzfabric saw Leaf4's agent go" wait_file "$WORK/fabric.err" 10 'switch Leaf4 lost its agent'
gone() { ! diag Hca2 saquery -N 2> /dev/null | grep -q 'NodeDescription.*Leaf4'; }
check "OpenSM dropped Leaf4 (saquery NodeRecords)" wait_until 60 gone
for s in "${WATCHERS[@]}"; do
    check "$s lists Leaf4 as lost" wait_until 30 is_status "$s" Leaf4 lost
    check "$s logged Leaf4 -> lost" grep -qE "reach: Leaf4 \\(LID $LEAF4_LID,.*-> lost\$" \
        "$WORK/$s/err"
done
cli Leaf2 reachability check > "$WORK/check.lost" 2>&1
check_eq "reachability check on Leaf2 exits 1" 1 "$?"
check "... and names Leaf4 lost" grep -q "^Leaf4 .* lost" "$WORK/check.lost"

# SNMP: the notification and the table.
check "snmptrapd receives pzReachLost with pzReachStatus lost(3) for Leaf4 (LID $LEAF4_LID)" \
    wait_lines "$WORK/trapd.log" 30 \
    "\\[$SPINE1_ADDR\\].*${PZ//./\\.}\\.0\\.3\\|.*${PZ//./\\.}\\.1\\.5\\.1\\.4\\.$LEAF4_LID = INTEGER: 3"
check_eq "snmpget pzReachStatus.$LEAF4_LID on Spine1: lost(3)" 3 \
    "$(in_ns snmpget -v2c -c pzpublic -Oqv -m '' "$SPINE1_ADDR" "$PZ.1.5.1.4.$LEAF4_LID" 2> /dev/null)"

# The SM: Spine1's notice, and OpenSM's log of a vendor notice from Spine1 after the kill.
check "Spine1 queued the reachability-lost notice for LID $LEAF4_LID" grep -q \
    "reach: reachability lost notice (trap 0x0003) for LID $LEAF4_LID queued" "$WORK/Spine1/err"
more_notices() {
    test "$(grep -c "Received Vendor Notice .* from LID:$SPINE1_LID " "$WORK/sm/osm.log")" -gt \
        "$osm_before"
}
check "OpenSM logs a vendor notice from Spine1 (LID $SPINE1_LID) after the kill" \
    wait_until 30 more_notices

# How long a lost switch stays listed: Leaf1 keeps it 8 s, the others the default hour.
four() { test "$(peers_of Leaf1)" = 4; }
check "Leaf1 (reach_lost_keep_s=8) forgets Leaf4: 4 peers listed" wait_until 40 four
check "Spine2 (default: 3600 s) still lists Leaf4 as lost" is_status Spine2 Leaf4 lost
ai_stop_agents
fl_finish
