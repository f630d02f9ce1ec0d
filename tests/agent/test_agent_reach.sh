#!/bin/bash
# test_agent_reach.sh - switch-to-switch reachability in portzerod (issue 14)
# on the six-agent IP set-up of agent_ip_lib.sh (ft-2s4l, a portzerod with an
# IPoIB address on every switch, OpenSM as SM and SA, the emulated host in
# a namespace), Spine1 also running the SNMP agent:
#   - every agent registers its echo service at the SA: saquery -S (from a
#     host, RMPP through libpzumad2sim) lists 6 "portzero-echo"
#     ServiceRecords, each with its switch's port-0 GID and echo QPN;
#   - -R ftree --connect_roots: every switch reports every other reachable
#     (pz-cli show reachability json, per pair, 30 pairs); `reachability
#     check` exits 0 and prints the table; after a `route check` the hops
#     are the live routes' (leaf to spine 1, leaf to leaf 2);
#   - a leaf's uplink down (pzfabric-ctl link-down): the leaf's pairs are
#     reachable exactly when pz-routecheck says they are routed afterwards;
#   - plain -R ftree (OpenSM restarted): the pairs the agents report
#     unreachable are exactly the switch pairs pz-routecheck reports
#     unrouted (the spine-to-spine pairs); `reachability check` on a spine
#     exits 1; OpenSM logs the vendor notice of Spine1's LID; Spine1's
#     portzerod restarted (its first verdict on Spine2: unreachable):
#     snmptrapd in the host's namespace receives pzReachLost for Spine2's
#     LID (the host starts after the SM restart: pz-iphost does not rejoin
#     IPoIB under a new SM, so a trap sent at the restart cannot reach it);
#   - a portzerod stopped cleanly deletes its ServiceRecord (saquery -S
#     lists 5), and the others stop probing that switch (no-agent, or gone
#     from the SA's NodeRecords).
# Usage: test_agent_reach.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI PZ_ROUTECHECK
set -u
ROUTECHECK=$(cd "$(dirname "$6")" && pwd)/$(basename "$6") # before ai_init changes directory
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
# Every switch probes every second and loses a switch after 3 misses;
# Spine1 also runs the SNMP agent (its trap sink: the host).  3 misses: an
# OpenSM restart makes every switch rejoin IPoIB at once (ClientReregister),
# and a trap sent in the second after that is lost (lwIP's udp_sendto
# fails while the path to the host is resolved again), so the loss is
# detected after the IP plane is back.
AI_AGENT_FLAGS="-o monitor=off -o reach_interval_ms=1000 -o reach_timeout_ms=400 \
-o reach_lost_after=3 -o reach_refresh_s=5 -vv"
AI_CLI_TIMEOUT=30
ai_init agentreach 10.83.0 "$1" "$2" "$3" "$4" "$5"
pzt_require opensm saquery ip snmptrapd python3
pzt_require_preload
HOSTADDR=10.83.0.100
SPINE1_ADDR=${ADDR[Spine1]}
PZ=.1.3.6.1.4.1.99999
AI_AGENT_EXTRA[Spine1]="-o state_dir=$WORK/state -o snmp_config=$WORK/snmp.conf"
{
    echo "trap2sink $HOSTADDR:162 pztrap"
    echo 'rocommunity pzpublic 10.83.0.0/24'
} > "$WORK/snmp.conf"

# matrix: "SRC DST STATUS" for every pair, from each agent's show reachability json.
# An answer that does not come or does not parse (a control socket slow to answer on a
# loaded machine) is asked for again, up to three times: a missing agent's pairs would
# otherwise vanish from the matrix and read as a change of status.
matrix() {
    local s try
    for s in "${SWITCHES[@]}"; do
        [ -n "${AGENT[$s]:-}" ] || continue
        for try in 1 2 3; do
            cli "$s" show reachability json 2> /dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
    pairs = [(p["name"], p["status"]) for p in d["switches"]]
except (ValueError, KeyError, TypeError):
    sys.exit(3)
for name, status in pairs:
    print(sys.argv[1], name, status)' "$s" && break
            echo "matrix: $s did not answer show reachability json ($try)" >&2
        done
    done | sort
}
# count_status STATUS: how many pairs have it.
count_status() { matrix | awk -v s="$1" '$3 == s' | wc -l; }
all_reachable() { test "$(count_status reachable)" = 30; }
# unreachable_pairs: "SRC DST" of the pairs reported unreachable, sorted.
unreachable_pairs() { matrix | awk '$3 == "unreachable" { print $1, $2 }'; }

# routecheck_unrouted: "SRC DST" of the switch pairs pz-routecheck reports unrouted.
routecheck_unrouted() {
    diag Hca2 "$ROUTECHECK" --json 2> /dev/null > "$WORK/rc.json"
    python3 -c '
import json, sys
rep = json.load(open(sys.argv[1]))
for u in rep["unrouted_list"]:
    print(u["src"]["name"], u["dst"]["name"])' "$WORK/rc.json" | sort
}

