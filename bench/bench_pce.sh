#!/bin/bash
# bench_pce.sh - PortCountersExtended Gets per second answered end to end by
# a switch, from a client on an HCA (pz-pce-client: LID-routed PMA GMPs
# through libibumad/umad2sim, WINDOW outstanding), Hca1 -> Leaf1 -> Spine1:
#   A. by one external portzerod serving the spine (pzfabric --agent),
#   B. by portzero's PMA in-process in pzfabric (same fabric, no agent),
#   C. by ibsim's own PMA (the reference simulator), same topology.
# All three are measured in this run, in alternating rounds (RUNS, default 3;
# the medians are compared, so load changes on a shared machine hit all three
# alike); ratios are printed against C and B.  LID routing needs an SM:
# OpenSM brings each fabric up and is stopped before the measurements.
set -uo pipefail

BIN=${1:?usage: bench_pce.sh BINDIR NETFILE [SECONDS] [WINDOW]}
NET=${2:?}
SECONDS_PER_RUN=${3:-2}
WINDOW=${4:-16}
RUNS=${RUNS:-3}
BIN=$(cd "$BIN" && pwd)
NET=$(cd "$(dirname "$NET")" && pwd)/$(basename "$NET")
WORK=$(mktemp -d)
PIDS=()
PATH_TO_SPINE=0,1,1 # Hca1 port 1 -> Leaf1, Leaf1 port 1 -> Spine1 (tests/integration/ft-2s4l.net)
PORT=1              # the spine port counters are read of
# shellcheck source=lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
trap bench_stop_all EXIT

# subnet_up SOCK: OpenSM at Hca1 until SUBNET UP (and its traps repressed),
# then stopped; prints Spine1's LID.
subnet_up() {
    local sock=$1 dir=$WORK/sm-$1 pid
    mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump"
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=$sock \
        OSM_CACHE_DIR=$dir/cache OSM_TMP_DIR=$dir/tmp \
        exec opensm -d2 -R ftree --connect_roots --dump_files_dir "$dir/dump" \
        -f "$dir/osm.log" > "$dir/opensm.out" 2>&1 < /dev/null) &
    pid=$!
    wait_for "$dir/osm.log" 60 'SUBNET UP' || echo "OpenSM did not bring $sock up" >&2
    sleep 3
    kill -TERM "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    at_hca1 "$sock" smpquery -t 3000 -D portinfo "$PATH_TO_SPINE" 0 2> /dev/null |
        sed -n 's/^Lid:\.*//p'
}

client() { # SOCK LID -> prints the client's result line
    at_hca1 "$1" "$BIN/pz-pce-client" "$2" "$PORT" "$SECONDS_PER_RUN" "$WINDOW"
}

cd "$WORK" || exit 1
bench_three_sims "pzpA$$" "pzpB$$" "pzpC$$" || exit 1
lid_a=$(subnet_up "pzpA$$")
lid_b=$(subnet_up "pzpB$$")
lid_c=$(subnet_up "pzpC$$")

for ((run = 0; run < RUNS; run++)); do
    client "pzpA$$" "${lid_a:-0}" >> a.runs
    client "pzpB$$" "${lid_b:-0}" >> b.runs
    client "pzpC$$" "${lid_c:-0}" >> c.runs
done
# median_run FILE: the run with the median rate: "answered seconds rate errors".
median_run() { sort -n -k3 "$1" 2> /dev/null | awk '{ l[NR] = $0 } END { if (NR) print l[int((NR + 1) / 2)] }'; }
read -r a_n _ a_rate a_err < <(median_run a.runs)
read -r b_n _ b_rate b_err < <(median_run b.runs)
read -r c_n _ c_rate c_err < <(median_run c.runs)

printf 'bench_pce: PortCountersExtended Gets/s end to end (Hca1 -> Spine1 port %s), window %s, median of %s runs of %s s\n' \
    "$PORT" "$WINDOW" "$RUNS" "$SECONDS_PER_RUN"
bench_three_rates PMA "$a_rate" "$a_n" "$a_err" "$b_rate" "$b_n" "$b_err" "$c_rate" "$c_n" "$c_err"
