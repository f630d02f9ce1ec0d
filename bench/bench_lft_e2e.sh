#!/bin/bash
# bench_lft_e2e.sh - LinearForwardingTable block Sets per second answered end
# to end, from a client on an HCA through the emulated fabric:
#   A. by one external portzerod serving the spine (pzfabric --agent),
#   B. by portzero's SMA in-process in pzfabric (same fabric, no agent),
#   C. by ibsim's own SMA (the reference simulator), same topology.
# All three are measured in this run; ratios are printed against C and B.
# Goal for A: at least 25,000/s (ten times an InfiniScale IV switch).
# The client keeps WINDOW requests outstanding, by default 4: OpenSM's
# max_wire_smps (its default, 4) is the most SMPs it has on the wire.
set -uo pipefail

BIN=${1:?usage: bench_lft_e2e.sh BINDIR NETFILE [SECONDS] [WINDOW]}
NET=${2:?}
SECONDS_PER_RUN=${3:-2}
WINDOW=${4:-4}
BIN=$(cd "$BIN" && pwd)
NET=$(cd "$(dirname "$NET")" && pwd)/$(basename "$NET")
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
WORK=$(mktemp -d)
PIDS=()
PATH_TO_SPINE=0,1,1 # Hca1 port 1 -> Leaf1, Leaf1 port 1 -> Spine1 (tests/integration/ft-2s4l.net)

cleanup() {
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_for() { # FILE SECONDS REGEX
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do grep -qE "$3" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}

client() { # SOCK -> prints the client's result line
    local dir
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=$1 \
        "$BIN/pz-lft-client" "$PATH_TO_SPINE" "$SECONDS_PER_RUN" "$WINDOW")
}

cd "$WORK"
# A: external portzerod.
"$BIN/pzfabric" --sockname "pzbA$$" --agent Spine1 "$NET" > a.out 2> a.err &
PIDS+=($!)
wait_for a.out 10 '^ready$' || { echo "pzfabric did not start"; exit 1; }
mkdir agent
(cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME="pzbA$$" \
    exec "$BIN/portzerod" -o board=sim > ../agent.out 2> ../agent.err) &
PIDS+=($!)
wait_for agent.out 10 '^ready$' || { echo "portzerod did not start"; exit 1; }
read -r a_n a_s a_rate a_err < <(client "pzbA$$")

# B: in-process SMA in pzfabric.
"$BIN/pzfabric" --sockname "pzbB$$" "$NET" > b.out 2> b.err &
PIDS+=($!)
wait_for b.out 10 '^ready$' || { echo "pzfabric did not start"; exit 1; }
read -r b_n b_s b_rate b_err < <(client "pzbB$$")

# C: ibsim.
IBSIM_SOCKNAME="pzbC$$" ibsim -s -n "$NET" > c.out 2>&1 < /dev/null &
PIDS+=($!)
sleep 0.5
read -r c_n c_s c_rate c_err < <(client "pzbC$$")

printf 'bench_lft_e2e: LFT block Sets/s end to end, window %s, %s s per run\n' "$WINDOW" "$SECONDS_PER_RUN"
printf '  A. external portzerod (board/sim)   %8s/s  (%s answered, %s errors)\n' "${a_rate:-0}" "${a_n:-0}" "${a_err:-?}"
printf '  B. pzfabric in-process SMA          %8s/s  (%s answered, %s errors)\n' "${b_rate:-0}" "${b_n:-0}" "${b_err:-?}"
printf '  C. ibsim (reference)                %8s/s  (%s answered, %s errors)\n' "${c_rate:-0}" "${c_n:-0}" "${c_err:-?}"
awk -v a="${a_rate:-0}" -v b="${b_rate:-0}" -v c="${c_rate:-0}" 'BEGIN {
    if (c > 0) printf "  ratio A/C %.2f   B/C %.2f\n", a / c, b / c;
    if (b > 0) printf "  ratio A/B %.2f  (cost of the external agent)\n", a / b;
    met = (a >= 25000) ? "met" : "not met";
    printf "  goal A >= 25000/s (10x InfiniScale IV): %s\n", met;
}'
