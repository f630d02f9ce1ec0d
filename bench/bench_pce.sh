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
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
WORK=$(mktemp -d)
PIDS=()
PATH_TO_SPINE=0,1,1 # Hca1 port 1 -> Leaf1, Leaf1 port 1 -> Spine1 (tests/integration/ft-2s4l.net)
PORT=1              # the spine port counters are read of

cleanup() {
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_for() { # FILE SECONDS REGEX
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do grep -qE "$3" "$1" 2> /dev/null && return 0; sleep 0.1; done
    return 1
}

at_hca1() { # SOCK COMMAND...: run COMMAND as a umad2sim client on Hca1
    local sock=$1 dir
    shift
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=$sock "$@")
}

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
# A: external portzerod.
"$BIN/pzfabric" --sockname "pzpA$$" --agent Spine1 "$NET" > a.out 2> a.err &
PIDS+=($!)
wait_for a.out 10 '^ready$' || { echo "pzfabric did not start"; exit 1; }
mkdir agent
(cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME="pzpA$$" \
    exec "$BIN/portzerod" -o board=sim > ../agent.out 2> ../agent.err) &
PIDS+=($!)
wait_for agent.out 10 '^ready$' || { echo "portzerod did not start"; exit 1; }
lid_a=$(subnet_up "pzpA$$")
# B: in-process PMA in pzfabric.
"$BIN/pzfabric" --sockname "pzpB$$" "$NET" > b.out 2> b.err &
PIDS+=($!)
wait_for b.out 10 '^ready$' || { echo "pzfabric did not start"; exit 1; }
lid_b=$(subnet_up "pzpB$$")
# C: ibsim.
IBSIM_SOCKNAME="pzpC$$" ibsim -s -n "$NET" > c.out 2>&1 < /dev/null &
PIDS+=($!)
sleep 0.5
lid_c=$(subnet_up "pzpC$$")

for ((run = 0; run < RUNS; run++)); do
    client "pzpA$$" "${lid_a:-0}" >> a.runs
    client "pzpB$$" "${lid_b:-0}" >> b.runs
    client "pzpC$$" "${lid_c:-0}" >> c.runs
done
# median FILE: the run with the median rate: "answered seconds rate errors".
median() { sort -n -k3 "$1" 2> /dev/null | awk '{ l[NR] = $0 } END { if (NR) print l[int((NR + 1) / 2)] }'; }
read -r a_n _ a_rate a_err < <(median a.runs)
read -r b_n _ b_rate b_err < <(median b.runs)
read -r c_n _ c_rate c_err < <(median c.runs)

printf 'bench_pce: PortCountersExtended Gets/s end to end (Hca1 -> Spine1 port %s), window %s, median of %s runs of %s s\n' \
    "$PORT" "$WINDOW" "$RUNS" "$SECONDS_PER_RUN"
printf '  A. external portzerod (board/sim)   %8s/s  (%s answered, %s errors)\n' "${a_rate:-0}" "${a_n:-0}" "${a_err:-?}"
printf '  B. pzfabric in-process PMA          %8s/s  (%s answered, %s errors)\n' "${b_rate:-0}" "${b_n:-0}" "${b_err:-?}"
printf '  C. ibsim (reference)                %8s/s  (%s answered, %s errors)\n' "${c_rate:-0}" "${c_n:-0}" "${c_err:-?}"
awk -v a="${a_rate:-0}" -v b="${b_rate:-0}" -v c="${c_rate:-0}" 'BEGIN {
    if (c > 0) printf "  ratio A/C %.2f   B/C %.2f\n", a / c, b / c;
    if (b > 0) printf "  ratio A/B %.2f  (cost of the external agent)\n", a / b;
}'
