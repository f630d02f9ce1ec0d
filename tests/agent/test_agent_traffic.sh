#!/bin/bash
# test_agent_traffic.sh - issue 14's traffic acceptance on a fat tree
# (pzfabric, six portzerods, OpenSM -R ftree --connect_roots sweeping every
# 2 s, Debian's iperf 2.1.8 in the emulated host's namespace), measured
# against what pzfabric counted (perfquery -x, PMA of the switches):
#   1. `iperf -c` host -> switch and switch -> switch (two hops): the bytes
#      and rate iperf reports match PortXmitData/PortRcvData of every switch
#      port of the path (ibtracert), within 2%;
#   4. the UDP traffic matrix on all six switches at once, started on
#      unresolved neighbours: every pair's datagrams arrive, and their sum
#      is what port 0 of each receiver counted (within 2%);
#      the TCP matrix: every pair streams, per-pair bytes equal the
#      receiver's own count;
#   5. faults: a host client killed mid-test, a server killed mid-test, a
#      UDP server that never answers, 50 parallel streams to and from a
#      switch, a link pulled mid-matrix: the CLI output, exit status and
#      agent log say what happened, smpquery answers during the load, and
#      OpenSM logs no MAD timeout.
#
# Tolerance: the counters are exact, the difference is other traffic on
# those ports in the same interval: SM sweeps (SMPs, 72 words each), IPoIB
# ARP (broadcast to every switch's port 0), a UDP test's repeated final
# datagram.  Each check prints the difference; a quiet interval of the same
# length is measured first to show the background.
# Usage: test_agent_traffic.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_CLI_TIMEOUT=120
AI_OSM_OPTIONS=(-s 2)
ai_init agenttraffic 10.77.0 "$@"
# The tree with enhanced port 0 on every switch: a base port 0 has no
# counters of its own, an enhanced one counts its management traffic.
sed -E 's/^(Switch\t[0-9]+ "([^"]+)")$/\1 # "\2" enhanced port 0/' "$NET" > "$WORK/esp0.net"
NET=$WORK/esp0.net
pzt_require opensm iperf ip awk ibtracert perfquery smpquery socat
pzt_require_preload
HOST=10.77.0.100
# Per packet: IPoIB encapsulation 4, LRH 8, BTH 12, DETH 8, ICRC 4 bytes.
IB_OVERHEAD=36

