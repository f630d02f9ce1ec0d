#!/bin/bash
# bench_agents.sh BINDIR [NETFILE] - every switch runs its own portzerod
# (issue 27): the 648-port fat tree (gen-fattree 2: 18 spines, 36 leaves)
# on pzfabric with all 54 switches served by external agents (board/sim, an
# IPoIB address each, reachability on, the monitor on), OpenSM -R ftree
# --connect_roots.  Prints:
#   - start-up: all agents started at once until the last says "ready";
#   - OpenSM start -> SUBNET UP (its log), then SUBNET UP -> the last agent
#     joined the IPoIB broadcast group (show ip), and -> every agent has
#     discovered the others (its reachability table complete);
#   - failed SA requests: the agents' "no SA answer" lines and OpenSM's RMPP
#     errors (libpzumad2sim.so's "RMPP:" lines) -- 0 is the goal;
#   - every agent's `route check` at once: how many fail, the slowest
#     (goal: all succeed, the slowest within 2 s);
#   - idle: CPU (utime + stime from /proc) of pzfabric and of the agents
#     over IDLE_SECONDS, as a share of one CPU; pzfabric's per agent (goals:
#     an agent 0.2 % or less, pzfabric 0.1 % or less per agent);
#   - lost notices: OpenSM restarted without --connect_roots, so each spine
#     loses every other spine at once; the notices the agents queued, those
#     OpenSM logged (distinct TIDs per switch LID), and the agents' "not
#     queued" lines -- 0 lost is the goal.
# Prints, never passes or fails.  TREE (gen-fattree arguments, default "2")
# picks another tree, e.g. TREE="2 --spines 3 --leaves 6 --hosts-per-leaf 2
# --radix 8" for a 9-agent run; IDLE_SECONDS (default 30).  Several minutes
# for the 54 agents on a small machine.  `make bench` passes a topology file
# as NETFILE for the other benchmarks; this one ignores it.
set -u
BIN=$(cd "${1:?usage: bench_agents.sh BINDIR [NETFILE]}" && pwd)
TREE=${TREE:-2}
IDLE_SECONDS=${IDLE_SECONDS:-30}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_need bench_agents opensm saquery || exit 0
# shellcheck source=../tests/fabric/fabric_lib.sh
source "$(dirname "$0")/../tests/fabric/fabric_lib.sh"
pzt_require_preload
fl_init bench-agents "$BIN/pzfabric" "$BIN/pzfabric-ctl"
declare -A AGENT ADDR
SWITCHES=()
trap 'for s in "${SWITCHES[@]}"; do [ -z "${AGENT[$s]:-}" ] || stop_pid "${AGENT[$s]}"; done; fl_cleanup' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
cli() { "$BIN/pz-cli" -s "$WORK/$1/ctl" -t 60 "${@:2}"; }
# cpu_ticks PID...: utime + stime of the processes, in clock ticks.
cpu_ticks() {
    local p t=0
    for p in "$@"; do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2> /dev/null || echo 0)))
    done
    echo "$t"
}
agent_pids() { local s; for s in "${SWITCHES[@]}"; do echo "${AGENT[$s]}"; done; }

"$BIN/gen-fattree" $TREE > "$WORK/tree.net" # TREE: gen-fattree's arguments, split on purpose
mapfile -t SWITCHES < <(sed -n 's/^Switch[[:space:]]*[0-9]*[[:space:]]*"\([^"]*\)".*/\1/p' "$WORK/tree.net")
N=${#SWITCHES[@]}
all=()
for i in "${!SWITCHES[@]}"; do
    all+=(--agent "${SWITCHES[$i]}")
    ADDR[${SWITCHES[$i]}]="10.90.$((i / 250)).$((i % 250 + 1))"
done
echo "bench_agents: $N switches, each with its own portzerod (gen-fattree $TREE)"
fl_start_fabric "${all[@]}" "$WORK/tree.net" || exit 1

# Start-up: every agent at once.
t0=$(now)
for s in "${SWITCHES[@]}"; do
    mkdir -p "$WORK/$s"
    (cd "$WORK/$s" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$s IBSIM_SOCKNAME=$SOCK exec \
        "$BIN/portzerod" -o board=sim -o "ip_address=${ADDR[$s]}/16" -o "ctl_socket=$WORK/$s/ctl" \
        -v > "$WORK/$s/out" 2> "$WORK/$s/err" < /dev/null) &
    AGENT[$s]=$!
done
ready() { test "$(cat "$WORK"/*/out 2> /dev/null | grep -c '^ready$')" -ge "$N"; }
wait_until 600 ready || echo "bench_agents: not every agent got ready"
echo "start-up: $N agents ready in $(since "$t0") s"

# SUBNET UP, joins, discovery.
fl_start_opensm host-1-1
fl_wait_up 600 || { echo "bench_agents: OpenSM never reached SUBNET UP"; exit 0; }
tu=$(now)
echo "OpenSM -R ftree --connect_roots: start -> SUBNET UP $(log_seconds "$WORK/sm/osm.log") s"
all_joined() {
    local s
    for s in "${SWITCHES[@]}"; do
        cli "$s" show ip 2> /dev/null | grep -q '^IPoIB state *up' || return 1
    done
}
wait_until 600 all_joined || echo "bench_agents: not every agent joined"
echo "join: SUBNET UP -> all $N agents in the broadcast group: $(since "$tu") s"
discovered() {
    local s
    for s in "${SWITCHES[@]}"; do
        test "$(cli "$s" show reachability json 2> /dev/null |
            python3 -c 'import json,sys; print(len(json.load(sys.stdin)["switches"]))' 2> /dev/null)" \
            = "$((N - 1))" || return 1
    done
}
wait_until 600 discovered || echo "bench_agents: not every agent discovered the others"
echo "discovery: SUBNET UP -> every agent lists the $((N - 1)) others: $(since "$tu") s"
echo "failed SA requests: $(cat "$WORK"/*/err | grep -c 'no SA answer') agents' 'no SA answer'" \
    "lines, $(grep -c 'RMPP:' "$WORK/sm/opensm.out") RMPP errors at OpenSM (goal: 0 and 0)"

