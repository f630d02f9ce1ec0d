#!/bin/bash
# bench_dftree.sh BINDIR [NETFILE] - the dFtree loop on the 648-port fat
# tree (gen-fattree 2: 18 spines, 36 leaves, 648 CAs) on pzfabric with
# OpenSM (QoS: SL 1 -> VL 1) and pz-dftree, the switches' monitors sampling
# every $IVL ms (default 1000, the monitor's default).
#
# Two hot-spots: host-1-1 and host-10-1 each sink 25 Gb/s; host-2-1 ..
# host-7-1 send host-1-1 40 Gb/s each, host-11-1 .. host-14-1 send
# host-10-1 40 Gb/s each; victims host-2-1 -> host-1-2 and host-11-1 ->
# host-10-2 (40 Gb/s each, behind a contributor's flow).  For each loop
# driver:
#   notices   pz-dftree on OpenSM's Reports of the switches' notices ($RUNS
#             runs, default 3: the median recovery);
#   poll S    pz-dftree --poll S s --no-notices (PM-style sweeps alone): S = 180, OpenSM
#             perfmgr's default sweep, and 10 (DFTREE_SWEEPS="180 10");
# it prints the victims' throughput before (alone), during (held, right
# after the contributors start) and after (recovered), the time from the
# contributors' start to the victims' recovery (the last contributor flow's
# move, pzfabric's board time = CLOCK_MONOTONIC), pz-dftree's CPU and MADs
# per second over the run, and the recovery-time ratio of each poll driver
# to the notices.  The poll drivers start right after a sweep: their
# recovery is the worst case (a full sweep); the notices' bound is the goal:
# 2 monitor intervals + 100 ms.  Prints, never passes or fails on speed.
set -euo pipefail

BIN=${1:?usage: bench_dftree.sh BINDIR [NETFILE]}
IVL=${IVL:-1000}
SWEEPS=${DFTREE_SWEEPS:-180 10}
# shellcheck source=sim_lib.sh
source "$(dirname "$0")/sim_lib.sh"
pzt_require opensm saquery
pzt_require_preload
pzt_init bench-dftree
PY=/usr/bin/python3

MGR="host-36-17"
SM="host-36-18"
HOTS=(host-1-1 host-10-1)
declare -A CONTRIB=([host-1-1]="host-2-1 host-3-1 host-4-1 host-5-1 host-6-1 host-7-1"
    [host-10-1]="host-11-1 host-12-1 host-13-1 host-14-1")
VICTIMS=("host-2-1 host-1-2" "host-11-1 host-10-2")

"$BIN/gen-fattree" 2 > ft648.net
start_pzfabric F ft648.net --monitor-interval "$IVL" -v --repath-issuer "$MGR"
cat > qos.conf << 'CONF'
qos_max_vls 2
qos_high_limit 0
qos_vlarb_high 0:0
qos_vlarb_low 0:64,1:64
qos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0
CONF
start_opensm S F "$SM" -Q --conf "$WORK/qos.conf"
if ! wait_subnet_up S 300; then
    echo "bench_dftree: no SUBNET UP" >&2
    exit 0
fi
sleep 2
SOCK=${PZT_SOCK[F]}
ctl() { "$BIN/pzfabric-ctl" --sockname "$SOCK" "$@"; }
mono() { "$PY" -c 'import time; print("%.6f" % time.monotonic())'; }
field() { ctl flow-list | awk -v id="$1" -v n="$2" '$1 == id { print $n }'; }
notices() { grep -cE 'Received Vendor Notice type:4 vend:0x0002C9' "$WORK/S/osm.log" || true; }

# flows SL: every flow, the contributors on SL; ids in CIDS, VIDS.
flows() {
    local h c v
    CIDS=() VIDS=()
    for h in "${HOTS[@]}"; do
        for c in ${CONTRIB[$h]}; do CIDS+=("$(ctl flow-add "$c" "$h" 40 --sl "$1")"); done
    done
    for v in "${VICTIMS[@]}"; do
        # shellcheck disable=SC2086 # "SRC DST"
        VIDS+=("$(ctl flow-add $v 40)")
    done
}
del_all() {
    local id
    for id in "${CIDS[@]}" "${VIDS[@]}"; do ctl flow-del "$id" > /dev/null; done
}
victim_rates() {
    local id
    for id in "${VIDS[@]}"; do printf '%s ' "$(field "$id" 6)"; done
}
# all_slow: every contributor flow on SL 1.
all_slow() {
    local id
    for id in "${CIDS[@]}"; do [ "$(field "$id" 4)" = 1 ] || return 1; done
}
# last_move: the latest moved= board time of the contributor flows, seconds.
last_move() {
    local id
    for id in "${CIDS[@]}"; do field "$id" 8; done | sed 's/moved=//' | sort -g | tail -1
}
# wait_clear N: until OpenSM has N notices (the clears came).
wait_clear() { wait_until 60 test "$(notices)" -ge "$1"; }
run_diag F "$MGR" saquery NR > nr.txt 2>&1
# lid NODE: the LID of NODE's port 1 (SA NodeRecords).
lid() {
    awk -v n="$1" '/^NodeRecord/ { lid = "" } /^[ \t]*lid\./ { lid = $0; sub(/.*\./, "", lid) }
        /NodeDescription\./ { d = $0; sub(/[^.]*\.+/, "", d); if (d == n) print lid }' nr.txt | head -1
}
# reset_hosts: a fast-lane notice for each hot-spot to each contributor, by hand (a poll
# driver stopped before its next sweep saw the clear leaves the hosts on the slow lane).
reset_hosts() {
    local h c
    for h in "${HOTS[@]}"; do
        for c in ${CONTRIB[$h]}; do
            run_diag F "$MGR" "$BIN/pz-dftree" --send fast-lane --hot "$(lid "$h")" \
                --to "$(lid "$c")" > /dev/null 2>&1 || true
        done
    done
}

