#!/bin/bash
# bench_ipoib.sh BINDIR [NETFILE] - the IP plane over IPoIB through pzfabric,
# against Linux TCP over a veth pair measured in the same run (the path's
# ceiling on this machine) and the sFtree paper's ~25 MB/s switch-to-switch
# TCP on a Sun DCS 36 port 0 (a fixed reference).
#
# Paths (OpenSM -R ftree --connect_roots on tests/integration/ft-2s4l.net,
# or the 648-port tree with TREE=648):
#   plane:  Linux (pz-iphost's namespace) -> the switch IP plane (net/:
#           ipoib endpoint + lwIP + echo) on an emulated node (lwip_host);
#   agent:  Linux -> portzerod serving a switch (pzfabric --agent): the same
#           plane on the switch's port 0 with the SMA/PMA in the same loop;
#   s2s:    portzerod -> portzerod, switch to switch: ICMP, and TCP through
#           the agents' iperf (`pz-cli iperf -c` on sw1 to sw2's iperf
#           server, 5 s, one stream and 4 streams: the client's summary);
#   hosts:  Linux -> Linux, two pz-iphost namespaces (ipoib/ on both ends);
#   veth:   Linux -> Linux over a veth pair between two namespaces.
# Measured: ICMP RTT (ping, 200 x 56 bytes, 10 ms apart: median of the
# per-packet times) and TCP throughput through an echo service (SIZE MiB,
# default 64, sent and echoed back; MB/s = bytes one way / wall time).
# Goal: >= 100 MB/s switch to switch. Exit 0 whatever the figures.
# MAD service under load: the SMP round trip to SW_1's portzerod
# idle and while it runs a full-rate iperf TCP test (1 and 4 streams),
# against an in-fabric leaf in the same intervals and a fabric-only load;
# SMP_ROUNDS alternating rounds, medians. Goal: loaded <= 1.5x idle.
# SMP_ONLY=1 measures that and the switch-to-switch iperf only.
# TREE=648 runs the same on the 648-port fat tree (gen-fattree 2: the SM on
# host-1-1, the hosts on leaves 1, 18 and 36, paths through a spine).
set -uo pipefail

BIN=$(cd "${1:?usage: bench_ipoib.sh BINDIR [NETFILE]}" && pwd)
SIZE=${SIZE:-64}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LWIPHOST=$(realpath -m "${LWIPHOST:-$BIN/lwip_host}")
for t in opensm socat ping ip; do
    command -v "$t" > /dev/null || { echo "bench_ipoib: $t missing, skipped"; exit 0; }
done
[ -x "$LWIPHOST" ] || { echo "bench_ipoib: $LWIPHOST missing (lwIP?), skipped"; exit 0; }

