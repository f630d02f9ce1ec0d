#!/bin/bash
# test_agent_reach_notices.sh - reachability notices to the SM are never
# lost when the switch's trap queue is full (issue 27 item 2).  On the
# six-agent set-up of agent_ip_lib.sh (ft-2s4l, a portzerod per switch,
# OpenSM -R ftree --connect_roots at Hca1), Spine1 sees its 5 peers change
# 20 times while OpenSM is stopped (SIGSTOP: no TrapRepress comes, so its
# trap queue fills and stays full):
#   - the other five agents stopped (SIGSTOP): Spine1 loses 5 peers; they
#     come back (SIGCONT): 5 regained; stopped and resumed again: 10 more;
#   - Spine1 queues what the queue takes (6 vendor notices: 2 slots are
#     kept for the SMA's own traps) and holds the rest ("notices held");
#   - OpenSM resumed: it represses the queued traps and Spine1 then sends
#     the held notices, one per peer summing up its changes;
#   - the change counts of Spine1's queued notices add up to the 20
#     changes it logged; OpenSM's log has a vendor notice from Spine1's LID
#     for each notice Spine1 queued (distinct TIDs); no agent logs a
#     notice 'not queued'.
# Usage: test_agent_reach_notices.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS="-o monitor=off -o reach_interval_ms=1000 -o reach_timeout_ms=400 \
-o reach_lost_after=3 -o reach_refresh_s=30 -vv"
AI_CLI_TIMEOUT=30
ai_init reachntc 10.87.0 "$1" "$2" "$3" "$4" "$5"
pzt_require opensm ibnetdiscover
pzt_require_preload
OTHERS=(Spine2 Leaf1 Leaf2 Leaf3 Leaf4)
LOG=$WORK/Spine1/err

# count REGEX: lines of Spine1's log matching REGEX.
count() { grep -cE "$1" "$LOG"; }
losses() { count 'reach: .* -> unreachable$'; }
regains() { count 'reach: .* unreachable -> reachable'; }
# at_least N COMMAND: COMMAND prints a number >= N.
at_least() { local n=$1; shift; test "$("$@")" -ge "$n"; }
# signal_others SIG: SIG to the five other agents.
signal_others() { local s; for s in "${OTHERS[@]}"; do kill "-$1" "${AGENT[$s]}"; done; }
# queued_changes: the changes Spine1's queued notices sum up.
queued_changes() {
    sed -n 's/.*reach: reachability .* notice .* queued for SM LID [0-9]* (\([0-9]*\) changes\{0,1\})$/\1/p' \
        "$LOG" | awk '{ s += $1 } END { print s + 0 }'
}
queued_notices() { count 'reach: reachability .* notice \(trap 0x[0-9a-f]{4}\) for LID [0-9]+ queued for SM LID'; }
# osm_notices LID: distinct TIDs of the vendor notices OpenSM logged from LID.
osm_notices() {
    sed -n "s/.*Received Vendor Notice type:4 vend:0x[0-9A-Fa-f]* dev:[0-9]* from LID:$1 TID:\(0x[0-9a-f]*\).*/\1/p" \
        "$WORK/sm/osm.log" | sort -u | wc -l
}
all_told() { test "$(queued_changes)" = "$(($(losses) + $(regains)))"; }
osm_has_all() { test "$(osm_notices "$SPINE1_LID")" = "$(queued_notices)"; }

ai_start_all || exit 1
fl_switch_lids Hca2 SPINE1_LID=Spine1
reachable5() { at_least 5 count 'reach: .* unknown -> reachable'; }
check "Spine1 reaches its 5 peers" wait_until 40 reachable5
check_eq "no loss yet" 0 "$(losses)"

kill -STOP "$OSM_PID"
signal_others STOP
check "the others stopped: Spine1 loses 5 peers" wait_until 30 at_least 5 losses
signal_others CONT
check "the others resumed: Spine1 regains 5 peers" wait_until 30 at_least 5 regains
signal_others STOP
check "stopped again: 10 losses" wait_until 30 at_least 10 losses
signal_others CONT
check "resumed again: 10 regains" wait_until 30 at_least 10 regains
check_eq "Spine1 logged 20 changes of its 5 peers" 20 "$(($(losses) + $(regains)))"
check "while OpenSM is stopped the queue filled: Spine1 holds notices" \
    grep -q 'reach: trap queue full: notices held' "$LOG"
held=$(queued_notices)
check "... and queued 6 of them (2 slots kept for the SMA's traps): $held" test "$held" = 6

kill -CONT "$OSM_PID"
check "OpenSM resumed: Spine1 sends every held notice (their changes add up to 20)" \
    wait_until 60 all_told
check_eq "changes in Spine1's queued notices" 20 "$(queued_changes)"
check "OpenSM logs a vendor notice from Spine1 (LID $SPINE1_LID) per queued notice ($(queued_notices))" \
    wait_until 60 osm_has_all
check "no agent logged a notice 'not queued'" bash -c "! grep -l 'not queued' '$WORK'/*/err"
ai_stop_agents
fl_finish