# Every agent's route check at once.
for s in "${SWITCHES[@]}"; do
    (t=$(now); cli "$s" route check > "$WORK/$s/rc" 2>&1; rc=$?; echo "$rc $(since "$t")" > "$WORK/$s/rc.t") &
done
checks_done() { test "$(cat "$WORK"/*/rc.t 2> /dev/null | wc -l)" -ge "$N"; }
wait_until 600 checks_done
# A check that ran exits 0 (all routed) or 1 (unrouted pairs); a failed one says so.
echo "route check on all $N at once: $(cat "$WORK"/*/rc | grep -c '^% ') failed" \
    "($(cat "$WORK"/*/rc | grep '^% ' | sort | uniq -c | head -n 3 | tr -s ' \n' ' ')), slowest" \
    "$(awk '{ print $2 }' "$WORK"/*/rc.t | sort -n | tail -n 1) s (goal: 0 failed, <= 2 s)"

# Idle.
mapfile -t PIDS < <(agent_pids)
hz=$(getconf CLK_TCK)
fab0=$(cpu_ticks "$FABRIC_PID")
ag0=$(cpu_ticks "${PIDS[@]}")
sleep "$IDLE_SECONDS"
fab1=$(cpu_ticks "$FABRIC_PID")
ag1=$(cpu_ticks "${PIDS[@]}")
awk -v f=$((fab1 - fab0)) -v a=$((ag1 - ag0)) -v n="$N" -v s="$IDLE_SECONDS" -v hz="$hz" 'BEGIN {
    printf "idle over %d s: pzfabric %.2f %% of a CPU (%.3f %% per agent; goal 0.1 %%), agents %.2f %% together, %.3f %% each (goal 0.2 %%)\n",
        s, 100 * f / hz / s, 100 * f / hz / s / n, 100 * a / hz / s, 100 * a / hz / s / n }'

# Lost notices: without --connect_roots every spine loses the other spines at once.
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
pzt_start_opensm "$WORK/sm" "$SOCK" host-1-1 -R ftree
OSM_PID=$PZT_OSM_PID
fl_wait_up 600 || { echo "bench_agents: the second OpenSM never reached SUBNET UP"; exit 0; }
spines=$(printf '%s\n' "${SWITCHES[@]}" | grep -c '^spine-')
unreachable_spines() {
    local s
    for s in "${SWITCHES[@]}"; do
        case $s in spine-*) ;; *) continue ;; esac
        test "$(grep -c 'reach: spine-.* -> unreachable$' "$WORK/$s/err")" -ge "$((spines - 1))" ||
            return 1
    done
}
wait_until 300 unreachable_spines || echo "bench_agents: not every spine saw the others unreachable"
queued() { cat "$WORK"/*/err | grep -c 'notice (trap 0x000[34]) for LID [0-9]* queued'; }
logged() {
    sed -n 's/.*Received Vendor Notice .* from LID:\([0-9]*\) TID:\(0x[0-9a-f]*\).*/\1 \2/p' \
        "$WORK/sm.1/osm.log" "$WORK/sm/osm.log" | sort -u | wc -l
}
all_logged() { test "$(logged)" -ge "$(queued)"; }
wait_until 120 all_logged
echo "notices: $(queued) queued by the agents, $(logged) received by OpenSM (distinct LID and TID)," \
    "$(cat "$WORK"/*/err | grep -c 'not queued') 'not queued', lost $(($(queued) - $(logged))) (goal: 0)"