# near A B PERCENT: A within PERCENT % of B
near() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= b * p) }'; }
# pq LID PORT: "XmitData XmitPkts RcvData RcvPkts" of perfquery -x (data in 4-byte words)
pq() {
    diag Hca2 perfquery -x "$1" "$2" 2> /dev/null | awk -F'[.:]+' '
        /^PortXmitData/ { xd = $NF } /^PortXmitPkts/ { xp = $NF }
        /^PortRcvData/ { rd = $NF } /^PortRcvPkts/ { rp = $NF }
        END { printf "%d %d %d %d\n", xd, xp, rd, rp }'
}
# path SRC_LID DST_LID: the switch ports a packet crosses, "LID PORT xmit|rcv"
# per line, from ibtracert: egress ports count Xmit, ingress ports Rcv, the
# destination switch's port 0 Rcv, a source switch's port 0 Xmit.
path() {
    diag Hca2 ibtracert "$1" "$2" 2> /dev/null | awk '
        function lid(   i, a) { for (i = 1; i < NF; i++) if ($i == "lid") { split($(i + 1), a, "-"); return a[1] } }
        /^From/ { prev = lid(); prevsw = ($2 == "switch"); if (prevsw) print prev, 0, "xmit" }
        /^\[[0-9]+\] -> / {
            out = substr($1, 2, length($1) - 2); cur = lid(); sw = ($3 == "switch")
            match($0, /\}\[[0-9]+\]/); in_port = substr($0, RSTART + 2, RLENGTH - 3)
            if (prevsw) print prev, out, "xmit"
            if (sw) print cur, in_port, "rcv"
            prev = cur; prevsw = sw }
        /^To switch/ { print lid(), 0, "rcv" }'
}
# snap FILE: the counters of every port of $WORK/path into FILE ("words pkts" per line)
snap() {
    local l p d c
    while read -r l p d; do
        c=$(pq "$l" "$p")
        if [ "$d" = xmit ]; then awk '{ print $1, $2 }' <<< "$c"; else awk '{ print $3, $4 }' <<< "$c"; fi
    done < "$WORK/path" > "$1"
}
# payload BEFORE AFTER HDR: per port, the bytes above IP+HDR the counters saw
# between the snapshots: 4 x words - packets x (IB overhead + 20 + HDR)
payload() {
    paste "$1" "$2" | awk -v o="$((IB_OVERHEAD + 20 + $3))" '{ printf "%d\n", 4 * ($3 - $1) - o * ($4 - $2) }'
}
# check_path NAME BYTES SECS RATE QUIET: every port's payload within 2% of BYTES (after
# subtracting the quiet interval's), and BYTES*8/SECS within 2% of RATE (bit/s)
check_path() {
    local name=$1 bytes=$2 secs=$3 rate=$4 i=0 got q
    while read -r got; do
        i=$((i + 1))
        q=$(sed -n "${i}p" "$5")
        read -r l p d < <(sed -n "${i}p" "$WORK/path")
        check "$name: LID $l port $p $d: $got bytes (quiet: $q) vs iperf's $bytes (2%)" \
            near "$((got - q))" "$bytes" 2
    done < "$WORK/payload"
    check "$name: the counters' rate $(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.0f", b * 8 / s }') bit/s vs iperf's $rate (2%)" \
        near "$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.0f", b * 8 / s }')" "$rate" 2
}
# quiet SECONDS: the payload the path's ports see in SECONDS with no test, into $WORK/quiet
quiet() {
    snap "$WORK/q0"
    sleep "$1"
    snap "$WORK/q1"
    payload "$WORK/q0" "$WORK/q1" 20 > "$WORK/quiet"
}
# recent FIELD SWITCH PROTO PEER: bytes or seconds of SWITCH's newest test from PEER
recent() {
    cli "$2" show iperf | awk -v proto="$3" -v peer="$4:" -v f="$1" '
        $1 == proto && index($2, peer) == 1 && !done { print (f == "bytes" ? $3 : $4); done = 1 }'
}
# record_is SWITCH PEER BYTES: SWITCH's newest TCP test from PEER has BYTES
record_is() { test "$(recent bytes "$1" TCP "$2")" = "$3"; }
# smp_watch SECONDS LID OUT: smpquery nodeinfo LID every 0.2 s for SECONDS,
# "ok MS" or "fail MS" per query into OUT (runs in the background: a
# subshell, stopped by the test with the loads it watches)
smp_watch() {
    local end=$((SECONDS + $1)) t0 t1
    while ((SECONDS < end)); do
        t0=$(date +%s%N)
        if pzt_diag "$SOCK" Hca2 1000 10 smpquery nodeinfo "$2" > /dev/null 2>&1; then
            t1=$(date +%s%N)
            echo "ok $(((t1 - t0) / 1000000))"
        else
            t1=$(date +%s%N)
            echo "fail $(((t1 - t0) / 1000000))"
        fi
        sleep 0.2
    done > "$3"
}
smp_summary() { awk '{ n[$1]++; if ($2 > max) max = $2 } END { printf "%d ok, %d failed, slowest %d ms", n["ok"], n["fail"], max }' "$1"; }
timeouts() { grep -ci 'timeout' "$WORK/sm/osm.log"; }

ai_start_all || exit 1
ai_start_host "$HOST/24"
check "host reaches Spine1" wait_until 30 in_ns ping -c 1 -W 1 "${ADDR[Spine1]}"
TIMEOUTS_BEFORE=$(timeouts)
declare -A LID
for s in "${SWITCHES[@]}"; do LID[$s]=$(lid_of "$s"); done
HOST_LID=$(cli Leaf2 show interfaces ib 3 | awk '$1 == 3 { print $7 }')
check "the host's LID ($HOST_LID) from Leaf2's port 3" test -n "$HOST_LID" -a "${HOST_LID:-0}" != 0

# --- 1. host -> Spine1, TCP: every switch port of the path against iperf. ---
path "$HOST_LID" "${LID[Spine1]}" > "$WORK/path"
note "host -> Spine1 path: $(tr '\n' ';' < "$WORK/path")"
check "host -> Spine1: ibtracert gives a path ending at Spine1's port 0" \
    grep -q "^${LID[Spine1]} 0 rcv\$" "$WORK/path"
