#!/bin/bash
# bench_subnet_up.sh BINDIR [NETFILE] - how long OpenSM (-R ftree
# --connect_roots) takes from its start to SUBNET UP on the 648-port fat
# tree (gen-fattree 2: 18 spines, 36 leaves, 648 CAs), on pzfabric and on
# ibsim, both measured in this run: RUNS (default 3) runs each, alternating,
# every run on a fresh simulator and with an empty OpenSM cache; the medians
# and their ratio are printed. Goal (not a pass/fail): pzfabric no slower
# than ibsim, ratio <= 1.
#
# The time is taken from OpenSM's own log (-d2 flushes every line, with
# microseconds): from its first line (logging starts right after option
# parsing) to the first "SUBNET UP". `make bench` passes a topology file as
# NETFILE for the other benchmarks; this one ignores it.
#
# Exit status: 0 when every run reached SUBNET UP (whatever the times), 1
# otherwise.
set -euo pipefail

BIN=${1:?usage: bench_subnet_up.sh BINDIR [NETFILE]}
RUNS=${RUNS:-3}
# shellcheck source=sim_lib.sh
source "$(dirname "$0")/sim_lib.sh" # BIN absolute, PZFABRIC, integration/lib.sh, lib.sh
pzt_require opensm ibsim
pzt_init bench-subnet-up

"$BIN/gen-fattree" 2 > ft648.net

# log_seconds LOG: seconds from the first line of OpenSM's log to its first
# SUBNET UP ("Nov 22 03:52:46 531098 [...] ..." lines).

# median X...: the median of its arguments.

pz_times=() ib_times=() failed=0
for ((run = 1; run <= RUNS; run++)); do
    for sim in pz ib; do
        id=$sim$run
        if [ $sim = pz ]; then start_pzfabric "$id" ft648.net; else start_ibsim "$id" ft648.net; fi
        start_opensm "$id.sm" "$id" host-1-1
        if wait_subnet_up "$id.sm" 120; then
            t=$(log_seconds "$WORK/$id.sm/osm.log")
        else
            echo "run $run on $sim: no SUBNET UP within 120 s" >&2
            failed=1
            t=
        fi
        stop "$id.sm" "$id"
        [ -n "$t" ] || continue
        if [ $sim = pz ]; then pz_times+=("$t"); else ib_times+=("$t"); fi
    done
done

echo "OpenSM $(opensm --version 2>/dev/null | grep -m1 -o '[0-9][0-9.]*' || echo '?') -R ftree --connect_roots," \
    "648-port fat tree (54 switches, 648 CAs): start -> SUBNET UP, median of $RUNS runs"
if [ ${#pz_times[@]} -gt 0 ] && [ ${#ib_times[@]} -gt 0 ]; then
    pz=$(median "${pz_times[@]}")
    ib=$(median "${ib_times[@]}")
    printf '  pzfabric: %6.3f s   (runs: %s)\n' "$pz" "${pz_times[*]}"
    printf '  ibsim:    %6.3f s   (runs: %s)\n' "$ib" "${ib_times[*]}"
    awk -v p="$pz" -v i="$ib" 'BEGIN { printf "  ratio pzfabric/ibsim: %.2f (goal: <= 1.00, pzfabric no slower than ibsim)\n", p / i }'
else
    echo "  no complete measurement"
fi
exit "$failed"