for h in "${HOTS[@]}"; do ctl ca-rate "$h" 25 > /dev/null; done
# Before: the victims alone.
CIDS=()
VIDS=()
for v in "${VICTIMS[@]}"; do
    # shellcheck disable=SC2086
    VIDS+=("$(ctl flow-add $v 40)")
done
BEFORE=$(victim_rates)
del_all
# Reference: the contributors on SL 1 by hand.
flows 1
REF=$(victim_rates)
del_all
wait_clear 4 || true
echo "648-port tree, monitors every $IVL ms, ${#CIDS[@]} contributors of ${#HOTS[@]} hot-spots, victims alone: $BEFORE Gb/s, with the contributors on VL 1 (reference): $REF Gb/s"

declare -A RECOVERY
# run NAME ARGS...: one loop driver.
run() {
    local name=$1 t0 during after moved rec pid cpu t_start t_end ticks secs sent recv ok=1
    shift
    mkdir -p "$WORK/$name"
    (cd "$WORK/$name" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=$MGR IBSIM_SOCKNAME=$SOCK \
        exec "$BIN/pz-dftree" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" < /dev/null) &
    pid=$!
    # shellcheck disable=SC2004,SC2034 # lib.sh stops it on exit
    PZT_PID[$name]=$pid
    t_start=$(mono)
    if ! wait_file "$WORK/$name.out" 60 '^ready$' "$pid"; then
        echo "$name: pz-dftree did not start" >&2
        return 0
    fi
    t0=$(mono)
    flows 0
    during=$(victim_rates)
    local limit=$((${SWEEP_S:-0} + 60))
    wait_until "$limit" all_slow || ok=0
    after=$(victim_rates)
    moved=$(last_move)
    rec=$(awk -v a="$t0" -v b="$moved" 'BEGIN { printf "%.3f", b - a }')
    [ "$ok" = 1 ] || rec=nan
    RECOVERY[$name]=$rec
    del_all
    # the clears: within 2 monitor intervals; on notices pz-dftree sends the fast-lane notices
    clears() { [ "$(grep -c 'clear at switch LID .*: hot-spot LID' "$WORK/$name.err")" -ge "${#HOTS[@]}" ]; }
    if [ "${name%-*}" = notices ]; then
        wait_until 30 clears || true
    else
        sleep $((3 * IVL / 1000 + 1))
    fi
    ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    t_end=$(mono)
    stop_pid "$pid"
    unset "PZT_PID[$name]"
    [ "$(grep -c 'clear at switch LID .*: hot-spot LID' "$WORK/$name.err")" -ge "${#HOTS[@]}" ] ||
        reset_hosts
    secs=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { print b - a }')
    cpu=$(awk -v t="$ticks" -v s="$secs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", 100 * t / hz / s }')
    read -r sent recv < <(sed -n 's/.* \([0-9]*\) MADs sent, \([0-9]*\) received.*/\1 \2/p' "$WORK/$name.err")
    echo "$name: victims during $during-> after $after Gb/s (reference $REF);" \
        "recovery $rec s after the contributors' start (goal for notices: $(awk -v i="$IVL" 'BEGIN { print (2 * i + 100) / 1000 }') s);" \
        "pz-dftree CPU $cpu % of a core, $(awk -v n="${sent:-0}" -v m="${recv:-0}" -v s="$secs" 'BEGIN { printf "%.1f", (n + m) / s }') MADs/s over ${secs%.*} s" \
        "(contributor search: $(grep -o 'handled in [0-9.]* ms' "$WORK/$name.err" | head -2 | tr '\n' ' '))"
}

# notices: RUNS runs (default 3; the onset lands anywhere in a monitor interval), the median
recs=()
for ((i = 1; i <= ${RUNS:-3}; i++)); do
    SWEEP_S=0 run "notices-$i" --check 0
    recs+=("${RECOVERY[notices-$i]}")
done
RECOVERY[notices]=$(median "${recs[@]}")
echo "notices: median recovery ${RECOVERY[notices]} s over ${#recs[@]} runs (${recs[*]})"
for s in $SWEEPS; do
    SWEEP_S=$s run "poll-$s" --poll $((s * 1000)) --no-notices
done
for s in $SWEEPS; do
    echo "recovery-time ratio poll-$s / notices: $(awk -v a="${RECOVERY[poll-$s]}" -v b="${RECOVERY[notices]}" 'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.1f", a / b; else print "n/a" }')"
done
