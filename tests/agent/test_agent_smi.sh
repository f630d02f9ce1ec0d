#!/bin/bash
# test_agent_smi.sh - the SMI path of a switch served by an external
# portzerod (board = sim) against the same switch served in-process: two
# pzfabrics on the same topology, Spine1 external in one (A) and in-process
# in the other (I), each with OpenSM.
#   - LID-routed, directed-route and hybrid SMPs (LID-routed to the spine,
#     then directed route onward): the answers are equal byte for byte;
#     smpquery -c and ibportstate name the neighbour's GUID and port;
#   - DR SMPs of every hop count 1-63 bouncing over the Leaf1-Spine1 cable
#     are answered through portzerod;
#   - at a 10% drop rate smpquery succeeds through portzerod as in-process;
#   - a link change on the spine: its trap is repressed, and OpenSM logs no
#     ERR 5412 (a TrapRepress timed out);
#   - an SMP written to umad shorter than 256 bytes (36, 128) is answered on
#     both paths, as the whole zero-padded MAD a real sender's MAD layer
#     makes of it; one of 35 bytes (too short for Linux's umad write) is not
#     sent: it times out on both;
#   - with both OpenSMs stopped (routes stay; an SM that does not hold the
#     key loses the switch, as on hardware): 5000 Gets with a wrong M_Key
#     to the spine come back as 5000 timeouts, MKeyViolations counts exactly
#     5000 of them in-process; through portzerod, whose receive queue holds
#     128 SMPs, each is counted once, as a violation or as VL15Dropped; then
#     a LID-routed Get and the Set that clears the key (with the key) are
#     answered, and after it SMPs without a key;
#   - through portzerod a dropped request (an SMP with a wrong M_Key, a CC
#     MAD with a wrong CC_Key) comes back after its client's own umad
#     timeout: one of 100 ms sent after one of 3000 ms comes back first,
#     neither before its timeout;
#   - portzerod exits 0 on SIGTERM after all that.
set -uo pipefail

PZFABRIC=${1:?usage: test_agent_smi.sh PZFABRIC PZCTL PORTZEROD SMP_TOOL UMAD2SIM_FIX NETFILE}
PZCTL=${2:?}
PORTZEROD=${3:?}
SMP_TOOL=${4:?}
FIX=${5:?} # libpzumad2sim.so: agent_lib.sh's UMAD2SIM preloads it already
NET=${6:?}
source "$(dirname "$0")/agent_lib.sh"
SOCK_A="pzsmia$$"
SOCK_I="pzsmii$$"

# at SOCK TOOL ARGS...: a diag at Hca2 of fabric SOCK, in its own directory.
at() {
    local sock=$1 dir
    shift
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD="$UMAD2SIM" SIM_HOST=Hca2 IBSIM_SOCKNAME=$sock timeout 60 "$@")
}

cd "$WORK"
mkdir -p a i agent
"$PZFABRIC" --sockname "$SOCK_A" --agent Spine1 "$NET" > a/fabric.out 2> a/fabric.err &
PIDS+=("$!")
"$PZFABRIC" --sockname "$SOCK_I" "$NET" > i/fabric.out 2> i/fabric.err &
PIDS+=("$!")
check "pzfabrics ready" wait_file a/fabric.out 10 '^ready$'
wait_file i/fabric.out 10 '^ready$'
# umad2sim with the repair (as pz-attach); the receive record gives the ingress port.
# reach = off: with no SA client on port 0 it advertises what the in-process
# switch does (reachability adds IsClientReregistrationSupported).
(cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME=$SOCK_A \
    exec "$PORTZEROD" -o board=sim -o reach=off > ../agent.out 2> ../agent.err) &
AGENT=$!
PIDS+=("$AGENT")
check "portzerod ready" wait_file agent.out 10 '^ready$'
agent_start_opensm "$SOCK_A" "$WORK/a/sm"
OSM_A=$PZT_OSM_PID
agent_start_opensm "$SOCK_I" "$WORK/i/sm"
OSM_I=$PZT_OSM_PID
check "OpenSM: SUBNET UP (agent)" wait_file a/sm/osm.log 60 'SUBNET UP'
check "OpenSM: SUBNET UP (in-process)" wait_file i/sm/osm.log 60 'SUBNET UP'