quiet 3
snap "$WORK/c0"
in_ns iperf -c "${ADDR[Spine1]}" -t 3 -y C > "$WORK/h2s.csv" 2> "$WORK/h2s.err"
sleep 0.5 # the last segments' counters
snap "$WORK/c1"
payload "$WORK/c0" "$WORK/c1" 20 > "$WORK/payload"
IFS=, read -r _ _ _ _ _ _ interval bytes bps < "$WORK/h2s.csv"
secs=${interval#*-}
check "host -> Spine1: iperf sent bytes ($bytes in $secs s)" test "${bytes:-0}" -gt 100000
check_path "host -> Spine1 TCP" "${bytes:-0}" "${secs:-1}" "${bps:-0}" "$WORK/quiet"

# --- 1. switch -> switch over two hops (Leaf1 -> Leaf4 through a spine). ---
path "${LID[Leaf1]}" "${LID[Leaf4]}" > "$WORK/path"
note "Leaf1 -> Leaf4 path: $(tr '\n' ';' < "$WORK/path")"
check_eq "Leaf1 -> Leaf4: ibtracert gives 6 switch ports (port 0, up, spine in/out, down, port 0)" \
    6 "$(wc -l < "$WORK/path")"
quiet 3
snap "$WORK/c0"
cli Leaf1 iperf -c "${ADDR[Leaf4]}" -t 3 > "$WORK/s2s.txt" 2>&1
sleep 0.5
snap "$WORK/c1"
payload "$WORK/c0" "$WORK/c1" 20 > "$WORK/payload"
# Leaf4's record has the exact bytes and seconds; Leaf1 prints the rate.
bytes=$(recent bytes Leaf4 TCP "${ADDR[Leaf1]}")
secs=$(recent secs Leaf4 TCP "${ADDR[Leaf1]}")
rate=$(awk '/ sec / { v = $7; u = $8 } END { m = 1; if (u ~ /^K/) m = 1e3; if (u ~ /^M/) m = 1e6; if (u ~ /^G/) m = 1e9; printf "%.0f", v * m }' "$WORK/s2s.txt")
check "Leaf1 -> Leaf4: Leaf4 counted $bytes bytes in $secs s" test "${bytes:-0}" -gt 100000
check_path "Leaf1 -> Leaf4 TCP" "${bytes:-0}" "${secs:-1}" "${rate:-0}" "$WORK/quiet"

# --- 4. the UDP matrix on all six switches at once, on unresolved neighbours:
# no ping first, the IPoIB endpoint holds a stream's first datagrams while it
# resolves the peer.  Port 0 of every receiver counts every datagram.
for s in "${SWITCHES[@]}"; do pq "${LID[$s]}" 0 > "$WORK/p0.$s"; done
ai_matrix_start matrix 2M 4
for p in "${MPIDS[@]}"; do wait "$p"; done
sleep 0.5
declare -A GOT_DGRAMS GOT_BYTES
for s in "${SWITCHES[@]}"; do
    check "UDP matrix on $s: 5 of 5 peers reported" grep -q '^5 of 5 peers reported' "$WORK/matrix.$s"
    for p in "${SWITCHES[@]}"; do
        [ "$p" = "$s" ] && continue
        row=$(awk -v a="${ADDR[$p]}" '$1 == a' "$WORK/matrix.$s")
        read -r _ sent got lt _ <<< "$row"
        check_eq "UDP matrix $s -> $p: received = sent ($sent bytes, ${lt:-?} lost/total)" "$sent" "$got"
        check_eq "UDP matrix $s -> $p: 0 lost, the first datagrams included" 0 "${lt%%/*}"
        total=${lt#*/}
        GOT_DGRAMS[$p]=$((${GOT_DGRAMS[$p]:-0} + ${total:-0}))
        GOT_BYTES[$p]=$((${GOT_BYTES[$p]:-0} + ${got:-0}))
    done
done
for s in "${SWITCHES[@]}"; do # where a lost datagram went, if one was
    note "$s show ip: $(cli "$s" show ip | grep '^Dropped' | tr -s ' ')"
done
note "pzfabric: $(ctl status | grep '^dgram' | tr '\n' ' ')"
# Each datagram of 1470 bytes is 1470 + 8 (UDP) + 20 (IP) + 4 (IPoIB) +
# 2 (pad) + 32 (LRH, BTH, DETH, ICRC) = 1536 bytes: 384 words at port 0.
for p in "${SWITCHES[@]}"; do
    read -r _ _ rd0 rp0 < "$WORK/p0.$p"
    read -r _ _ rd1 rp1 < <(pq "${LID[$p]}" 0)
    words=$((rd1 - rd0))
    want=$((${GOT_DGRAMS[$p]:-0} * 384))
    check "UDP matrix: $p's port 0 counted $words words for ${GOT_BYTES[$p]} bytes in ${GOT_DGRAMS[$p]} datagrams ($want words; $((rp1 - rp0 - ${GOT_DGRAMS[$p]:-0})) other packets)" \
        near "$words" "$want" 2
    check "UDP matrix: $p's port 0 counted at least the datagrams" test "$words" -ge "$want"
done

# --- 4b. the TCP matrix on all six switches at once. ---
ai_matrix_start tmatrix tcp 3
rcs=()
for p in "${MPIDS[@]}"; do
    wait "$p"
    rcs+=($?)
done
check_eq "TCP matrix: every switch's pz-cli exits 0" "0 0 0 0 0 0" "${rcs[*]}"
for s in "${SWITCHES[@]}"; do
    check "TCP matrix on $s: 5 of 5 peers completed" grep -q '^5 of 5 peers completed' "$WORK/tmatrix.$s"
    for p in "${SWITCHES[@]}"; do
        [ "$p" = "$s" ] && continue
        read -r _ got secs rate unit state < <(awk -v a="${ADDR[$p]}" '$1 == a' "$WORK/tmatrix.$s")
        check "TCP matrix $s -> $p: $got bytes in $secs s ($rate $unit, $state)" \
            test "${got:-0}" -gt 10000 -a "$state" = "done"
        # The server records a test when the client's FIN arrives, a moment
        # after the client's last ack: its newest record from $s gets there.
        check "TCP matrix $s -> $p: $p's own record agrees ($got bytes)" \
            wait_until 5 record_is "$p" "${ADDR[$s]}" "$got"
    done
done
check_eq "TCP matrix usage error: exit 2" 2 \
    "$(cli Leaf1 traffic matrix tcp > "$WORK/tusage.txt" 2>&1; echo $?)"
check "... the usage names the TCP form" grep -q 'traffic matrix tcp SECONDS ADDRESS' "$WORK/tusage.txt"

# --- 5. faults, with smpquery watching the loaded switch and OpenSM sweeping. ---
# A host client killed mid-test (TCP and UDP).
smp_watch 12 "${LID[Spine2]}" "$WORK/smp.kill" &
WATCH=$!
AI_PIDS+=("$WATCH")
in_ns timeout -s KILL 2 iperf -c "${ADDR[Spine2]}" -t 30 > /dev/null 2>&1
in_ns timeout -s KILL 2 iperf -c "${ADDR[Spine2]}" -u -b 5M -t 30 > /dev/null 2>&1
check "a TCP client killed mid-test: Spine2 recorded the test" bash -c \
    "'$PZCLI' -s '$WORK/Spine2/ctl' show iperf | awk '\$1 == \"TCP\" && index(\$2, \"$HOST:\") == 1 && \$3 > 0' | grep -q ."
check "a UDP client killed mid-test: Spine2 retires the session as silent (10 s)" wait_until 15 bash -c \
    "'$PZCLI' -s '$WORK/Spine2/ctl' show iperf | awk '\$1 == \"UDP\" && index(\$2, \"$HOST:\") == 1' | grep -q silent"
check "... and still serves: a new test" bash -c \
    "ip netns exec '$NS' iperf -c '${ADDR[Spine2]}' -t 1 -y C | grep -q ',5001,'"
wait "$WATCH"
check "smpquery to Spine2 while clients died: every query answered ($(smp_summary "$WORK/smp.kill"))" \
    bash -c "! grep -q fail '$WORK/smp.kill' && grep -q ok '$WORK/smp.kill'"

# A server killed mid-test: the switch's client says so and exits 1.
ip netns exec "$NS" iperf -s > "$WORK/hs.txt" 2>&1 &
HS=$!
AI_PIDS+=("$HS")
sleep 1
cli Leaf1 iperf -c "$HOST" -t 6 > "$WORK/killed_srv.txt" 2>&1 &
CLI=$!
sleep 2
stop_pid "$HS"
wait "$CLI"
check_eq "server killed mid-test: pz-cli exits 1" 1 $?
check "... and says the connection was closed" grep -q "connection closed by the server before the end" \
    "$WORK/killed_srv.txt"
check "... the agent's log says how the command ended" \
    grep -q "ctl: 'iperf -c $HOST -t 6' ended with exit status 1" "$WORK/Leaf1/err"

# A UDP server that never answers (a plain socket, no server report).
ip netns exec "$NS" socat -u UDP-RECV:5001 OPEN:/dev/null > /dev/null 2>&1 &
SINK=$!
AI_PIDS+=("$SINK")
sleep 0.5
start=$SECONDS
cli Leaf1 iperf -c "$HOST" -u -b 1M -t 1 > "$WORK/noreport.txt" 2>&1
check_eq "UDP server that never answers: exit 1" 1 $?
check "... iperf's warning" grep -q "did not receive ack of last datagram" "$WORK/noreport.txt"
# Not hung (1 s of test, 2 s of final-datagram repeats): a hang guard, not the design's bound.
check "... ended, not hung ($((SECONDS - start)) s, at most 15)" test $((SECONDS - start)) -le 15
check "... logged" grep -q "ctl: 'iperf -c $HOST -u -b 1M -t 1' ended with exit status 1" "$WORK/Leaf1/err"
stop_pid "$SINK"

# 50 parallel streams to a switch and from it, smpquery watching it.
smp_watch 14 "${LID[Spine1]}" "$WORK/smp.p50" &
WATCH=$!
AI_PIDS+=("$WATCH")
in_ns iperf -c "${ADDR[Spine1]}" -t 4 -P 50 > "$WORK/p50_to.txt" 2>&1
check "-P 50 to Spine1: iperf prints the SUM" grep -q '^\[SUM\]' "$WORK/p50_to.txt"
ip netns exec "$NS" iperf -s -y C > "$WORK/hs50.csv" 2> /dev/null &
HS=$!
AI_PIDS+=("$HS")
sleep 1
cli Spine1 iperf -c "$HOST" -t 4 -P 50 > "$WORK/p50_from.txt" 2>&1
check_eq "-P 50 from Spine1: exit 0" 0 $?
check_eq "-P 50 from Spine1: 50 connections" 50 "$(grep -c ' connected with ' "$WORK/p50_from.txt")"
check "-P 50 from Spine1: a SUM line" grep -q '^\[SUM\]' "$WORK/p50_from.txt"
check "-P 50 from Spine1: the host logged 50 tests" wait_until 10 \
    bash -c "test \$(wc -l < '$WORK/hs50.csv') -ge 50"
stop_pid "$HS"
wait "$WATCH"
check "smpquery to Spine1 during -P 50 both ways: every query answered ($(smp_summary "$WORK/smp.p50"))" \
    bash -c "! grep -q fail '$WORK/smp.p50' && grep -q ok '$WORK/smp.p50'"

# A link pulled mid-matrix: Leaf1's uplink to Spine1; OpenSM reroutes.
smp_watch 10 "${LID[Leaf1]}" "$WORK/smp.link" &
WATCH=$!
AI_PIDS+=("$WATCH")
ai_peer_addrs Leaf1
dg_dropped() { ctl status | awk '$1 == "dgram-dropped" { print $2; exit }'; }
DROPPED_BEFORE=$(dg_dropped)
cli Leaf1 traffic matrix 2M 6 "${PEERS[@]}" > "$WORK/matrix.down" 2>&1 &
CLI=$!
sleep 2
ctl link-down Leaf1 1 > /dev/null
wait "$CLI"
rc=$?
reported=$(awk '/peers reported$/ { print $1 }' "$WORK/matrix.down")
check "link down mid-matrix: the table is printed ($reported of 5 reported)" grep -q 'of 5 peers reported' \
    "$WORK/matrix.down"
check_eq "link down mid-matrix: the exit status says whether every peer reported" \
    "$([ "${reported:-0}" = 5 ] && echo 0 || echo 1)" "$rc"
lost=$(awk '$1 ~ /^10\./ && $4 ~ /\// { split($4, a, "/"); n += a[1] } END { print n + 0 }' "$WORK/matrix.down")
norep=$(grep -c 'no report' "$WORK/matrix.down")
# What the cable took is what pzfabric dropped meanwhile: when it dropped datagrams the
# matrix must show losses or a missing report; when the pull fell between the matrix's
# datagrams (a late start on a loaded machine) nothing was taken and none is owed.
dropped=$(($(dg_dropped) - DROPPED_BEFORE))
check "link down mid-matrix: losses or missing reports show what the cable took ($lost lost, $norep no report, pzfabric dropped $dropped datagrams)" \
    test "$dropped" -eq 0 -o "$lost" -gt 0 -o "$norep" -gt 0
check "... logged" grep -q "ctl: 'traffic matrix 2M 6 .*' ended with exit status $rc" "$WORK/Leaf1/err"
wait "$WATCH"
check "smpquery to Leaf1 while its link went down: every query answered ($(smp_summary "$WORK/smp.link"))" \
    bash -c "! grep -q fail '$WORK/smp.link' && grep -q ok '$WORK/smp.link'"
ctl link-up Leaf1 1 > /dev/null
check "after the link is back: Leaf1 reaches Spine1" wait_until 40 \
    cli Leaf1 ping "${ADDR[Spine1]}" count 1 timeout 1000

check_eq "OpenSM (sweeping every 2 s) logged no MAD timeouts during the test" "$TIMEOUTS_BEFORE" "$(timeouts)"
grep -E 'ERR [0-9A-F]{4}' "$WORK/sm/osm.log" | grep -vi 'link.*down\|reroute' | head -n 5 | sed 's/^/note OpenSM: /'

ai_stop_agents
fl_finish
