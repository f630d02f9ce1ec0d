#!/bin/bash
# test_gen_fattree.sh - gen-fattree's topologies: (a) for several shapes the
# file has the expected numbers of switches, CAs and links, both ends of every
# link agree and no port is used twice (check_netfile.awk); (b) the real ibsim
# loads the file and ibnetdiscover, attached through umad2sim at ibsim's
# default port, finds every node and link; (c) OpenSM's ftree routing accepts
# the pure fat trees; (d) impossible shapes fail with a clear message.
# Every process started is stopped by PID.
set -euo pipefail

GEN=${1:?usage: test_gen_fattree.sh GEN_FATTREE}
CHECK=$(cd "$(dirname "$0")" && pwd)/check_netfile.awk
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
UMAD2SIM=$PZT_PRELOAD
WORK=$(mktemp -d)
IBSIM_PID=
failures=0
passes=0
sims=0

cleanup() {
    local rc=$?
    stop_ibsim
    pzt_cleanup_work 0
    exit "$rc"
}
trap cleanup EXIT

# Stop the running ibsim, if any.
stop_ibsim() {
    [ -z "$IBSIM_PID" ] || stop_pid "$IBSIM_PID"
    IBSIM_PID=
}

# Start ibsim on net file $1 (extra ibsim options after it) with a fresh
# socket name; wait up to 5 s for it to say it is ready.
start_ibsim() {
    local net=$1
    shift
    sims=$((sims + 1))
    export IBSIM_SOCKNAME="gft$$-$sims"
    ibsim -s -n "$@" "$net" > "$WORK/ibsim.log" 2>&1 < /dev/null &
    IBSIM_PID=$!
    wait_file "$WORK/ibsim.log" 5 "Network simulator ready" "$IBSIM_PID" && return 0
    tail -5 "$WORK/ibsim.log"
    return 1
}

# Count "Switch"/"Ca" records and port lines (two per link) in ibnetdiscover output $1.
discovered() {
    awk '/^Switch/ { s++ } /^Ca/ { c++ } /^\[/ { p++ }
         END { print "switches " s + 0 " cas " c + 0 " links " int(p / 2) }' "$1"
}

# Shape NAME EXPECTED ARGS...: the structure check of gen-fattree ARGS.
shape() {
    local name=$1 want=$2
    shift 2
    "$GEN" "$@" > "$WORK/$name.net"
    check "$name: $want, links consistent" test "$(awk -f "$CHECK" "$WORK/$name.net")" = "$want"
}

# On_ibsim NAME EXPECTED [IBSIM OPTIONS]: ibsim loads NAME.net and
# ibnetdiscover finds EXPECTED from the default (first) port, a CA.
on_ibsim() {
    local name=$1 want=$2
    shift 2
    if ! start_ibsim "$WORK/$name.net" "$@"; then
        check "$name: ibsim starts" false
        return
    fi
    (cd "$WORK" && LD_PRELOAD=$UMAD2SIM timeout 20 ibnetdiscover > "$name.disc" 2> "$name.err") || true
    check "$name: ibnetdiscover finds $want" test "$(discovered "$WORK/$name.disc")" = "$want"
    check "$name: SM port is host-1-1" grep -q 'attached as client 0 at node "host-1-1"' \
        "$WORK/$name.err"
}

# Ftree NAME: OpenSM (run once, files kept in $WORK) routes NAME.net with
# ftree on the ibsim that on_ibsim left running.
ftree() {
    local name=$1
    (cd "$WORK" && OSM_TMP_DIR=$WORK OSM_CACHE_DIR=$WORK LD_PRELOAD=$UMAD2SIM \
        timeout 30 opensm -F "$WORK/empty.conf" -R ftree -o -f "$WORK/$name.osm" \
        > "$name.osm.out" 2>&1 < /dev/null) || true
    check "$name: OpenSM ftree configures all switches" \
        grep -q "ftree tables configured on all switches" "$WORK/$name.osm"
}

cd "$WORK"
: > empty.conf

# (a) Structure. Links: hosts + uplinks (+ horizontal links with --multicore).
shape small2 "switches 6 cas 8 links 24" 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8
shape multi2 "switches 6 cas 4 links 22" 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8 \
    --multicore
shape uneven2 "switches 5 cas 9 links 18" 2 --spines 2 --leaves 3 --hosts-per-leaf 3 --radix 6
shape classic "switches 54 cas 648 links 1296" 2
shape classicmc "switches 54 cas 612 links 1278" 2 --multicore
shape small3 "switches 20 cas 16 links 48" 3 --radix 4
shape pods3 "switches 32 cas 16 links 80" 3 --radix 8 --pods 2 --hosts-per-leaf 2
shape full3 "switches 1620 cas 11664 links 34992" 3
check "classic: one link from every leaf to every spine" \
    test "$(grep -c '^\[[0-9]*\] "spine-' "$WORK/classic.net")" -eq 648
check "classic: spines have 36 ports" grep -qx 'Switch 36 "spine-18"' "$WORK/classic.net"
check "multi2: leaf-1 port 2 cabled to leaf-2 port 2" \
    grep -qx '\[2\] "leaf-2"\[2\]' "$WORK/multi2.net"

# (b) and (c) The real ibsim and OpenSM.
on_ibsim small2 "switches 6 cas 8 links 24"
ftree small2
stop_ibsim
on_ibsim multi2 "switches 6 cas 4 links 22"
stop_ibsim
on_ibsim uneven2 "switches 5 cas 9 links 18"
stop_ibsim
on_ibsim classic "switches 54 cas 648 links 1296"
ftree classic
stop_ibsim
on_ibsim small3 "switches 20 cas 16 links 48"
ftree small3
stop_ibsim
on_ibsim pods3 "switches 32 cas 16 links 80"
ftree pods3
stop_ibsim

# (d) Shapes that cannot be built.
set +e
"$GEN" 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8 --uplinks 6 > out.net 2> err.txt
rc=$?
set -e
check "spine overflow exits 1" test "$rc" -eq 1
check "spine overflow explained" grep -q "a spine would need 12 ports .* radix is 8" err.txt
check "spine overflow writes nothing" test ! -s out.net
set +e
"$GEN" 3 --radix 8 --pods 9 > out.net 2> err.txt
rc=$?
set -e
check "too many pods exits 1" test "$rc" -eq 1
check "too many pods explained" grep -q "one port per pod" err.txt

checks_finish