# echo_services: the ServiceRecords named portzero-echo at the SA.
echo_services() { diag Hca2 saquery -S 2> /dev/null | grep -c 'ServiceName.*portzero-echo'; }

ai_start_all || exit 1

# The echo services at the SA.
six() { test "$(echo_services)" = 6; }
check "saquery -S lists 6 portzero-echo ServiceRecords" wait_until 30 six
diag Hca2 saquery -S > "$WORK/sr.txt" 2>&1
# record_qpn GUID: ServiceData32.1 of the record whose ServiceGID is fe80::GUID (saquery -S
# prints the GID as IPv6 text, the data as hex).
record_qpn() {
    python3 -c '
import ipaddress, re, sys
gid = str(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[2], 16)))
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"\s*ServiceGID\.*(\S+)", line)
    if m:
        cur = m.group(1)
    m = re.match(r"\s*ServiceData32\.1\.*(\S+)", line)
    if m and cur == gid:
        print("0x%06x" % int(m.group(1), 16))' "$WORK/sr.txt" "$1"
}
leaf1_guid=$(cli Leaf1 show system | awk '/^Port 0 GUID/ { print $4 }')
leaf1_qpn=$(sed -n 's/.*port-0 datagrams: QPN \(0x[0-9a-f]*\).*/\1/p' "$WORK/Leaf1/err" | head -n 1)
check_eq "Leaf1's record (GID of port 0 GUID $leaf1_guid) carries its echo QPN" "$leaf1_qpn" \
    "$(record_qpn "$leaf1_guid")"
check "Leaf1 logged its registration" grep -q "reach: echo service registered at the SA" \
    "$WORK/Leaf1/err"

# --connect_roots: every switch reaches every other.
check "--connect_roots: every switch reports every other reachable (30 pairs)" \
    wait_until 40 all_reachable
matrix > "$WORK/matrix.cr"
check_eq "--connect_roots: no pair unreachable" "" "$(unreachable_pairs)"
cli Leaf1 reachability check > "$WORK/check.cr" 2>&1
check_eq "reachability check on Leaf1 exits 0" 0 "$?"
check "... and prints 5 reachable switches" test "$(grep -c ' reachable ' "$WORK/check.cr")" = 5
check "show reachability json is valid JSON" bash -c \
    "'$PZCLI' -s '$WORK/Spine1/ctl' show reachability json | python3 -m json.tool > /dev/null"
check "Leaf1 logged Spine2 becoming reachable" grep -q "reach: Spine2 .* -> reachable" \
    "$WORK/Leaf1/err"
# hops from the last route check: Leaf1 -> a spine 1 link, -> another leaf 2.
cli Leaf1 route check > "$WORK/rc.leaf1" 2>&1
hops_of() { # hops_of SWITCH PEER: the hops show reachability json gives
    cli "$1" show reachability json | python3 -c '
import json, sys
for p in json.load(sys.stdin)["switches"]:
    if p["name"] == sys.argv[1]:
        print(p["hops"])' "$2"
}
check_eq "after a route check: Leaf1 -> Spine1 is 1 hop" 1 "$(hops_of Leaf1 Spine1)"
check_eq "after a route check: Leaf1 -> Leaf4 is 2 hops" 2 "$(hops_of Leaf1 Leaf4)"
check_eq "no route check on Leaf2: its hops are null" None "$(hops_of Leaf2 Leaf4)"

# A leaf's uplink down: its pairs are reachable exactly when still routed.
ups=$(grep -c 'SUBNET UP' "$WORK/sm/osm.log")
ctl link-down Leaf1 1 > /dev/null
check "OpenSM sweeps after Leaf1's uplink went down" fl_wait_log 30 'SUBNET UP' $((ups + 1))
# A pair is counted lost after reach_lost_after (3) probe rounds 1 s apart,
# by the agent's clock: a loaded machine delays the rounds, so the pairs the
# route check says are unrouted are waited for (up to 30 s) after at least
# 5 s (three rounds and more: a pair wrongly lost shows by then).
declare -A WANT_REACH
for t in Spine1 Spine2 Leaf2; do
    WANT_REACH[$t]=reachable
    routecheck_unrouted | grep -q "^Leaf1 $t\$" && WANT_REACH[$t]=unreachable
done
pair_status() { matrix | awk -v t="$1" '$1 == "Leaf1" && $2 == t { print $3 }'; }
pair_is() { test "$(pair_status "$1")" = "$2"; }
sleep 5
for t in Spine1 Spine2 Leaf2; do
    [ "${WANT_REACH[$t]}" = reachable ] || wait_until 30 pair_is "$t" "${WANT_REACH[$t]}" || true
done
for t in Spine1 Spine2 Leaf2; do
    check_eq "Leaf1 uplink 1 down: Leaf1 -> $t as the route check says" "${WANT_REACH[$t]}" \
        "$(pair_status "$t")"
