#!/bin/bash
# test_agent_iperf.sh - iperf 2 traffic through portzerod's IP plane on a fat
# tree (pzfabric, six portzerods, real OpenSM -R ftree --connect_roots), with
# Debian's iperf 2.1.8 as the real peer in the emulated host's namespace:
#   - host `iperf -c` to a switch, TCP (bytes equal the switch's count) and
#     UDP (the switch's server report: 0 lost, datagrams as the rate says);
#   - host `iperf -s` receiving from a switch's `pz-cli iperf -c`, TCP and UDP;
#   - switch to switch, TCP and UDP;
#   - `traffic matrix` on all six switches at once: every pair's bytes
#     arrive, equal on both ends;
#   - faults: a silent address (TCP and UDP), the server switched off and on,
#     a host client killed mid-test, 50 parallel streams.
# Usage: test_agent_iperf.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_CLI_TIMEOUT=120
ai_init agentiperf 10.78.0 "$@"
pzt_require opensm iperf ip awk
pzt_require_preload
HOST=10.78.0.100

# recent FIELD SWITCH PROTO PEER: FIELD (bytes, total, lost) of SWITCH's newest test from PEER
recent() {
    cli "$2" show iperf | awk -v proto="$3" -v peer="$4:" -v f="$1" '
        $1 == proto && index($2, peer) == 1 && !done {
            split($5, lt, "/"); if (f == "bytes") print $3; else if (f == "lost") print lt[1];
            else print lt[2]; done = 1 }'
}
# to_bytes VALUE UNIT: iperf's adaptive units back to bytes (an integer)
to_bytes() {
    awk -v v="$1" -v u="$2" 'BEGIN { m = 1; if (u ~ /^K/) m = 1024; if (u ~ /^M/) m = 1048576;
        if (u ~ /^G/) m = 1073741824; printf "%.0f\n", v * m }'
}
# resolve SWITCH ADDRESS: a ping resolves the neighbour first, as an operator's
# test would (the IPoIB endpoint also holds 64 packets per neighbour while it
# resolves one; test_agent_traffic starts UDP on unresolved pairs)
resolve() { cli "$1" ping "$2" count 1 timeout 2000 > /dev/null 2>&1; }
# near A B PERCENT: A within PERCENT % of B
near() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= b * p) }'; }

ai_start_all || exit 1
ai_start_host "$HOST/24"
check "host reaches Spine1" wait_until 30 in_ns ping -c 1 -W 1 "${ADDR[Spine1]}"
check "show iperf: the server is on by default" bash -c \
    "'$PZCLI' -s '$WORK/Spine1/ctl' show iperf | grep -q '^iperf server *on'"

TIMEOUTS_BEFORE=$(grep -ci 'timeout' "$WORK/sm/osm.log")

# 1. Host -> switch, TCP: iperf's CSV line has the exact byte count.
in_ns iperf -c "${ADDR[Spine1]}" -t 3 -y C > "$WORK/h2s_tcp.csv" 2> "$WORK/h2s_tcp.err"
bytes=$(awk -F, 'NR == 1 { print $8 }' "$WORK/h2s_tcp.csv")
port=$(awk -F, 'NR == 1 { print $3 }' "$WORK/h2s_tcp.csv")
bps=$(awk -F, 'NR == 1 { print $9 }' "$WORK/h2s_tcp.csv")
# The test's length by iperf's own clock (its interval "0.0-T"): -t 3 or
# more (a loaded machine stretches the last writes: 3.4 s once).
secs=$(awk -F, 'NR == 1 { sub(/.*-/, "", $7); print $7 }' "$WORK/h2s_tcp.csv")
check "host -> Spine1 TCP: iperf sent bytes ($bytes)" test "${bytes:-0}" -gt 100000
check "host -> Spine1 TCP: the test ran its 3 s (${secs:-?} s by iperf's clock)" \
    awk -v t="${secs:-0}" 'BEGIN { exit !(t >= 2.95) }'
check "host -> Spine1 TCP: rate consistent with bytes/${secs:-?} s ($bps bit/s)" \
    near "${bps:-0}" "$(awk -v b="${bytes:-0}" -v t="${secs:-1}" 'BEGIN { printf "%.0f", b * 8 / t }')" 10
check_eq "host -> Spine1 TCP: the switch counted the same bytes" "$bytes" \
    "$(recent bytes Spine1 TCP "$HOST")"

# 2. Host -> switch, UDP at 2 Mbit/s for 3 s: the server report comes back.
in_ns ping -c 1 -W 1 "${ADDR[Leaf2]}" > /dev/null
in_ns iperf -c "${ADDR[Leaf2]}" -u -b 2M -t 3 > "$WORK/h2s_udp.txt" 2>&1
check "host -> Leaf2 UDP: iperf printed the server report" grep -q "Server Report:" "$WORK/h2s_udp.txt"
report=$(awk '/Server Report:/ { getline; getline; print }' "$WORK/h2s_udp.txt")
lost=$(sed -n 's|.* \([0-9]*\)/\([0-9]*\) *(.*|\1|p' <<< "$report")
total=$(sed -n 's|.* \([0-9]*\)/\([0-9]*\) *(.*|\2|p' <<< "$report")
check_eq "host -> Leaf2 UDP: 0 lost ($report)" 0 "$lost"
check "host -> Leaf2 UDP: ~510 datagrams at 2 Mbit/s for 3 s ($total)" near "${total:-0}" 510 15
check_eq "host -> Leaf2 UDP: the switch's record has the same total" "$total" \
    "$(recent total Leaf2 UDP "$HOST")"