at "$SOCK_A" ibnetdiscover > a/disc.txt 2>&1
at "$SOCK_I" ibnetdiscover > i/disc.txt 2>&1
SL=$(sed -n 's/.*"Spine1" base port 0 lid \([0-9]*\) .*/\1/p' a/disc.txt)
check "spine has a LID" test -n "$SL"
check_eq "same LIDs in both fabrics" "$(grep -o 'lid [0-9]*' i/disc.txt | sort | md5sum)" \
    "$(grep -o 'lid [0-9]*' a/disc.txt | sort | md5sum)"

# The same SMPs on both fabrics: the whole answers must be equal.
n=0
while read -r attr mod route what; do
    n=$((n + 1))
    at "$SOCK_A" "$SMP_TOOL" query "$route" "$attr" "$mod" > "a/q$n.txt" 2>&1
    at "$SOCK_I" "$SMP_TOOL" query "$route" "$attr" "$mod" > "i/q$n.txt" 2>&1
    check "answered in-process: $what" grep -q '^status 0x0000$' "i/q$n.txt"
    check_files "same answer through portzerod: $what" "i/q$n.txt" "a/q$n.txt"
done <<EOF
0x11 0 $SL NodeInfo, LID-routed (LocalPortNum = ingress port)
0x15 3 $SL PortInfo 3, LID-routed
0x15 0 $SL PortInfo 0, LID-routed
0x11 0 D:0,1,1 NodeInfo, directed route
0x15 1 D:0,1,1 PortInfo 1, directed route
0x11 0 $SL:0,3 NodeInfo, hybrid $SL then 0,3
0x11 0 $SL:0,1 NodeInfo, hybrid $SL then 0,1
0x15 1 $SL:0,3 PortInfo 1, hybrid $SL then 0,3
0x10 0 $SL:0,2 NodeDescription, hybrid $SL then 0,2
0x11 0 $SL:0,3,3 NodeInfo, hybrid $SL then 0,3,3 (a CA)
0x11 0 $SL:0,1,1 NodeInfo, hybrid $SL then 0,1,1 (back to the spine)
EOF

# The diags the issue names, through portzerod.
at "$SOCK_A" smpquery -c nodeinfo "$SL,0,3" > a/c03.txt 2>&1
check "smpquery -c nodeinfo $SL,0,3: Leaf3's GUID" grep -qE '^Guid:\.+0x0000000000200004$' a/c03.txt
check "smpquery -c nodeinfo $SL,0,3: LocalPort 1" grep -qE '^LocalPort:\.+1$' a/c03.txt
at "$SOCK_A" smpquery -c nodeinfo "$SL,0,1" > a/c01.txt 2>&1
check "smpquery -c nodeinfo $SL,0,1: Leaf1's GUID" grep -qE '^Guid:\.+0x0000000000200002$' a/c01.txt
at "$SOCK_A" smpquery nodeinfo "$SL" > a/lid.txt 2>&1
check "smpquery nodeinfo $SL: LocalPort = ingress port 1" grep -qE '^LocalPort:\.+1$' a/lid.txt
at "$SOCK_A" ibportstate "$SL" 3 query > a/ps.txt 2>&1
check "ibportstate $SL 3: the peer is Leaf3's port 1" grep -q '0,3 port 1$' a/ps.txt

# Every DR hop count: 0,1,1,1,... ends at Leaf1 (odd) or Spine1 (even).
answered=0
path=0
for k in $(seq 1 63); do
    path="$path,1"
    if ((k % 2)); then want=0x0000000000200002; else want=0x0000000000200000; fi
    at "$SOCK_A" smpquery -D nodeinfo "$path" > a/hop.txt 2>&1
    if grep -qE "^Guid:\.+$want$" a/hop.txt; then
        answered=$((answered + 1))
    else
        note "hop count $k not answered"
    fi
done
check_eq "DR hop counts 1-63 answered through portzerod" 63 "$answered"

