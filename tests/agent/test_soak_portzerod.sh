#!/bin/bash
# test_soak_portzerod.sh - portzerod's real event loop under load, with a
# memory checker: an external portzerod serves Spine1 of pzfabric (board =
# sim, --agent) while OpenSM sweeps every second (light sweeps, heavy ones
# after link flaps of Spine1's ports), PerfMgr reads every port every second,
# and smpquery/perfquery loops poll Spine1 without pause.  Then SIGTERM.
#
#   test_soak_portzerod.sh MODE PZFABRIC PZFABRIC-CTL PORTZEROD NETFILE
#
# MODE asan: PORTZEROD is the AddressSanitizer + UBSan build, leak checking on.
# MODE valgrind: PORTZEROD runs under valgrind's memcheck (definite and
# indirect leaks, invalid accesses, uninitialised values), with
# --soname-synonyms=somalloc=nouserintercepts so that valgrind replaces only
# libc's malloc, not libpzumad2sim's (attach/README.md), and umad2sim.supp
# (one report inside umad2sim's own send path, not ours).
# Required: zero reports from the checker, portzerod still answering at the
# end, and the polls, sweeps and flaps all having happened.  The soak lasts
# $PZT_SOAK_SECONDS (default 120) seconds.
set -uo pipefail

MODE=${1:?usage: test_soak_portzerod.sh asan|valgrind PZFABRIC PZFABRIC-CTL PORTZEROD NETFILE}
PZFABRIC=${2:?}
PZCTL=${3:?}
PORTZEROD=${4:?}
NET=${5:?}
SOAK=${PZT_SOAK_SECONDS:-120}
SUPP=$(cd "$(dirname "$0")" && pwd)/umad2sim.supp
source "$(dirname "$0")/agent_lib.sh"
SOCK="pzsoak$$"
CTL=("$PZCTL" --sockname "$SOCK")

cd "$WORK"
"$PZFABRIC" --sockname "$SOCK" --agent Spine1 "$NET" > fabric.out 2> fabric.err &
PIDS+=($!)
check "pzfabric ready" wait_file fabric.out 10 '^ready$'

mkdir agent
case $MODE in
asan)
    # umad2sim is preloaded ahead of the ASan runtime (verify_asan_link_order=0).
    (cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME=$SOCK \
        ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:halt_on_error=0:log_path=$WORK/san \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0:log_path=$WORK/san \
        exec "$PORTZEROD" -o board=sim > ../agent.out 2> ../agent.err) &
    ;;
valgrind)
    pzt_require_tools valgrind
    (cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME=$SOCK \
        exec valgrind --quiet --error-exitcode=99 --leak-check=full \
        --soname-synonyms=somalloc=nouserintercepts \
        --suppressions="$SUPP" \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        --log-file="$WORK/san.%p" "$PORTZEROD" -o board=sim > ../agent.out 2> ../agent.err) &
    ;;
*)
    echo "unknown mode $MODE" >&2
    exit 2
    ;;
esac
AGENT=$!
PIDS+=("$AGENT")
check "portzerod ready" wait_file agent.out 60 '^ready$'

mkdir -p sm/cache sm/tmp sm/dump
(cd sm && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=$SOCK \
    OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp \
    exec opensm -d2 -R ftree --connect_roots -s 1 --perfmgr --perfmgr_sweep_time_s 1 \
    --dump_files_dir "$WORK/sm/dump" -f "$WORK/sm/osm.log" > opensm.out 2>&1) &
PIDS+=($!)
check "OpenSM: SUBNET UP" wait_file sm/osm.log 120 'SUBNET UP'
agent_diag ibnetdiscover > disc.txt 2>&1
SPINE=$(sed -n 's/^Switch.*"Spine1".* lid \([0-9]*\) .*/\1/p' disc.txt)
check "Spine1 has a LID" test -n "$SPINE"

# poll_loop NAME COMMAND...: COMMAND again and again until $WORK/stop exists;
# counts the successful runs in NAME.ok.
poll_loop() {
    local name=$1 n=0
    shift
    while [ ! -e "$WORK/stop" ]; do
        if agent_diag "$@" > /dev/null 2>&1; then
            n=$((n + 1))
            echo "$n" > "$WORK/$name.ok"
        fi
    done
}
poll_loop smp smpquery -t 2000 portinfo "$SPINE" 1 &
PIDS+=($!)
poll_loop smpsw smpquery -t 2000 switchinfo "$SPINE" &
PIDS+=($!)
poll_loop pma perfquery -t 2000 -x "$SPINE" 2 &
PIDS+=($!)

# Link flaps on Spine1's ports (traps to the SM, heavy sweeps), one every 10 s.
flaps=0
end=$((SECONDS + SOAK))
while ((SECONDS < end)); do
    sleep 5
    port=$((flaps % 4 + 1))
    "${CTL[@]}" link-down Spine1 "$port" > /dev/null && sleep 1 &&
        "${CTL[@]}" link-up Spine1 "$port" > /dev/null && flaps=$((flaps + 1))
    sleep 4
done
touch stop
sleep 3
note "polls answered: smpquery portinfo $(cat smp.ok 2>/dev/null || echo 0)," \
    "switchinfo $(cat smpsw.ok 2>/dev/null || echo 0), perfquery -x $(cat pma.ok 2>/dev/null || echo 0);" \
    "link flaps $flaps; OpenSM heavy sweeps $(grep -c 'SUBNET UP' sm/osm.log)"
check "smpquery polls answered (>= 10)" test "$(cat smp.ok 2>/dev/null || echo 0)" -ge 10
check "perfquery polls answered (>= 10)" test "$(cat pma.ok 2>/dev/null || echo 0)" -ge 10
check "link flaps done (>= $((SOAK / 20)))" test "$flaps" -ge $((SOAK / 20))
check "OpenSM swept again after the flaps" test "$(grep -c 'SUBNET UP' sm/osm.log)" -ge 2
agent_diag smpquery -t 5000 nodedesc "$SPINE" > end.txt 2>&1
check "portzerod still answers at the end" grep -q 'Spine1' end.txt

kill -TERM "$AGENT"
for _ in $(seq 300); do kill -0 "$AGENT" 2> /dev/null || break; sleep 0.1; done
wait "$AGENT"
rc=$?
# The exit status is another item's concern (libumad2sim's exit handler): noted only.
note "portzerod exit status after SIGTERM: $rc"
reports=$(cat san* 2> /dev/null | grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error|SUMMARY|definitely lost|indirectly lost|Invalid (read|write|free)|uninitialised|Mismatched free')
check_eq "$MODE: no reports" 0 "$reports"
if [ "$reports" != 0 ]; then
    cat san* | head -n 80
fi
agent_finish
