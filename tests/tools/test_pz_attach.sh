#!/bin/bash
# test_pz_attach.sh - the documented way to attach tools to pzfabric:
# pz-attach (attach/), which preloads Debian's libumad2sim.so and then
# libpzumad2sim.so.  On a fresh fabric with OpenSM (PerfMgr sweeping every
# second), attached through pz-attach:
#   - perfquery -x shows PortXmitWait, VL15Dropped and QP1Dropped (MAD bytes
#     224-255, which umad2sim alone never delivers) as 0 on every switch
#     port (AllPortSelect and each port) and every CA port;
#   - ibqueryerrors finds no port with errors (LinkDownedCounter suppressed:
#     the start-up link training is counted separately) and exits 0;
#   - PerfMgr logs no counter error other than LinkDownedCounter;
#   - pz-attach keeps the tool's PID, preloads umad2sim first, refuses bad
#     usage, and libpzumad2sim.so says so when loaded in the wrong order.
# The same perfquery with the stock library alone is printed as a note.
#
#   test_pz_attach.sh PZFABRIC PZFABRIC-CTL PZ-ATTACH NETFILE
set -uo pipefail

source "$(dirname "$0")/../fabric/fabric_lib.sh"
NET=$(abspath "${4:?usage: test_pz_attach.sh PZFABRIC PZFABRIC-CTL PZ-ATTACH NETFILE}")
PZ_ATTACH=$(abspath "$3")
fl_init attach "$1" "$2"
pzt_require opensm perfquery ibqueryerrors ibswitches ibhosts

# attach NODE COMMAND...: COMMAND through pz-attach as the README shows it
# (its own library lookup, not the test's PZ_UMAD2SIM_FIX), in a private dir.
attach() {
    local node=$1 dir rc=0
    shift
    dir=$(mktemp -d "$WORK/attach.XXXXXX")
    env -u PZ_UMAD2SIM_FIX "$PZ_ATTACH" -s "$SOCK" -C "$dir" "$node" -- timeout 30 "$@" || rc=$?
    rm -rf "$dir"
    return $rc
}

# tail_zero FILE: the three fields in MAD bytes 224-255 are present and 0 in FILE.
tail_zero() {
    [ "$(grep -cE '^(PortXmitWait|VL15Dropped|QP1Dropped):\.+0$' "$1")" = 3 ]
}

fl_start_fabric "$NET" || exit 1
mkdir -p "$WORK/sm/cache" "$WORK/sm/tmp" "$WORK/sm/run"
OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp env -u PZ_UMAD2SIM_FIX \
    "$PZ_ATTACH" -s "$SOCK" -C "$WORK/sm/run" Hca1 -- opensm -d2 --perfmgr --perfmgr_sweep_time_s 1 \
    -f "$WORK/sm/osm.log" > "$WORK/sm/opensm.out" 2>&1 < /dev/null &
OSM_PID=$!
check "OpenSM through pz-attach: SUBNET UP" fl_wait_up 60
check "pz-attach keeps the PID: $OSM_PID is opensm" grep -qx opensm "/proc/$OSM_PID/comm"
preload=$(tr '\0' '\n' < "/proc/$OSM_PID/environ" | sed -n 's/^LD_PRELOAD=//p')
preload_ok() { [[ "$1" == */libumad2sim.so\ */libpzumad2sim.so ]]; }
check "pz-attach preloads umad2sim, then libpzumad2sim" preload_ok "$preload"

SWITCHES=$(attach Hca2 ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p')
HOSTS=$(attach Hca2 ibhosts | sed -n 's/.*"\(Hca[0-9]*\)".*/\1/p')
check_eq "ibswitches through pz-attach: 6 switches" 6 "$(echo "$SWITCHES" | wc -w)"
bad=
for lid in $SWITCHES; do
    attach Hca2 perfquery -x -a "$lid" > "pce.$lid.all" 2>&1
    tail_zero "pce.$lid.all" || bad="$bad $lid:all"
    for port in 1 2 3 4; do
        attach Hca2 perfquery -x "$lid" "$port" > "pce.$lid.$port" 2>&1
        tail_zero "pce.$lid.$port" || bad="$bad $lid:$port"
    done
done
check_eq "perfquery -x: bytes 224-255 all 0 on every switch port" "" "$bad"
bad=
for host in $HOSTS; do
    attach "$host" perfquery -x > "pce.$host" 2>&1
    tail_zero "pce.$host" || bad="$bad $host"
done
check_eq "perfquery -x: bytes 224-255 all 0 on every CA port ($(echo $HOSTS | wc -w))" "" "$bad"
lid=$(echo "$SWITCHES" | head -n 1)
note "the stock library alone: $(cd "$WORK" && LD_PRELOAD=$PZT_UMAD2SIM_STOCK SIM_HOST=Hca2 \
    IBSIM_SOCKNAME=$SOCK timeout 30 perfquery -x "$lid" 1 2>&1 | grep -E '^PortXmitWait' | tr -d .)"

attach Hca2 ibqueryerrors -s LinkDownedCounter > iqe.txt 2>&1
rc=$?
check_eq "ibqueryerrors through pz-attach exits 0" 0 "$rc"
check "ibqueryerrors: 56 ports checked, 0 ports have errors" \
    grep -q '56 ports checked, 0 ports have errors' iqe.txt

check "PerfMgr swept (3 sweeps of 1 s)" sleep 3.5
others=$(grep 'perfmgr_log_errors' "$WORK/sm/osm.log" | grep -vc 'LinkDownedCounter')
check_eq "PerfMgr: no counter error but LinkDownedCounter" 0 "$others"

check "pz-attach without COMMAND: usage, status 2" \
    bash -c '"$0" Hca1 > /dev/null 2> u.err; [ $? = 2 ] && grep -q usage u.err' "$PZ_ATTACH"
check "pz-attach -h: usage on stdout, status 0" \
    bash -c '"$0" -h > u.out 2> /dev/null && grep -q "^usage: pz-attach" u.out' "$PZ_ATTACH"
check "pz-attach -C to a missing directory: a message, status 1" \
    bash -c '"$0" -C /nonexistent/pzt Hca1 -- true 2> u.err; [ $? = 1 ] && grep -q "not a directory" u.err' "$PZ_ATTACH"
check "pz-attach with a missing library: status 1, named" \
    bash -c 'PZ_UMAD2SIM_FIX=/nonexistent.so "$0" Hca1 -- true 2> m.err; [ $? = 1 ] &&
             grep -q /nonexistent.so m.err' "$PZ_ATTACH"
fix=$(echo "$preload" | awk '{ print $2 }')
(cd "$WORK" && LD_PRELOAD="$fix $PZT_UMAD2SIM_STOCK" SIM_HOST=Hca2 IBSIM_SOCKNAME=$SOCK \
    timeout 30 perfquery -x > order.out 2> order.err)
check "libpzumad2sim before umad2sim: says to load it after" grep -q 'load it after' order.err
fl_finish