# 10% of the link traversals lost: smpquery retries on the timeouts the
# fabric returns, through portzerod as in-process.
drop_run() { # drop_run SOCK: successes of 30 smpquery
    local ok=0
    "$PZCTL" --sockname "$1" drop-rate 10 12345 > /dev/null
    for _ in $(seq 1 30); do
        at "$1" smpquery -D nodeinfo 0,1,1 2>/dev/null | grep -q '^Guid:\.*0x0000000000200000$' &&
            ok=$((ok + 1))
    done
    "$PZCTL" --sockname "$1" drop-rate 0 > /dev/null
    echo "$ok"
}
ok_i=$(drop_run "$SOCK_I")
ok_a=$(drop_run "$SOCK_A")
note "10% drop rate: smpquery succeeded $ok_i/30 in-process, $ok_a/30 through portzerod"
check "10% drop rate: in-process smpquery succeeds (>= 25/30)" test "$ok_i" -ge 25
check "10% drop rate: smpquery through portzerod succeeds (>= 25/30)" test "$ok_a" -ge 25

# A link change at the spine: Trap 128, repressed, and no TrapRepress timing out.
"$PZCTL" --sockname "$SOCK_A" link-down Spine1 2 > /dev/null
sleep 3
"$PZCTL" --sockname "$SOCK_A" link-up Spine1 2 > /dev/null
check "OpenSM got the spine's Trap 128" \
    wait_file a/sm/osm.log 20 "Received Generic Notice type:1 num:128 .*from LID:$SL "
sleep 3
check "OpenSM: no ERR 5412 (timed-out TrapRepress)" bash -c "! grep -q 'ERR 5412' a/sm/osm.log"

# Short SMPs: the sender's MAD layer makes whole 256-byte MADs of them
# (36 bytes and more: Linux's umad write refuses shorter ones).
# short_query SOCK LEN OUT: Get(NodeInfo) written as LEN bytes, up to 3 tries of 3 s
# each until one is answered (SMPs have no retries of their own: a single 1 s try timed
# out in-process under make test-loaded's ASan stage; whether the answer comes is the
# check, not how fast).
short_query() {
    local try
    for try in 1 2 3; do
        at "$1" "$SMP_TOOL" -t 3000 -l "$2" query "$SL" 0x11 0 > "$3" 2>&1
        grep -q '^status 0x0000$' "$3" && return 0
    done
    return 0
}
for len in 128 36; do
    short_query "$SOCK_A" "$len" "a/short$len.txt"
    short_query "$SOCK_I" "$len" "i/short$len.txt"
    check "$len-byte LID-routed NodeInfo answered in-process" grep -q '^status 0x0000$' "i/short$len.txt"
    check_files "$len-byte LID-routed NodeInfo: the same answer through portzerod" \
        "i/short$len.txt" "a/short$len.txt"
done
at "$SOCK_A" "$SMP_TOOL" -t 2000 -l 35 query "$SL" 0x11 0 > a/short35.txt 2>&1
at "$SOCK_I" "$SMP_TOOL" -t 2000 -l 35 query "$SL" 0x11 0 > i/short35.txt 2>&1
check_eq "35-byte SMP: not sent (a timeout) in-process and through portzerod" \
    "umad status 110/umad status 110" "$(cat i/short35.txt)/$(cat a/short35.txt)"

