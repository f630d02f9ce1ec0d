#!/bin/bash
# demo.sh - portzero at work on an emulated fabric.
#
# Starts pzfabric on a small two-level fat tree (2 spines, 4 leaves, 8 hosts)
# in which every switch runs portzero's SMA, and spine-1 is taken over by an
# external portzerod process; runs OpenSM (-R ftree --connect_roots) until
# SUBNET UP; then shows what the diags see.  Everything it starts is stopped
# by PID on exit, and it works in a temporary directory.
set -euo pipefail

BIN=${1:-build/bin}
BIN=$(cd "$BIN" && pwd)
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
WORK=$(mktemp -d)
SOCK="pzdemo$$"
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# wait_for FILE SECONDS REGEX
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        grep -qE "$3" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "demo: timed out waiting for '$3' in $1" >&2
    return 1
}

# diag TOOL ARGS...: run an infiniband-diags tool from host-1-2.
diag() {
    local dir
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=host-1-2 IBSIM_SOCKNAME=$SOCK "$@")
}

cd "$WORK"
say "Topology: gen-fattree 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8"
"$BIN/gen-fattree" 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8 > fabric.net
sed -n '2p' fabric.net

say "pzfabric: every switch and HCA answered by portzero's SMA; spine-1 by an external portzerod"
"$BIN/pzfabric" --sockname "$SOCK" --agent spine-1 fabric.net > fabric.out 2> fabric.err &
PIDS+=($!)
wait_for fabric.out 10 '^ready$'
mkdir agent
(cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=spine-1 IBSIM_SOCKNAME=$SOCK \
    exec "$BIN/portzerod" -o board=sim -vvv > ../agent.out 2> ../agent.err) &
PIDS+=($!)
wait_for agent.out 10 '^ready$'
grep -v 'SMP class' agent.err | sed 's/^portzerod [0-9.]* //'

say "OpenSM -R ftree --connect_roots (on host-1-1)"
mkdir -p sm/cache sm/tmp sm/dump
(cd sm && LD_PRELOAD=$UMAD2SIM SIM_HOST=host-1-1 IBSIM_SOCKNAME=$SOCK \
    OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp \
    exec opensm -R ftree --connect_roots --dump_files_dir "$WORK/sm/dump" \
    -f "$WORK/sm/osm.log" > opensm.out 2>&1) &
PIDS+=($!)
wait_for sm/osm.log 60 'SUBNET UP'
grep -E 'ftree tables configured|SUBNET UP' sm/osm.log | sed 's/^.*\] //' | sort -u

say "ibnetdiscover"
diag ibnetdiscover | grep -vE '^#|^$|^vendid|^devid|^sysimgguid|^switchguid|^caguid'

SPINE1=$(diag ibnetdiscover | sed -n 's/^Switch.*"spine-1".* lid \([0-9]*\) .*/\1/p')
SPINE2=$(diag ibnetdiscover | sed -n 's/^Switch.*"spine-2".* lid \([0-9]*\) .*/\1/p')

say "LFT of root switch spine-1 (LID $SPINE1), programmed by OpenSM through portzerod"
diag ibroute "$SPINE1"

say "Root-to-root route spine-1 -> spine-2 (exists because of --connect_roots)"
diag ibtracert "$SPINE1" "$SPINE2"

say "SMPs portzerod answered for spine-1 so far: $(grep -c answered agent.err || true)"
diag smpquery nodedesc "$SPINE1"
diag smpquery switchinfo "$SPINE1" | grep -E 'LinearFdbTop|LinearFdbCap|StateChange'

say "Stopping everything"
