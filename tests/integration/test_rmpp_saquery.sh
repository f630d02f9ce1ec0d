#!/bin/bash
# test_rmpp_saquery.sh PZFABRIC GEN-FATTREE MCAST-TOOL - SA tables through
# libpzumad2sim.so's RMPP (attach/pzumad_rmpp.c): OpenSM and saquery both
# attached through umad2sim + libpzumad2sim.so, on the 648-host two-level
# fat tree of `gen-fattree 2` (18 spines, 36 leaves: 702 nodes, 1296 links),
# first on pzfabric, then on ibsim:
#   - saquery NodeRecord: one record per node ibnetdiscover finds (702,
#     ~76 KB of records: a 380-segment transfer), the same node names;
#   - saquery LinkRecord: one record per direction of every link
#     ibnetdiscover finds (2592);
#   - saquery LFTRecord LID, for a spine and a leaf: the LID -> port
#     entries ibroute reads from the switch itself; saquery LFTRecord: one
#     record per 64-LID block of every switch up to its LinearFDBTop;
#   - saquery --smkey 1 -m (trusted: OpenSM lists members only to its
#     SM_Key, 1 by default): all 40 hosts that joined the IPoIB broadcast group
#     (mcast_tool join, an SA Set of MCMemberRecord), a 12-segment table;
#   - no RMPP error on anyone's stderr; with the stock umad2sim alone the
#     same NodeRecord query lists the first segment's records only (a note).
set -euo pipefail

PZFABRIC=${1:?usage: test_rmpp_saquery.sh PZFABRIC GEN-FATTREE MCAST-TOOL}
GEN_FATTREE=${2:?usage: test_rmpp_saquery.sh PZFABRIC GEN-FATTREE MCAST-TOOL}
MCAST_TOOL=${3:?usage: test_rmpp_saquery.sh PZFABRIC GEN-FATTREE MCAST-TOOL}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN_FATTREE=$(abspath "$GEN_FATTREE")
MCAST_TOOL=$(abspath "$MCAST_TOOL")
pzt_require opensm saquery ibnetdiscover ibroute ibswitches ibsim
pzt_init rmpp

NET=$WORK/ft648.net
"$GEN_FATTREE" 2 > "$NET"
echo "Default=0x7fff,ipoib : ALL=full ;" > "$WORK/partitions.conf"
BCAST_MGID=ff12:401b:ffff::ffff:ffff # IPoIB broadcast group of P_Key 0xffff
JOINERS=40
HOST=host-2-1 # the diags' node

# lft_pairs: "LID PORT" lines of a saquery LFTRecord dump (stdin), unset (255) entries left out.
lft_pairs() { awk '/^\t\t[0-9]+\t[0-9]+$/ && $2 != 255 { print $1, $2 }' | sort -n; }

# ibroute_pairs: "LID PORT" lines of ibroute's unicast dump (stdin).
ibroute_pairs() {
    local lid port rest
    awk '/^0x[0-9a-f]+ [0-9]+ :/' | while read -r lid port rest; do
        echo "$((lid)) $((10#$port))"
    done | sort -n
}

# no_rmpp_errors FILE...: none of FILE says an RMPP error.
no_rmpp_errors() { ! grep -h 'RMPP:' "$@"; }

