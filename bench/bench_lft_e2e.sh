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
WORK=$(mktemp -d)
PIDS=()
PATH_TO_SPINE=0,1,1 # Hca1 port 1 -> Leaf1, Leaf1 port 1 -> Spine1 (tests/integration/ft-2s4l.net)
# shellcheck source=lib.sh
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
trap bench_stop_all EXIT

client() { # SOCK -> prints the client's result line
    at_hca1 "$1" "$BIN/pz-lft-client" "$PATH_TO_SPINE" "$SECONDS_PER_RUN" "$WINDOW"
}

cd "$WORK" || exit 1
bench_three_sims "pzbA$$" "pzbB$$" "pzbC$$" || exit 1
read -r a_n _ a_rate a_err < <(client "pzbA$$")
read -r b_n _ b_rate b_err < <(client "pzbB$$")
read -r c_n _ c_rate c_err < <(client "pzbC$$")

printf 'bench_lft_e2e: LFT block Sets/s end to end, window %s, %s s per run\n' "$WINDOW" "$SECONDS_PER_RUN"
bench_three_rates SMA "$a_rate" "$a_n" "$a_err" "$b_rate" "$b_n" "$b_err" "$c_rate" "$c_n" "$c_err"
awk -v a="${a_rate:-0}" 'BEGIN { printf "  goal A >= 25000/s (10x InfiniScale IV): %s\n", (a >= 25000) ? "met" : "not met" }'
