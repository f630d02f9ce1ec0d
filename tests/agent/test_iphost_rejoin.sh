#!/bin/bash
# test_iphost_rejoin.sh - pz-iphost joins the IPoIB broadcast group again
# when a new OpenSM takes over (issue 27 item 4), as portzerod's IP plane
# does: on the six-agent set-up of agent_ip_lib.sh (ft-2s4l, a portzerod
# per switch, OpenSM at Hca1) with pz-iphost at Hca3 in its namespace:
#   - before: the host pings Spine1 and Leaf4; the SA lists 7 members of
#     the broadcast group (6 switches and the host);
#   - OpenSM restarted (a fresh one, same node and LIDs: its first sweep
#     sets ClientReregister on every port): pz-iphost sees its port's
#     ClientReregister count move (pzfabric's SIM_CTL_PZ_GET_REREG) and logs
#     the rejoin, then a second "joined the broadcast group";
#   - the new SA lists the host among the 7 members again;
#   - pings from the host to Spine1 and Leaf4 answer once every switch and
#     the host have joined (events, not a clock).
# Usage: test_iphost_rejoin.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS="-o monitor=off -o reach=off -v"
ai_init iphostrejoin 10.88.0 "$1" "$2" "$3" "$4" "$5"
pzt_require opensm saquery ip ping
pzt_require_preload
HOSTADDR=10.88.0.100

# members: the broadcast group's members the SA lists (trusted query: OpenSM's SM_Key 1);
# the records of other groups (IPv6's, with ip6 = on) are not counted.
members() {
    diag Hca2 saquery --smkey 1 -m 2> /dev/null | awk '/MGID\./ { n = split($0, f, "."); m = f[n] }
        /^[[:space:]]*PortGid/ && m == "ff12:401b:ffff::ffff:ffff" { c++ } END { print c + 0 }'
}
seven() { test "$(members)" = 7; }
joins() { grep -c 'ipoib: joined the broadcast group' "$WORK/host.err"; }
rejoined() { grep -q 'ipoib: port now .*joining the broadcast group again' "$WORK/host.err"; }
all_joined() { local s; for s in "${SWITCHES[@]}"; do joined "$s" || return 1; done; }
# pings TARGET: how many of 3 pings from the host TARGET answers.
pings() {
    in_ns ping -c 3 -i 0.3 -W 2 "$1" 2> /dev/null |
        sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

ai_start_all || exit 1
ai_start_host "$HOSTADDR/24"
check "the SA lists 7 members of the broadcast group" wait_until 20 seven
check_eq "pz-iphost joined once" 1 "$(joins)"
check "host -> Spine1 answers" wait_until 20 in_ns ping -c 1 -W 1 "${ADDR[Spine1]}"
check "host -> Leaf4 answers" wait_until 20 in_ns ping -c 1 -W 1 "${ADDR[Leaf4]}"

# A fresh OpenSM on the same node: same SM LID, the LIDs kept; ClientReregister everywhere.
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
fl_start_opensm Hca1
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
check "pz-iphost logs its rejoin (ClientReregister moved)" wait_until 30 rejoined
grep 'joining the broadcast group again' "$WORK/host.err" | head -n 2
two_joins() { test "$(joins)" -ge 2; }
check "... and joins the broadcast group a second time" wait_until 30 two_joins
check "every switch rejoined (show ip: up)" wait_until 30 all_joined
check "the new SA lists 7 members again (the host among them)" wait_until 20 seven
check "after the rejoin: host -> Spine1 answers (of 3 pings)" test "$(pings "${ADDR[Spine1]}")" -ge 1
check "after the rejoin: host -> Leaf4 answers (of 3 pings)" test "$(pings "${ADDR[Leaf4]}")" -ge 1
ai_stop_agents
fl_finish
