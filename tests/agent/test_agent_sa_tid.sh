#!/bin/bash
# test_agent_sa_tid.sh - SA requests of many requesters that use the same
# transaction IDs (issue 27 item 1, the RMPP part): OpenSM, attached through
# umad2sim + libpzumad2sim.so, runs the SA's RMPP transfers in the library
# (attach/pzumad_rmpp.c), which must tell two transfers with one TID apart
# by their peer (LID and QP).  On the six-agent set-up of agent_ip_lib.sh
# (ft-2s4l, a portzerod on every switch, OpenSM at Hca1):
#   - three requesters (sa_table_tool at Hca2, Hca3, Hca4), meeting at a
#     barrier before every round, send the SA NodeRecord GetTables with the
#     same TID at the same moment, 40 rounds: every node (14 records, an
#     8-segment transfer), the switches (6) and the CAs (8);
#   - each requester gets its own whole answer in every round: its record
#     count and the node types in it;
#   - OpenSM's libpzumad2sim.so reports no RMPP error (no bad ACK, no ABORT,
#     no retries used up) and no agent's does.
# Usage: test_agent_sa_tid.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI SA_TABLE_TOOL
set -u
TOOL=$(cd "$(dirname "$6")" && pwd)/$(basename "$6") # before ai_init changes directory
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS="-o monitor=off -v"
ai_init agentsatid 10.86.0 "$1" "$2" "$3" "$4" "$5"
pzt_require opensm
pzt_require_preload
ROUNDS=40
TID=0x5a5a1000
REQUESTERS=(Hca2:all Hca3:switch Hca4:ca)
declare -A WANT=([all]="14 6 8" [switch]="6 6 0" [ca]="8 0 8")

ai_start_all || exit 1

mkdir -p "$WORK/barrier"
pids=()
for r in "${REQUESTERS[@]}"; do
    host=${r%%:*}
    pzt_diag "$SOCK" "$host" "" 300 "$TOOL" "$TID" "$ROUNDS" "$WORK/barrier" "$host" "${#REQUESTERS[@]}" "${r#*:}" \
        > "$WORK/sa.$host" 2> "$WORK/sa.$host.err" &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    check_eq "${REQUESTERS[$i]%%:*}: sa_table_tool exits 0 (an answer every round)" 0 "$?"
done
for r in "${REQUESTERS[@]}"; do
    host=${r%%:*}
    mode=${r#*:}
    got=$(awk -v want="${WANT[$mode]}" '$3 " " $4 " " $5 == want' "$WORK/sa.$host" | wc -l)
    check_eq "$host ($mode): $ROUNDS whole answers of its own (records switches CAs: ${WANT[$mode]})" \
        "$ROUNDS" "$got" || grep -v " ${WANT[$mode]}\$" "$WORK/sa.$host" | head -n 5
done
check "the requesters shared their TIDs (round 0: $TID at each)" \
    test "$(cat "$WORK"/sa.Hca* | awk '$1 == 0 { print $2 }' | sort -u | wc -l)" = 1
check "OpenSM's RMPP reports no error (opensm.out has no 'RMPP:')" \
    bash -c "! grep 'RMPP:' '$WORK/sm/opensm.out'" || grep 'RMPP:' "$WORK/sm/opensm.out" | head
check "no requester's RMPP reports an error" bash -c "! grep -h 'RMPP:' '$WORK'/sa.*.err"
ai_stop_agents
fl_finish
