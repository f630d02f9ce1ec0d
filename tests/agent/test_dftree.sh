#!/bin/bash
# test_dftree.sh - the dFtree scenarios: a hot-spot
# CA in a small fat tree, three contributors and one victim, checked through
# the switches' congestion monitors (the vendor PMA attribute read by
# pz-hotspot) and through the hot-spot notices OpenSM receives (its log).
#
#   test_dftree.sh MODE PZFABRIC PZFABRIC_CTL GEN_FATTREE PZ_HOTSPOT [PORTZEROD]
#
# MODE:
#   ftree    2 spines, 4 leaves of 4 hosts, 4 uplinks per leaf (1:1)
#   oversub  the same with 2 uplinks per leaf (2:1 oversubscribed)
#   agent    as ftree, but the hot-spot's leaf is served by an external
#            portzerod (board = sim): its counters come over board/sim, it
#            finds its CA ports by neighbour discovery (directed-route
#            NodeInfo) and its notices leave through umad
#
# The scenario (after the dFtree paper): host-1-1 is the hot-spot, a CA that
# sinks 25 Gb/s on a 100 Gb/s link (pzfabric-ctl ca-rate); host-2-1,
# host-3-1 and host-4-1 send it 40 Gb/s each (contributors); host-2-1 also
# sends 40 Gb/s to host-1-2 (the victim: it shares host-2-1's link and
# leaf-2's ingress queue with a contributor, so head-of-line blocking slows
# it).  Checks, with the monitors sampling every $IVL ms:
#   - exactly one port of the whole fabric is hot-spot: leaf-1 port 1, and
#     its class changed by the monitor's second sample after the flows' start;
#   - the victim's destination port (leaf-1 port 2) never changed class;
#   - after flow-del of every flow the port is normal again by the second
#     sample;
#   - OpenSM logged exactly two vendor notices (distinct TIDs), both from
#     leaf-1's LID, the first while the attribute said hot-spot, the second
#     after it said normal; no other switch sent one.
# Latencies are counted in the monitor's own samples, by its own clock
# (pz-hotspot's board times: now_ns of an answer, since_ns of the last class
# change, time_ns of each of the 3 newest samples): every answer of the poll
# is kept, so the samples the monitor took between "the flows are in place"
# (now_ns of a query made after the last flow-add or flow-del returned) and
# the class change are known, and there must be at most two of them, the
# change's own included (the design: the first sample whose whole interval
# sees the new traffic changes the class; the one before may be partial).
# A late scheduler delays the samples but adds none, so load cannot fail
# it; if the polls were so far apart that a sample may be missing from
# their histories, only a count that is already too high fails.
set -uo pipefail

MODE=${1:?usage: test_dftree.sh ftree|oversub|agent PZFABRIC PZFABRIC_CTL GEN_FATTREE PZ_HOTSPOT [PORTZEROD]}
PZFABRIC=${2:?}
CTL=${3:?}
GEN=${4:?}
HOTSPOT=${5:?}
PORTZEROD=${6:-}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # PZFABRIC and PZT_LOG are lib.sh's
# shellcheck source=../integration/lib.sh
source "$HERE/../integration/lib.sh"

IVL=500                      # monitor interval, ms
MAX_SAMPLES=2                # acceptance: the class changes by the second sample
HOT="host-1-1"                # the hot-spot CA, on leaf-1 port 1
HOT_PORT=1
VICTIM_PORT=2                # host-1-2, the victim's destination
HS_HOST="host-4-3"            # where pz-hotspot runs
SM_HOST="host-4-4"            # where OpenSM runs
VENDOR_RE='Received Vendor Notice type:4 vend:0x0002C9 dev:31344 from LID:'

pzt_init "dftree-$MODE"
pzt_require opensm ibswitches
case "$MODE" in
ftree) UPLINKS=4 ;;
oversub) UPLINKS=2 ;;
agent)
    UPLINKS=4
    [ -x "$PORTZEROD" ] || {
        echo "usage: agent mode needs PORTZEROD"
        exit 2
    }
    ;;
*)
    echo "unknown mode $MODE"
    exit 2
    ;;
esac

"$GEN" 2 --spines 2 --leaves 4 --hosts-per-leaf 4 --uplinks "$UPLINKS" --radix 8 > "$WORK/tree.net" ||
    exit 1
agent_opts=()
[ "$MODE" = agent ] && agent_opts=(--agent leaf-1)
start_pzfabric F "$WORK/tree.net" -v --monitor-interval "$IVL" "${agent_opts[@]}" || exit 1
SOCK=${PZT_SOCK[F]}

if [ "$MODE" = agent ]; then
    mkdir -p "$WORK/agent"
    (cd "$WORK/agent" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=leaf-1 IBSIM_SOCKNAME=$SOCK \
        exec "$PORTZEROD" -o board=sim -o monitor_interval_ms=$IVL -vv \
        > "$WORK/agent.out" 2> "$WORK/agent.err" < /dev/null) &
    PZT_PID[A]=$!
    PZT_LOG[A]=$WORK/agent.err
    check "portzerod ready" wait_file "$WORK/agent.out" 20 '^ready$' "${PZT_PID[A]}"