done
ctl link-up Leaf1 1 > /dev/null
check "after the link came back: every pair reachable again" wait_until 40 all_reachable

# Plain -R ftree: the spines lose each other.
spine1_lid=$(cli Spine1 show system | awk '/^LID/ { print $2 }')
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
pzt_start_opensm "$WORK/sm" "$SOCK" Hca1 -R ftree
OSM_PID=$PZT_OSM_PID
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
routecheck_unrouted > "$WORK/unrouted.rc"
check_eq "-R ftree: pz-routecheck's unrouted pairs are the spine-to-spine pairs" "Spine1 Spine2
Spine2 Spine1" "$(cat "$WORK/unrouted.rc")"
same_as_rc() { test "$(unreachable_pairs)" = "$(cat "$WORK/unrouted.rc")"; }
check "-R ftree: the agents' unreachable pairs become pz-routecheck's unrouted pairs" \
    wait_until 40 same_as_rc
sleep 4 # four more probe rounds: nothing else goes, nothing comes back
unreachable_pairs > "$WORK/unreach.agents"
check_eq "-R ftree: ... and stay so" "$(cat "$WORK/unrouted.rc")" "$(cat "$WORK/unreach.agents")"
# The other pairs: reachable (given a few probe rounds: under ASan on a loaded
# machine two pairs were once still being probed after the SM change).
others_reachable() { test "$(count_status reachable)" = 28; }
# ... and on a failure the pairs that are not, before the FAIL line.
others_reachable_or_show() {
    wait_until 20 others_reachable && return 0
    matrix | awk '$3 != "reachable" { print "     not reachable:", $0 }'
    return 1
}
check "-R ftree: the other 28 pairs are reachable" others_reachable_or_show
cli Spine1 reachability check > "$WORK/check.ft" 2>&1
check_eq "reachability check on Spine1 exits 1" 1 "$?"
check "... and names Spine2 unreachable" grep -q "^Spine2 .* unreachable" "$WORK/check.ft"
check "Spine1 logged Spine2 unreachable" grep -q "reach: Spine2 .* -> unreachable" \
    "$WORK/Spine1/err"
check "Spine1 queued the reachability-lost notice (trap 0x0003)" grep -q \
    "reach: reachability lost notice (trap 0x0003) for LID" "$WORK/Spine1/err"
check "OpenSM logs the vendor notice from Spine1 (LID $spine1_lid)" fl_wait_log 20 \
    "Received Vendor Notice type:4 vend:0x[0-9A-Fa-f]* dev:[0-9]* from LID:$spine1_lid TID:"

# SNMP: the host and snmptrapd in a namespace of their own, started now
# (pz-iphost does not rejoin IPoIB after an SM restart: it joins this SM).
ai_start_host "$HOSTADDR/24"
echo "disableAuthorization yes" > "$WORK/trapd.conf"
ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd" snmptrapd -f -C -c "$WORK/trapd.conf" \
    -m '' -On -Lf "$WORK/trapd.log" -F '%b|%V|%v\n' "udp:$HOSTADDR:162" < /dev/null &
AI_PIDS+=("$!")
check "ping Spine1 from the host" wait_until 20 ip netns exec "$NS" ping -c 1 -W 1 "$SPINE1_ADDR"

# Spine1's portzerod restarts: its first verdict on Spine2 is unreachable,
# and that raises pzReachLost (instance: Spine2's LID) at the host.
spine2_lid=$(cli Spine2 show system | awk '/^LID/ { print $2 }')
stop_pid "${AGENT[Spine1]}"
start_agent Spine1
check "Spine1: restarted portzerod ready" wait_lines "$WORK/Spine1/out" 20 '^ready$' 2
check "Spine1 joins again" wait_until 30 joined Spine1
check "snmptrapd received pzReachLost for Spine2 (LID $spine2_lid) from Spine1" \
    wait_lines "$WORK/trapd.log" 30 \
    "\\[$SPINE1_ADDR\\].*${PZ//./\\.}\\.0\\.3\\|.*${PZ//./\\.}\\.1\\.5\\.1\\.4\\.$spine2_lid = INTEGER: 2"

# A clean stop deletes the record; the others see no agent there.
stop_pid "${AGENT[Leaf4]}"
AGENT[Leaf4]=
check_eq "Leaf4: portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
check "Leaf4 deleted its record at the SA" grep -q "reach: echo service record deleted" \
    "$WORK/Leaf4/err"
five() { test "$(echo_services)" = 5; }
check "saquery -S lists 5 portzero-echo records" wait_until 20 five
# (pzfabric stops answering for the switch, so OpenSM may drop it: gone is fine too)
no_agent() { ! matrix | grep -qE '^Leaf1 Leaf4 (reachable|unreachable|unknown)$'; }
check "Leaf1 no longer probes Leaf4 (no-agent or gone) within 3 refreshes" wait_until 30 no_agent

ai_stop_agents
fl_finish