check_eq "host -> Leaf2 UDP: ... and total x 1470 bytes" "$((${total:-0} * 1470))" \
    "$(recent bytes Leaf2 UDP "$HOST")"

# 3. Switch -> host: iperf -s in the namespace, the switch's client.
# `ip netns exec` directly (not the in_ns function, whose background copy
# is a subshell): $! is then iperf itself, which stop_pid can stop.
ip netns exec "$NS" iperf -s -y C > "$WORK/hs_tcp.csv" 2> "$WORK/hs_tcp.err" &
AI_PIDS+=($!)
ip netns exec "$NS" iperf -s -u > "$WORK/hs_udp.txt" 2>&1 &
AI_PIDS+=($!)
sleep 1
cli Leaf1 iperf -c "$HOST" -t 3 -i 1 > "$WORK/s2h_tcp.txt" 2>&1
check_eq "Leaf1 -> host TCP: pz-cli exits 0" 0 $?
check "Leaf1 -> host TCP: three interval lines" test "$(grep -c ' sec ' "$WORK/s2h_tcp.txt")" -ge 4
check_eq "Leaf1 -> host TCP -i 1: one '[ ID] Interval' header, as iperf prints it" 1 \
    "$(grep -c '^\[ ID\] Interval' "$WORK/s2h_tcp.txt")"
sw=$(awk '/0.0000-[0-9.]+ sec/ && $3 !~ /^1.0000/ { v = $5; u = $6 } END { print v, u }' "$WORK/s2h_tcp.txt")
check "host's iperf -s logged the test" wait_until 10 test -s "$WORK/hs_tcp.csv"
hbytes=$(awk -F, 'END { print $8 }' "$WORK/hs_tcp.csv")
# shellcheck disable=SC2086
check "Leaf1 -> host TCP: the switch's summary ($sw) matches the host's count ($hbytes)" \
    near "$(to_bytes $sw)" "${hbytes:-0}" 1
resolve Leaf1 "$HOST"
cli Leaf1 iperf -c "$HOST" -u -b 2M -t 3 > "$WORK/s2h_udp.txt" 2>&1
check_eq "Leaf1 -> host UDP: pz-cli exits 0" 0 $?
check "Leaf1 -> host UDP: the host's server report arrived" grep -q "Server Report:" "$WORK/s2h_udp.txt"
rep=$(awk '/Server Report:/ { getline; getline; print }' "$WORK/s2h_udp.txt")
check "Leaf1 -> host UDP: 0 lost ($rep)" grep -q ' 0/[0-9]* (0%)' <<< "$rep"
htotal=$(awk '/Lost\/Total/ { getline; print }' "$WORK/hs_udp.txt" | sed -n 's|.* [0-9]*/\([0-9]*\) .*|\1|p' | tail -1)
stotal=$(sed -n 's|.* [0-9]*/\([0-9]*\) .*|\1|p' <<< "$rep")
check_eq "Leaf1 -> host UDP: the host printed the same total" "$stotal" "$htotal"
check "Leaf1 -> host UDP: ~510 datagrams ($stotal)" near "${stotal:-0}" 510 15

# 4. Switch to switch.
cli Leaf1 iperf -c "${ADDR[Spine2]}" -t 3 > "$WORK/s2s_tcp.txt" 2>&1
check_eq "Leaf1 -> Spine2 TCP: exit 0" 0 $?
sw=$(awk '/ sec / { v = $5; u = $6 } END { print v, u }' "$WORK/s2s_tcp.txt")
rb=$(recent bytes Spine2 TCP "${ADDR[Leaf1]}")
# shellcheck disable=SC2086
check "Leaf1 -> Spine2 TCP: Spine2 counted what Leaf1 reports ($sw, $rb bytes)" \
    near "$(to_bytes $sw)" "${rb:-0}" 1
resolve Leaf3 "${ADDR[Leaf4]}"
cli Leaf3 iperf -c "${ADDR[Leaf4]}" -u -b 5M -t 3 -P 2 > "$WORK/s2s_udp.txt" 2>&1
check_eq "Leaf3 -> Leaf4 UDP -P 2: exit 0" 0 $?
check_eq "Leaf3 -> Leaf4 UDP -P 2: two server reports" 2 "$(grep -c 'Server Report:' "$WORK/s2s_udp.txt")"
check_eq "Leaf3 -> Leaf4 UDP -P 2: 0 lost in both" 2 "$(grep -c ' 0/[0-9]* (0%)' "$WORK/s2s_udp.txt")"