# A wrong-M_Key flood, without SMs (each would lose the switch to a key it
# does not hold and route around it: OpenSM's ERR 3120 "mis-set mkey").
stop_pid "$OSM_A" "$OSM_I"
# mad_hex FILE OFFSET LENGTH: bytes of the MAD smp_tool printed, as hex digits.
mad_hex() { head -n 16 "$1" | tr -d '\n' | cut -c$(($2 * 2 + 1))-$((($2 + $3) * 2)); }
# violations SOCK ROUTE OUT: PortInfo(0).MKeyViolations read with the key (MAD bytes 108-109).
violations() {
    at "$1" "$SMP_TOOL" -y 0x5045 query "$2" 0x15 0 > "$3" 2>&1 &&
        echo $((0x$(mad_hex "$3" 108 2)))
}
# vl15_dropped SOCK OUT: VL15Dropped summed over the switch's ports (perfquery -a).
vl15_dropped() {
    at "$1" perfquery -a "$SL" > "$2" 2>&1 && sed -n 's/^VL15Dropped:\.*\([0-9]*\)$/\1/p' "$2"
}
for side in i a; do
    if [ $side = i ]; then sock=$SOCK_I what=in-process; else sock=$SOCK_A what="through portzerod"; fi
    at "$sock" "$SMP_TOOL" mkey D:0,1,1 0x5045 > $side/mkey.txt 2>&1
    check_eq "$what: M_Key set, protect bits 2" "mkey 0x0000000000005045 protect 2" "$(cat $side/mkey.txt)"
    v0=$(violations "$sock" D:0,1,1 $side/v0.txt)
    d0=$(vl15_dropped "$sock" $side/d0.txt)
    at "$sock" "$SMP_TOOL" -t 1000 flood D:0,1,1 5000 > $side/flood.txt 2>&1
    check_eq "wrong M_Key flood $what: 5000 timeouts" "answered 0 timeouts 5000 other 0" \
        "$(cat $side/flood.txt)"
    v1=$(violations "$sock" "$SL" $side/v1.txt)
    d1=$(vl15_dropped "$sock" $side/d1.txt)
    check "$what: LID-routed Get with the key answered after the flood" grep -q '^status 0x0000$' $side/v1.txt
    counted=$((${v1:-0} - ${v0:-0}))
    if [ $side = i ]; then
        check_eq "$what: MKeyViolations counted all 5000" 5000 "$counted"
    else
        # Through portzerod the agent's receive queue (QP0) holds 128 SMPs: when it
        # cannot keep up (a loaded machine) the rest are dropped as they arrive, as
        # VL15 drops a packet without a buffer, and counted as VL15Dropped instead.
        dropped=$((${d1:-0} - ${d0:-0}))
        check "$what: MKeyViolations counted the flood, no more than 5000 ($counted)" \
            test "$counted" -gt 0 -a "$counted" -le 5000
        check_eq "$what: each SMP of the flood counted once, as a violation or as VL15Dropped ($counted + $dropped)" \
            5000 $((counted + dropped))
    fi
    if [ $side = a ]; then
        # The client's own umad timeout, not a fixed one (pzfabric wakes at
        # each deadline); a lower bound only: a loaded machine may be late.
        at "$sock" "$SMP_TOOL" timeouts D:0,1,1 3000 100 > a/timeouts.txt 2>&1
        read -r _ t_short _ t_long _ first < a/timeouts.txt
        check_eq "through portzerod: the 100 ms request times out before the 3000 ms one" short "$first"
        check "... neither before its own timeout (short ${t_short:-?} ms, long ${t_long:-?} ms)" \
            test "${t_short:-0}" -ge 100 -a "${t_long:-0}" -ge 3000
        # The same for CC MADs the agent drops for a wrong CC_Key (OpenSM's
        # CC phase waited 1 s for each).
        at "$sock" ibccconfig CK "$SL" 0x1234 1 0 0 > a/ck.txt 2>&1
        at "$sock" "$SMP_TOOL" -C 0 timeouts "$SL" 3000 100 > a/cctimeouts.txt 2>&1
        read -r _ t_short _ t_long _ first < a/cctimeouts.txt
        check_eq "through portzerod: CC MAD with a wrong CC_Key, 100 ms before 3000 ms" short "$first"
        check "... neither before its own timeout (short ${t_short:-?} ms, long ${t_long:-?} ms)" \
            test "${t_short:-0}" -ge 100 -a "${t_long:-0}" -ge 3000
        at "$sock" ibccconfig -c 0x1234 CK "$SL" 0 0 0 0 > a/ck0.txt 2>&1
    fi
    at "$sock" "$SMP_TOOL" -y 0x5045 mkey "$SL" 0 0 > $side/clear.txt 2>&1
    check_eq "$what: the Set with the key that clears it is answered" \
        "mkey 0x0000000000000000 protect 0" "$(cat $side/clear.txt)"
    at "$sock" "$SMP_TOOL" query "$SL" 0x11 0 > $side/after.txt 2>&1
    check "$what: then a LID-routed Get without a key is answered" grep -q '^status 0x0000$' $side/after.txt
done

# After all those MADs through umad2sim: a clean exit.
# Bounded: a hang shows its threads (gdb) and fails here, not at ctest's timeout.
kill -TERM "$AGENT"
if ! wait_until 20 bash -c "! kill -0 $AGENT 2> /dev/null"; then
    echo "portzerod still runs 20 s after SIGTERM; its threads:"
    command -v gdb > /dev/null && gdb -batch -ex 'thread apply all bt' -p "$AGENT" 2>&1 | tail -n 80
    kill -KILL "$AGENT"
fi
wait "$AGENT"
check_eq "portzerod exits 0 on SIGTERM" 0 "$?"
check "no allocator abort" bash -c "! grep -qE 'free\\(\\)|munmap_chunk|double free' agent.err"

agent_finish