WORK=$(mktemp -d /tmp/pz-bench-ipoib.XXXXXX)
SOCK="pzb-$$-ipoib"
NSA="pzb-$$-a"
NSB="pzb-$$-b"
NSV1="pzb-$$-v1"
NSV2="pzb-$$-v2"
PIDS=()
cleanup() {
    local i p
    # Newest first (OpenSM before the fabric it talks to); SIGKILL after 3 s.
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        p=${PIDS[i]}
        kill "$p" 2> /dev/null || continue
        for _ in $(seq 30); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
        kill -9 "$p" 2> /dev/null
        wait "$p" 2> /dev/null
    done
    for ns in "$NSA" "$NSB" "$NSV1" "$NSV2"; do ip netns delete "$ns" 2> /dev/null; done
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK" || exit 1

wait_line() { # wait_line FILE REGEX SECONDS
    local end=$((SECONDS + $3))
    while ((SECONDS < end)); do grep -qE "$2" "$1" 2> /dev/null && return 0; sleep 0.1; done
    return 1
}

# rtt NS ADDR: median ping time in ms.
rtt() {
    ip netns exec "$1" ping -c 200 -i 0.01 -W 1 "$2" 2> /dev/null |
        sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'
}

# echo_mbs NS ADDR PORT: MB/s one way through an echo service.
echo_mbs() {
    local t0 t1
    t0=$(date +%s.%N)
    ip netns exec "$1" timeout 300 socat -t 30 - "TCP:$2:$3" < "$WORK/blob" > "$WORK/back" 2> /dev/null
    t1=$(date +%s.%N)
    if ! cmp -s "$WORK/blob" "$WORK/back"; then echo "corrupt"; return; fi
    awk -v b=$((SIZE * 1048576)) -v a="$t0" -v z="$t1" 'BEGIN { printf "%.1f\n", b / (z - a) / 1e6 }'
}

head -c "${SIZE}M" /dev/urandom > "$WORK/blob"

# The topology and the four CAs: SM, host A, host B, the IP plane's node.
if [ "${TREE:-}" = 648 ]; then
    "$BIN/gen-fattree" 2 > "$WORK/tree.net"
    NET=$WORK/tree.net TREE_NAME=sftree648
    read -r CA_SM CA_A CA_B CA_L <<< "host-1-1 host-1-2 host-18-1 host-36-1"
    read -r SW_1 SW_2 <<< "leaf-36 spine-2"
    CA_SMP=host-36-2 # SMPs to SW_1 (DR 0,1)
    CA_REF=host-18-2 # SMPs to leaf-18, served in pzfabric (DR 0,1)
else
    NET=$ROOT/tests/integration/ft-2s4l.net TREE_NAME=ft-2s4l
    read -r CA_SM CA_A CA_B CA_L <<< "Hca1 Hca3 Hca5 Hca7"
    read -r SW_1 SW_2 <<< "Leaf4 Spine2"
    CA_SMP=Hca8
    CA_REF=Hca6
fi
# Debian's umad2sim, then the product's repair (attach/), as every client does.
PRELOAD="/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ${PZ_UMAD2SIM_FIX:-}"

# The fabric (two switches served by portzerods), OpenSM, the two pz-iphost
# namespaces and the lwIP plane.
"$BIN/pzfabric" --sockname "$SOCK" --agent "$SW_1" --agent "$SW_2" "$NET" > fab.out 2> fab.err &
PIDS+=($!)
wait_line fab.out '^ready$' 20 || { echo "bench_ipoib: pzfabric did not start"; exit 0; }
start_agent() { # start_agent SWITCH ADDRESS DIR
    mkdir -p "$3"
    (cd "$3" && LD_PRELOAD=$PRELOAD SIM_HOST=$1 IBSIM_SOCKNAME=$SOCK exec "$BIN/portzerod" \
        -o board=sim -o "ip_address=$2/24" -o "ctl_socket=$WORK/$3/ctl" > out 2> err) &
    PIDS+=($!)
    wait_line "$3/out" '^ready$' 20 || { echo "bench_ipoib: portzerod for $1 did not start"; exit 0; }
}
start_agent "$SW_1" 10.79.0.21 sw1
start_agent "$SW_2" 10.79.0.22 sw2
mkdir -p sm/cache sm/tmp sm/dump
(cd sm && LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so SIM_HOST=$CA_SM \
    IBSIM_SOCKNAME=$SOCK OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp \
    exec opensm -d2 -R ftree --connect_roots --dump_files_dir "$WORK/sm/dump" -f "$WORK/sm/osm.log" \
    > /dev/null 2>&1) &
PIDS+=($!)
wait_line sm/osm.log 'SUBNET UP' 60 || { echo "bench_ipoib: no SUBNET UP"; exit 0; }
"$BIN/pz-iphost" --sockname "$SOCK" --ca "$CA_A" --address 10.79.0.3/24 --netns "$NSA" > a.out 2>&1 &
PIDS+=($!)
"$BIN/pz-iphost" --sockname "$SOCK" --ca "$CA_B" --address 10.79.0.5/24 --netns "$NSB" > b.out 2>&1 &
PIDS+=($!)
"$LWIPHOST" --sockname "$SOCK" --ca "$CA_L" --address 10.79.0.7/24 > l.out 2>&1 &
PIDS+=($!)
for f in a.out b.out l.out; do wait_line "$f" '^ready$' 30 || { echo "bench_ipoib: $f not ready"; exit 0; }; done
for d in sw1 sw2; do
    for _ in $(seq 300); do
        "$BIN/pz-cli" -s "$WORK/$d/ctl" show ip 2> /dev/null | grep -q '^IPoIB state *up' && break
        sleep 0.1
    done
done
ip netns exec "$NSB" socat TCP-LISTEN:7,fork,reuseaddr EXEC:cat > /dev/null 2>&1 &
PIDS+=($!)

# The veth reference: two namespaces, a veth pair, an echo server.
ip netns add "$NSV1" && ip netns add "$NSV2"
ip link add "pzv$$a" netns "$NSV1" type veth peer name "pzv$$b" netns "$NSV2"
ip -n "$NSV1" addr add 10.80.0.1/24 dev "pzv$$a" && ip -n "$NSV1" link set "pzv$$a" up
ip -n "$NSV2" addr add 10.80.0.2/24 dev "pzv$$b" && ip -n "$NSV2" link set "pzv$$b" up
ip -n "$NSV1" link set dev "pzv$$a" mtu 2044 && ip -n "$NSV2" link set dev "pzv$$b" mtu 2044
ip netns exec "$NSV2" socat TCP-LISTEN:7,fork,reuseaddr EXEC:cat > /dev/null 2>&1 &
PIDS+=($!)
sleep 0.5

# s2s_rtt: median per-packet RTT of 200 pings from SW_1's agent to SW_2's.
s2s_rtt() {
    "$BIN/pz-cli" -s "$WORK/sw1/ctl" ping 10.79.0.22 count 200 interval 10 2> /dev/null |
        sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'
}
# s2s_iperf STREAMS: MB/s of SW_1's iperf client to SW_2's server over 5 s
# (the summary's rate: the [SUM] line with several streams).
s2s_iperf() {
    "$BIN/pz-cli" -s "$WORK/sw1/ctl" -t 60 iperf -c 10.79.0.22 -t 5 -P "$1" 2> /dev/null |
        awk -v p="$1" '/ sec / && (p == 1 || $1 == "[SUM]") { v = $(NF - 1); u = $NF }
            END { m = 1; if (u ~ /^K/) m = 1e3; if (u ~ /^M/) m = 1e6; if (u ~ /^G/) m = 1e9;
                  if (u == "") print "nan"; else printf "%.1f\n", v * m / 8 / 1e6 }'
}
# smp_rtt SECONDS CA: mean round trip (us) of synchronous NodeInfo Gets (one
# outstanding, DR 0,1 from CA: CA_SMP reaches SW_1's SMA in portzerod,
# CA_REF a leaf served by pzfabric's own SMA) over SECONDS.
smp_rtt() {
    mkdir -p "smp.$2"
    (cd "smp.$2" && LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so SIM_HOST=$2 \
        IBSIM_SOCKNAME=$SOCK timeout 60 "$BIN/pz-smp-client" nodeinfo 0,1 "$1" 1 2> /dev/null) |
        awk '{ if ($3 + 0 > 0) printf "%.0f\n", 1e6 / $3; else print "nan" }'
}
# smp_rtt_loaded STREAMS: "SW_1 REF" round trips (smp_rtt 2 each) while SW_1
# runs a full-rate iperf TCP test to SW_2 (7 s, STREAMS streams), from 1 s in.
smp_rtt_loaded() {
    "$BIN/pz-cli" -s "$WORK/sw1/ctl" -t 60 iperf -c 10.79.0.22 -t 7 -P "$1" > "iperf_load.$1" 2>&1 &
    local load=$! a b
    sleep 1
    a=$(smp_rtt 2 "$CA_SMP")
    b=$(smp_rtt 2 "$CA_REF")
    wait "$load"
    echo "$a $b"
}
# smp_rtt_fabric_loaded: smp_rtt 2 to SW_1 while two Linux hosts (pz-iphost
# A -> B, not through SW_1) push TCP through pzfabric: the fabric and the
# machine loaded, SW_1's agent idle (the control of the loaded case).
smp_rtt_fabric_loaded() {
    ip netns exec "$NSA" timeout 4 socat -u /dev/zero TCP:10.79.0.5:7 > /dev/null 2>&1 &
    local load=$! a
    sleep 1
    a=$(smp_rtt 2 "$CA_SMP")
    wait "$load"
    echo "$a"
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }
# SMP_ROUNDS (default 3) alternating rounds of idle, 1-stream and 4-stream
# load, so the machine's own load (other jobs) hits each alike; medians.
si=() sir=() s1=() s1r=() s4=() s4r=() sf=()
for ((r = 0; r < ${SMP_ROUNDS:-3}; r++)); do
    si+=("$(smp_rtt 2 "$CA_SMP")")
    sir+=("$(smp_rtt 2 "$CA_REF")")
    read -r a b <<< "$(smp_rtt_loaded 1)"
    s1+=("$a") s1r+=("$b")
    read -r a b <<< "$(smp_rtt_loaded 4)"
    s4+=("$a") s4r+=("$b")
    sf+=("$(smp_rtt_fabric_loaded)")
done
smp_idle=$(median <<< "${si[*]}")
smp_idle_ref=$(median <<< "${sir[*]}")
smp_load1=$(median <<< "${s1[*]}")
smp_load1_ref=$(median <<< "${s1r[*]}")
smp_load4=$(median <<< "${s4[*]}")
smp_load4_ref=$(median <<< "${s4r[*]}")
smp_fabric=$(median <<< "${sf[*]}")
# SMP_ONLY=1: the MAD service part alone (and the switch-to-switch iperf).
if [ -n "${SMP_ONLY:-}" ]; then
    rtt_agent=- rtt_s2s=- tp_agent=- rtt_plane=- rtt_hosts=- rtt_veth=- tp_plane=- tp_hosts=- tp_veth=-
    tp_s2s=$(s2s_iperf 1)
    tp_s2s4=$(s2s_iperf 4)
else
    rtt_agent=$(rtt "$NSA" 10.79.0.21)
    rtt_s2s=$(s2s_rtt)
    tp_s2s=$(s2s_iperf 1)
    tp_s2s4=$(s2s_iperf 4)
    tp_agent=$(echo_mbs "$NSA" 10.79.0.21 7)
    rtt_plane=$(rtt "$NSA" 10.79.0.7)
    rtt_hosts=$(rtt "$NSA" 10.79.0.5)
    rtt_veth=$(rtt "$NSV1" 10.80.0.2)
    tp_plane=$(echo_mbs "$NSA" 10.79.0.7 7)
    tp_hosts=$(echo_mbs "$NSA" 10.79.0.5 7)
    tp_veth=$(echo_mbs "$NSV1" 10.80.0.2 7)
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "IPoIB through pzfabric ($TREE_NAME, OpenSM ftree --connect_roots), MTU 2044, ${SIZE} MiB echoed"
printf '%-34s %10s %10s %14s %14s\n' path "RTT ms" "MB/s" "RTT / veth" "MB/s / veth"
printf '%-34s %10s %10s %14s %14s\n' "Linux -> IP plane (lwIP)" "$rtt_plane" "$tp_plane" \
    "$(ratio "$rtt_plane" "$rtt_veth")" "$(ratio "$tp_plane" "$tp_veth")"
printf '%-34s %10s %10s %14s %14s\n' "Linux -> portzerod ($SW_1)" "$rtt_agent" "$tp_agent" \
    "$(ratio "$rtt_agent" "$rtt_veth")" "$(ratio "$tp_agent" "$tp_veth")"
printf '%-34s %10s %10s %14s %14s\n' "portzerod -> portzerod ($SW_1->$SW_2)" "$rtt_s2s" "$tp_s2s" \
    "$(ratio "$rtt_s2s" "$rtt_veth")" "$(ratio "$tp_s2s" "$tp_veth")"
printf '%-34s %10s %10s %14s %14s\n' "  ... iperf TCP, 4 streams" "-" "$tp_s2s4" "-" \
    "$(ratio "$tp_s2s4" "$tp_veth")"
printf '%-34s %10s %10s %14s %14s\n' "Linux -> Linux (pz-iphost x2)" "$rtt_hosts" "$tp_hosts" \
    "$(ratio "$rtt_hosts" "$rtt_veth")" "$(ratio "$tp_hosts" "$tp_veth")"
printf '%-34s %10s %10s %14s %14s\n' "Linux -> Linux (veth, reference)" "$rtt_veth" "$tp_veth" 1.00 1.00
# (SMP_ONLY=1 measures no plane: no verdict on a figure not taken)
[ -n "${SMP_ONLY:-}" ] ||
    echo "IP plane vs Sun DCS 36 port 0 (~25 MB/s, sFtree paper): $(ratio "$tp_plane" 25)x; goal >= 100 MB/s: $(awk -v t="$tp_plane" 'BEGIN { print (t + 0 >= 100) ? "met" : "not met" }')"
echo "switch to switch (agents' iperf TCP) vs Sun DCS 36 port 0 (~25 MB/s): $(ratio "$tp_s2s" 25)x (1 stream), $(ratio "$tp_s2s4" 25)x (4 streams); goal >= 100 MB/s: $(awk -v t="$tp_s2s" 'BEGIN { print (t + 0 >= 100) ? "met" : "not met" }')"
[ -n "${SMP_ONLY:-}" ] ||
    echo "portzerod's plane vs Sun DCS 36 port 0: $(ratio "$tp_agent" 25)x; vs the bare plane (lwip_host): $(ratio "$tp_agent" "$tp_plane")x"
echo "MAD service of $SW_1 (portzerod) while it runs a full-rate iperf TCP test to $SW_2 (medians of ${SMP_ROUNDS:-3} alternating rounds): SMP round trip idle ${smp_idle} us, loaded ${smp_load1} us (1 stream, $(ratio "$smp_load1" "$smp_idle")x idle), ${smp_load4} us (4 streams, $(ratio "$smp_load4" "$smp_idle")x idle); goal <= 1.5x: $(awk -v a="$smp_load1" -v b="$smp_load4" -v i="$smp_idle" 'BEGIN { print (i + 0 > 0 && a + 0 <= 1.5 * i && b + 0 <= 1.5 * i) ? "met" : "not met" }')"
echo "  reference, a leaf served in pzfabric (no IP load of its own) in the same intervals: idle ${smp_idle_ref} us, loaded ${smp_load1_ref} us ($(ratio "$smp_load1_ref" "$smp_idle_ref")x, 1 stream), ${smp_load4_ref} us ($(ratio "$smp_load4_ref" "$smp_idle_ref")x, 4 streams): what the machine's CPU contention alone costs"
echo "  control, $SW_1's agent idle while two Linux hosts push TCP through pzfabric (not through $SW_1): ${smp_fabric} us ($(ratio "$smp_fabric" "$smp_idle")x idle)"