fi

start_opensm S F "$SM_HOST"
wait_subnet_up S 90 || exit 1
note "SUBNET UP after ${SUBNET_UP_SECONDS}s"

# ctl ARGS...: pzfabric-ctl of this fabric.
ctl() { "$CTL" --sockname "$SOCK" "$@"; }
# hs ARGS...: pz-hotspot from $HS_HOST, output in $WORK/hs.out; returns its status.
hs() { run_diag F "$HS_HOST" "$HOTSPOT" -t 3000 "$@" > "$WORK/hs.out" 2> "$WORK/hs.err"; }
# pfield KEY: KEY's value in the port=... line of $WORK/hs.out.
pfield() { grep -m1 '^port=' "$WORK/hs.out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

run_diag F "$HS_HOST" ibswitches > "$WORK/switches.txt" 2>&1
declare -A LID
while read -r name lid; do
    LID[$name]=$lid
done < <(sed -n 's/.*"\([a-z0-9-]*\)".* lid \([0-9]*\) .*/\1 \2/p' "$WORK/switches.txt")
check_eq "six switches with LIDs" 6 "${#LID[@]}"
LEAF=${LID[leaf-1]:-0}

# hot_ports: "switch:port" of every hot-spot port of the fabric, sorted, one line.
hot_ports() {
    local sw
    for sw in "${!LID[@]}"; do
        hs "${LID[$sw]}" || echo "$sw:unreadable"
        sed -n "s/^port=\([0-9]*\) class=hot-spot .*/$sw:\1/p" "$WORK/hs.out"
    done | sort | tr '\n' ' '
}

# poll PORT: leaf-1's PORT record into $WORK/hs.out (hs), the answer also
# appended to $WORK/polls, so every sample time any answer showed is kept.
poll() {
    local rc
    hs "$LEAF" "$1"
    rc=$?
    { cat "$WORK/hs.out"; echo "--"; } >> "$WORK/polls"
    return $rc
}

# mark_start PORT: the flows just changed; a new $WORK/polls, START_NS the
# board time of an answer made after the change was in place.
mark_start() {
    : > "$WORK/polls"
    poll "$1"
    START_NS=$(pfield now_ns)
}

# wait_class PORT CLASS SECONDS: until leaf-1's PORT has class CLASS; sets
# CHANGED_NS to the board time of the sample that changed its class.
wait_class() {
    local deadline=$((SECONDS + $3))
    CHANGED_NS=''
    while ((SECONDS < deadline)); do
        if poll "$1" && [ "$(pfield class)" = "$2" ]; then
            CHANGED_NS=$(pfield since_ns)
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# samples_after START CHANGE: "COUNT GAP FOUND" from the answers in
# $WORK/polls: COUNT samples with START < time <= CHANGE; GAP 1 when two
# answers in a row share no sample (samples between them may be unseen);
# FOUND 1 when the change's own sample was seen.
samples_after() {
    awk -v start="$1" -v change="$2" '
        /^port=/ { n++; next }
        /^  sample=/ {
            t = $0; sub(/.* time_ns=/, "", t); sub(/ .*/, "", t)
            if (!(n in newest)) newest[n] = t
            oldest[n] = t
            seen[t] = 1
        }
        END {
            gap = 0
            for (i = 2; i <= n; i++)
                if ((i - 1) in newest && i in oldest && oldest[i] + 0 > newest[i - 1] + 0) gap = 1
            count = 0
            for (t in seen) if (t + 0 > start + 0 && t + 0 <= change + 0) count++
            print count, gap, ((change "") in seen) ? 1 : 0
        }' "$WORK/polls"
}

# check_latency WHAT: the class change came by the monitor's MAX_SAMPLES-th
# sample after START_NS (see the header). Fails when the answers show more
# samples than that; when they may have missed one, fails only if the count
# seen is already too high.
check_latency() {
    local count gap found
    read -r count gap found <<< "$(samples_after "$START_NS" "$CHANGED_NS")"
    note "$1: class changed at sample $count after the flows were $2 ($(((CHANGED_NS - START_NS) / 1000000)) ms of board time; gap $gap, change seen $found)"
    check "$1: the class changed after the flows were $2" test "$CHANGED_NS" -gt "$BEFORE_NS"
    if ((gap || !found)) && ((count <= MAX_SAMPLES)); then
        note "$1: polls too far apart to see every sample: only a count above $MAX_SAMPLES can fail"
    fi
    check "$1 within $MAX_SAMPLES samples ($count)" test "$count" -le "$MAX_SAMPLES"
}

# --- Discovery (agent mode): the leaf found its CAs by itself ----------------
if [ "$MODE" = agent ]; then
    check "agent: port 1 discovered as facing a CA" \
        wait_file "$WORK/agent.err" 10 'monitor: port 1 faces a CA'
    check "agent: uplink port 5 discovered as facing a switch" \
        wait_file "$WORK/agent.err" 10 'monitor: port 5 faces a switch'
fi
hs "$LEAF" "$HOT_PORT"
check_eq "leaf-1 port $HOT_PORT: peer ca, normal" "ca normal" "$(pfield peer) $(pfield class)"
hs "$LEAF" 5
check_eq "leaf-1 port 5: peer switch" "switch" "$(pfield peer)"
check_eq "idle fabric: no hot-spot anywhere" "" "$(hot_ports)"

# --- Onset ---------------------------------------------------------------------
check "ca-rate $HOT 25" ctl ca-rate "$HOT" 25
poll "$HOT_PORT"
BEFORE_NS=$(pfield now_ns)
FLOWS=()
for src in host-2-1 host-3-1 host-4-1; do
    id=$(ctl flow-add "$src" "$HOT" 40) && FLOWS+=("$id")
done
id=$(ctl flow-add host-2-1 host-1-2 40) && FLOWS+=("$id")
VICTIM_FLOW=${id:-}
check_eq "four flows added" 4 "${#FLOWS[@]}"
mark_start "$HOT_PORT"
check "leaf-1 port $HOT_PORT becomes hot-spot" wait_class "$HOT_PORT" hot-spot 20
check_latency onset started
check "OpenSM: onset notice from leaf-1 (LID $LEAF)" wait_log S 10 "${VENDOR_RE}${LEAF} TID:"
hs "$LEAF" "$HOT_PORT"
check_eq "still hot-spot when the notice is in" hot-spot "$(pfield class)"
check_eq "exactly one hot-spot port in the fabric" "leaf-1:$HOT_PORT " "$(hot_ports)"
sleep "$(awk -v i="$IVL" 'BEGIN { print 3 * i / 1000 }')"
check_eq "after 3 more intervals: still exactly that port" "leaf-1:$HOT_PORT " "$(hot_ports)"
for sw in "${!LID[@]}"; do
    hs "${LID[$sw]}" && sed -n "s/^port=\([0-9]*\) class=\([a-z-]*\) .* congestion=\([0-9]*\) .*util_permille=\([0-9]*\) .*/note   $sw port \1 \2 (congestion \3\/s, util \4 permille)/p" "$WORK/hs.out"
done
ctl flow-list > "$WORK/flows.txt" 2>&1
note "flows (id src dst sl demand achieved):"
sed 's/^/note   /' "$WORK/flows.txt"
vict=$(awk -v id="$VICTIM_FLOW" '$1 == id { print $6 }' "$WORK/flows.txt")
check "the victim is slowed by the contributors (gets ${vict:-?} of 40 Gb/s)" \
    awk -v r="${vict:-40}" 'BEGIN { exit !(r < 40) }'
hs "$LEAF" "$VICTIM_PORT"
check_eq "victim's destination port $VICTIM_PORT: not hot-spot" normal "$(pfield class)"

# --- Clear -------------------------------------------------------------------------
poll "$HOT_PORT"
BEFORE_NS=$(pfield now_ns)
for id in "${FLOWS[@]}"; do
    ctl flow-del "$id" > /dev/null || echo "flow-del $id failed"
done
mark_start "$HOT_PORT"
check "leaf-1 port $HOT_PORT back to normal" wait_class "$HOT_PORT" normal 20
check_latency clear stopped
check "OpenSM: clear notice from leaf-1" wait_log S 10 "${VENDOR_RE}${LEAF} TID:" 2
check_eq "no hot-spot left" "" "$(hot_ports)"

# --- The victim's port never was hot-spot; the notices match the attribute ---------
hs "$LEAF" "$VICTIM_PORT"
check_eq "victim's port $VICTIM_PORT: never changed class" "normal 0" \
    "$(pfield class) $(pfield changes)"
hs "$LEAF" "$HOT_PORT"
check_eq "hot-spot port: exactly two class changes (onset, clear)" 2 "$(pfield changes)"
sleep 1
tids=$(grep -E "$VENDOR_RE" "$WORK/S/osm.log" | sed -n 's/.*from LID:\([0-9]*\) TID:\(0x[0-9a-fA-F]*\).*/\1 \2/p' | sort -u)
check_eq "OpenSM: two distinct vendor notices, both from leaf-1" "$LEAF $LEAF" \
    "$(echo "$tids" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
if [ "$MODE" = agent ]; then
    check "agent: onset and clear notices queued" \
        test "$(grep -cE 'monitor: port 1: hot-spot (onset|clear) notice queued' "$WORK/agent.err")" = 2
    check "agent: logged the hot-spot class changes" \
        grep -q 'monitor: port 1 normal -> hot-spot' "$WORK/agent.err"
    stop_pid "${PZT_PID[A]}"
    unset "PZT_PID[A]"
    check "agent: clean exit on SIGTERM" grep -q 'terminating on signal' "$WORK/agent.err"
else
    check "pzfabric: logged the hot-spot class changes" \
        grep -q 'monitor: leaf-1 port 1 normal -> hot-spot' "$WORK/F.fabric.err"
fi

pzt_finish