# sa_tables SIM NAME: the checks on simulator SIM (NAME in the check lines).
sa_tables() {
    local sim=$1 name=$2 nodes links sw spine leaf top blocks nsw i
    diag() { run_diag "$sim" "$HOST" "$@"; }

    start_opensm "sm-$sim" "$sim" host-1-1 -P "$WORK/partitions.conf"
    if ! wait_subnet_up "sm-$sim" 60; then
        check "$name: OpenSM: SUBNET UP" false
        return
    fi
    check "$name: OpenSM: SUBNET UP in ${SUBNET_UP_SECONDS} s" true

    diag ibnetdiscover > "$sim.ibnd" 2> "$sim.ibnd.err"
    nodes=$(grep -cE '^(Switch|Ca)' "$sim.ibnd" || true)
    links=$(grep -cE '^\[[0-9]+\].*"[SH]-' "$sim.ibnd" || true)
    check_eq "$name: ibnetdiscover finds 702 nodes" 702 "$nodes"
    check_eq "$name: ibnetdiscover finds 2592 link ends (1296 links)" 2592 "$links"

    diag saquery NodeRecord > "$sim.nr" 2> "$sim.nr.err"
    check_eq "$name: saquery NodeRecord: $nodes records (380 segments)" "$nodes" \
        "$(grep -c 'NodeRecord dump' "$sim.nr" || true)"
    check_eq "$name: saquery NodeRecord: the node names ibnetdiscover finds" \
        "$(sed -n 's/^\(Switch\|Ca\)[^#]*# "\([^"]*\)".*/\2/p' "$sim.ibnd" | sort)" \
        "$(sed -n 's/^[[:space:]]*NodeDescription\.*//p' "$sim.nr" | sort)"

    diag saquery LinkRecord > "$sim.lr" 2> "$sim.lr.err"
    check_eq "$name: saquery LinkRecord: $links records (2 per link)" "$links" \
        "$(grep -c 'LinkRecord dump' "$sim.lr" || true)"

    diag ibswitches > "$sim.sw"
    nsw=$(wc -l < "$sim.sw")
    spine=$(sed -n 's/.*"spine-1" .* lid \([0-9]*\) .*/\1/p' "$sim.sw")
    leaf=$(sed -n 's/.*"leaf-7" .* lid \([0-9]*\) .*/\1/p' "$sim.sw")
    check_eq "$name: ibswitches: 54 switches" 54 "$nsw"
    for sw in "$spine" "$leaf"; do
        diag ibroute "$sw" > "$sim.ibroute.$sw" 2>&1
        diag saquery LFTRecord "$sw" > "$sim.lftr.$sw" 2> "$sim.lftr.$sw.err"
        check "$name: switch $sw: ibroute dumps 702 LIDs" grep -q '^702 valid lids dumped' \
            "$sim.ibroute.$sw"
        check_eq "$name: switch $sw: saquery LFTRecord = ibroute's LID -> port entries" \
            "$(ibroute_pairs < "$sim.ibroute.$sw")" "$(lft_pairs < "$sim.lftr.$sw")"
    done
    top=$(sed -n 's/^Unicast lids \[0x0-\(0x[0-9a-f]*\)\].*/\1/p' "$sim.ibroute.$spine")
    blocks=$(((top + 64) / 64))
    diag saquery LFTRecord > "$sim.lftr" 2> "$sim.lftr.err"
    check_eq "$name: saquery LFTRecord: $nsw switches x $blocks blocks" $((nsw * blocks)) \
        "$(grep -c 'LFT Record dump' "$sim.lftr" || true)"

    for i in $(seq 1 "$JOINERS"); do # hosts of leaves 3-5
        run_diag "$sim" "host-$(((i - 1) / 18 + 3))-$(((i - 1) % 18 + 1))" "$MCAST_TOOL" join \
            "$BCAST_MGID" > /dev/null 2>> "$sim.join.err" || true
    done
    diag saquery --smkey 1 -m > "$sim.mcm" 2> "$sim.mcm.err"
    check_eq "$name: saquery -m: the $JOINERS members of the broadcast group" "$JOINERS" \
        "$(grep -c '^[[:space:]]*PortGid' "$sim.mcm" || true)"

    check "$name: no RMPP error on any stderr" no_rmpp_errors "$WORK"/"$sim".*.err \
        "$WORK/sm-$sim/opensm.out"
    if [ "$sim" = fab ]; then
        note "the stock umad2sim alone: $( (cd "$WORK" && LD_PRELOAD=$PZT_UMAD2SIM_STOCK \
            SIM_HOST=$HOST IBSIM_SOCKNAME=${PZT_SOCK[$sim]} timeout 30 saquery NodeRecord \
            2> /dev/null) | grep -c 'NodeRecord dump') NodeRecords"
    fi
    stop "sm-$sim"
}

start_pzfabric fab "$NET"
sa_tables fab pzfabric
stop fab
start_ibsim ibsim "$NET"
sa_tables ibsim ibsim
pzt_finish