# 5. The traffic matrix on every switch at once, 2 Mbit/s to each peer for 4 s.
for s in "${SWITCHES[@]}"; do
    for p in "${SWITCHES[@]}"; do [ "$p" = "$s" ] || resolve "$s" "${ADDR[$p]}"; done
done
ai_matrix_start matrix 2M 4
for p in "${MPIDS[@]}"; do wait "$p"; done
for s in "${SWITCHES[@]}"; do
    check "matrix on $s: 5 of 5 peers reported" grep -q '^5 of 5 peers reported' "$WORK/matrix.$s"
    for p in "${SWITCHES[@]}"; do
        [ "$p" = "$s" ] && continue
        row=$(awk -v a="${ADDR[$p]}" '$1 == a' "$WORK/matrix.$s")
        sent=$(awk '{ print $2 }' <<< "$row")
        got=$(awk '{ print $3 }' <<< "$row")
        check_eq "matrix $s -> $p: received = sent ($sent bytes)" "$sent" "$got"
        check "matrix $s -> $p: ~2 Mbit/s for 4 s" near "${got:-0}" 1000000 15
        check_eq "matrix $s -> $p: $p's own record agrees" "$got" \
            "$(recent bytes "$p" UDP "${ADDR[$s]}")"
    done
done

# 6. Faults.
start=$SECONDS
cli Leaf1 iperf -c 10.78.0.200 -u -t 1 > "$WORK/silent_udp.txt" 2>&1
check_eq "UDP to a silent address: exit 1" 1 $?
check "... iperf's warning" grep -q "did not receive ack of last datagram" "$WORK/silent_udp.txt"
# The test time ends with the final datagram, not after the 2 s of repeats.
udp_secs=$(sed -n 's/^\[  1\] 0\.0000-\([0-9.]*\) sec .*/\1/p' "$WORK/silent_udp.txt")
check "... its interval is the 1 s it sent (0.0000-${udp_secs:-?})" \
    awk -v t="${udp_secs:-0}" 'BEGIN { exit !(t >= 0.9 && t <= 1.3) }'
# Not hung: 1 s of test and 2 s of final-datagram repeats (200, each 10 ms
# after the one before, so a late loop stretches them): 15 s is a hang guard,
# not the design's bound (the interval above is iperf's own clock).
check "... ended, not hung ($((SECONDS - start)) s, at most 15)" test $((SECONDS - start)) -le 15
start=$SECONDS
cli Leaf1 iperf -c 10.78.0.200 -t 1 > "$WORK/silent_tcp.txt" 2>&1
check_eq "TCP to a silent address: exit 1" 1 $?
check "... connect failed" grep -q "connect failed" "$WORK/silent_tcp.txt"
# Not hung: the client gives up connecting after 5 s (IPERF_CLIENT_TCP_WAIT_NS).
check "... ended, not hung ($((SECONDS - start)) s, at most 20)" test $((SECONDS - start)) -le 20
for opt in -r -d -R --reverse; do
    cli Leaf1 iperf -c "${ADDR[Spine2]}" "$opt" > "$WORK/unknown_opt.txt" 2>&1
    check_eq "iperf -c ... $opt: refused (exit 2)" 2 $?
    check "... says: unknown option: $opt" grep -qx -- "% unknown option: $opt" "$WORK/unknown_opt.txt"
done
check "iperf server off" cli Spine2 iperf server off
check "show iperf: off" bash -c "'$PZCLI' -s '$WORK/Spine2/ctl' show iperf | grep -q '^iperf server *off'"
check "host iperf to a switch with the server off fails" bash -c \
    "! ip netns exec '$NS' iperf -c '${ADDR[Spine2]}' -t 1 -y C 2>&1 | grep -q ',5001,'"
check "iperf server on" cli Spine2 iperf server on
in_ns timeout -s KILL 2 iperf -c "${ADDR[Spine2]}" -t 30 > /dev/null 2>&1
check "a client killed mid-test: Spine2 still serves" bash -c \
    "ip netns exec '$NS' iperf -c '${ADDR[Spine2]}' -t 1 -y C | grep -q ',5001,'"
tests_before=$(cli Spine1 show iperf | awk '/^TCP tests/ { print $3 }')
in_ns iperf -c "${ADDR[Spine1]}" -t 2 -P 50 > "$WORK/p50.txt" 2>&1
check "50 parallel streams: iperf prints the SUM" grep -q '^\[SUM\]' "$WORK/p50.txt"
check "50 parallel streams: Spine1 took 50 more TCP tests" wait_until 10 bash -c \
    "test \$('$PZCLI' -s '$WORK/Spine1/ctl' show iperf | awk '/^TCP tests/ { print \$3 }') -ge $((tests_before + 50))"
check "after all that, Spine1 still answers SMPs and pings" in_ns ping -c 2 -W 1 "${ADDR[Spine1]}"
check_eq "OpenSM logged no new MAD timeouts during the traffic" "$TIMEOUTS_BEFORE" \
    "$(grep -ci 'timeout' "$WORK/sm/osm.log")"

ai_stop_agents
fl_finish
