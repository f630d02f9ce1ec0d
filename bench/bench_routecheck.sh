#!/bin/bash
# bench_routecheck.sh BINDIR [NETFILE] - how long pz-routecheck takes on the
# 648-port fat tree (gen-fattree 2: 54 switches, 648 CAs) and on a 3-level
# tree of about 1000 CAs (gen-fattree 3 --radix 16 --pods 16: 320
# switches, 1024 CAs), each on pzfabric with OpenSM -R ftree
# --connect_roots (and -l $LMC when LMC is set: every CA port owns 2^LMC
# LIDs, each a destination): the time to read the SA tables (NodeRecords,
# LinkRecords, LFTRecords, PortInfoRecords through umad2sim, RMPP
# reassembled by libpzumad2sim.so) and the time of the check itself, switch
# pairs only and with --all (CA destinations too), printed next to the goal
# of 1 s for the check.  Reference measured in the same run: saquery
# reading the same four tables (NR, LR, LFTR, PIR), one process each, as
# the diags do.
#
# Prints, never passes or fails on speed.  `make bench` passes a topology
# file as NETFILE for the other benchmarks; this one ignores it.  RUNS
# (default 3) runs of each measurement; medians printed.
set -euo pipefail

BIN=${1:?usage: bench_routecheck.sh BINDIR [NETFILE]}
RUNS=${RUNS:-3}
LMC=${LMC:-0}
OSM_LMC=()
[ "$LMC" = 0 ] || OSM_LMC=(-l "$LMC")
# shellcheck source=sim_lib.sh
source "$(dirname "$0")/sim_lib.sh" # BIN absolute, PZFABRIC, integration/lib.sh, lib.sh
pzt_require opensm saquery python3
pzt_require_preload
pzt_init bench-routecheck
PZT_DIAG_TIMEOUT=120

# median X...: the median of its arguments.

# json_get FILE KEY...: top-level values of pz-routecheck's JSON report.
json_get() {
    python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(*[str(d[k]).lower() for k in sys.argv[2:]])' "$@"
}

# now: seconds (with nanoseconds).
now() { date +%s.%N; }

# bench ID NET TITLE
bench() {
    local id=$1 net=$2 title=$3 run t0 t1 opt
    local -a read check check_all sa
    start_pzfabric "$id" "$net"
    start_opensm "$id.sm" "$id" host-1-1 -R ftree --connect_roots "${OSM_LMC[@]}"
    if ! wait_subnet_up "$id.sm" 180; then
        echo "$title: no SUBNET UP" >&2
        stop "$id.sm" "$id"
        return 1
    fi
    # let the first heavy sweep's LFT writes settle
    sleep 2
    for ((run = 1; run <= RUNS; run++)); do
        for opt in plain all; do
            if [ $opt = all ]; then
                run_diag "$id" host-1-1 "$BIN/pz-routecheck" --json --all > "$id.$run.$opt.json" || true
                check_all+=("$(json_get "$id.$run.$opt.json" check_seconds)")
            else
                run_diag "$id" host-1-1 "$BIN/pz-routecheck" --json > "$id.$run.$opt.json" || true
                read -r r c <<< "$(json_get "$id.$run.$opt.json" read_seconds check_seconds)"
                read+=("$r")
                check+=("$c")
            fi
        done
        t0=$(now)
        run_diag "$id" host-1-1 saquery NR > "$id.nr" 2>&1 || true
        run_diag "$id" host-1-1 saquery LR > "$id.lr" 2>&1 || true
        run_diag "$id" host-1-1 saquery LFTR > "$id.lftr" 2>&1 || true
        run_diag "$id" host-1-1 saquery PIR > "$id.pir" 2>&1 || true
        t1=$(now)
        sa+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    done
    local j="$id.1.all.json"
    echo "$title: $(json_get "$j" switches) switches, $(json_get "$j" endpoints) CA ports," \
        "$(json_get "$j" lft_blocks) LFT blocks, $(json_get "$j" pairs) switch pairs," \
        "$(json_get "$j" ca_pairs) switch-to-CA routes ($(json_get "$j" ca_lids) CA LIDs, LMC up to $(json_get "$j" max_lmc))," \
        "$(json_get "$j" dependencies) dependencies (--all)," \
        "unrouted $(json_get "$j" unrouted_total), cycle $(json_get "$j" cycle)"
    awk -v r="$(median "${read[@]}")" -v c="$(median "${check[@]}")" \
        -v a="$(median "${check_all[@]}")" -v s="$(median "${sa[@]}")" 'BEGIN {
        printf "  tables read (SA, umad2sim + RMPP): %.3f s   saquery NR+LR+LFTR+PIR (reference, same run): %.3f s   ratio %.2f\n", r, s, (s > 0 ? r / s : 0)
        printf "  check, switch pairs: %.4f s   check --all: %.4f s   goal: < 1 s (%.2f%% / %.2f%% of it)\n", c, a, c * 100, a * 100
    }'
    stop "$id.sm" "$id"
}

"$BIN/gen-fattree" 2 > ft648.net
"$BIN/gen-fattree" 3 --radix 16 --pods 16 > ft3-1024.net
echo "pz-routecheck: SA read and route check time (medians of $RUNS runs, OpenSM LMC $LMC)"
bench ft648 ft648.net "648-port tree (gen-fattree 2)"
bench ft3k ft3-1024.net "3-level tree of 1024 CAs (gen-fattree 3 --radix 16 --pods 16)"
