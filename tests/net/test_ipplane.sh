#!/bin/bash
# test_ipplane.sh - the switch's IP plane (net/pz_ipplane: IPoIB endpoint,
# lwIP netif, echo service) on a CA of pzfabric (lwip_host), reached by real
# Linux tools from a network namespace through pz-iphost, with OpenSM as SM
# and SA and its LID routes in between:
#   - ping: 20 echoes answered by lwIP, then 5 of 3000 bytes (IP fragments
#     both ways: lwIP reassembles and fragments);
#   - a 16 MiB TCP stream to the echo port comes back byte-identical (sha256);
#   - UDP echo returns the datagram;
#   - lwip_host exits 0 on SIGTERM and counted no malformed IPv4.
# Usage: test_ipplane.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST LWIP_HOST
set -u
# shellcheck source=../fabric/fabric_lib.sh
source "$(dirname "$0")/../fabric/fabric_lib.sh"
fl_init ipplane "$1" "$2"
PZIPHOST=$(abspath "$3")
LWIPHOST=$(abspath "$4")
pzt_require opensm ping socat sha256sum ip
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS="pzt-$$-ipp"
HOST_PID=
LWIP_PID=

trap 'fl_cleanup_ns $? "$NS" "$HOST_PID" "$LWIP_PID"' EXIT

in_ns() { ip netns exec "$NS" "$@"; }

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }

"$PZIPHOST" --sockname "$SOCK" --ca Hca3 --address 10.78.0.3/24 --netns "$NS" \
    > "$WORK/iphost.out" 2> "$WORK/iphost.err" < /dev/null &
HOST_PID=$!
"$LWIPHOST" --sockname "$SOCK" --ca Hca7 --address 10.78.0.7/24 \
    > "$WORK/lwip.out" 2> "$WORK/lwip.err" < /dev/null &
LWIP_PID=$!
check "pz-iphost joins" wait_file "$WORK/iphost.out" 30 '^ready$' "$HOST_PID"
check "the lwIP host joins" wait_file "$WORK/lwip.out" 30 '^ready$' "$LWIP_PID"

got=$(in_ns ping -c 20 -i 0.05 -W 2 10.78.0.7 2> /dev/null | awk '/packets transmitted/ { print $4 }')
check_eq "ping lwIP: 20/20" 20 "$got"
got=$(in_ns ping -c 5 -s 3000 -i 0.1 -W 2 10.78.0.7 2> /dev/null | awk '/packets transmitted/ { print $4 }')
check_eq "ping lwIP with 3000-byte fragments: 5/5" 5 "$got"

head -c 16M /dev/urandom > "$WORK/blob"
in_ns timeout 120 socat -t 30 - TCP:10.78.0.7:7 < "$WORK/blob" > "$WORK/back.bin"
check_eq "16 MiB echoed over TCP intact" "$(sha256sum < "$WORK/blob")" "$(sha256sum < "$WORK/back.bin")"

# The same through services run on the owner's loop (net/pz_tcp, net/pz_udp:
# what SSH and SNMP use), port 4007: the receive window opens only by what
# the loop has read, so the 16 MiB also test the flow control.
in_ns timeout 120 socat -t 30 - TCP:10.78.0.7:4007 < "$WORK/blob" > "$WORK/back4007.bin"
check_eq "16 MiB echoed over TCP by the loop (pz_tcp) intact" "$(sha256sum < "$WORK/blob")" \
    "$(sha256sum < "$WORK/back4007.bin")"
got4007=$(echo "portzero loop udp echo $$" | in_ns timeout 5 socat -T 3 - UDP:10.78.0.7:4007)
check_eq "UDP echoed by the loop (pz_udp)" "portzero loop udp echo $$" "$got4007"
got=$(echo "portzero udp echo $$" | in_ns timeout 5 socat -T 3 - UDP:10.78.0.7:7)
check_eq "UDP echo" "portzero udp echo $$" "$got"

stop_pid "$LWIP_PID"
LWIP_PID=
check_eq "lwip_host exits 0 on SIGTERM" 0 "$STOP_RC"
check_eq "no malformed IPv4 counted" 0 "$(awk '$1 == "rx_dropped_ip" { print $2 }' "$WORK/lwip.out")"
check "lwIP received packets" test "$(awk '$1 == "rx_packets" { print $2 }' "$WORK/lwip.out")" -gt 8000
# Received UDP and ICMP run through lwIP on the owner's loop (ip_input under
# the core lock), so the echo replies they cause leave from that loop at
# once: at least the 20 + 5 pings' replies and the two UDP echoes; TCP stays
# in lwIP's thread, whose segments cross by the queue.
direct=$(awk '$1 == "netif_tx_direct" { print $2 }' "$WORK/lwip.out")
queued=$(awk '$1 == "netif_tx_queued" { print $2 }' "$WORK/lwip.out")
check "ping and UDP answers sent on the owner's loop at once (direct $direct, queued $queued)" \
    test "${direct:-0}" -ge 27
check "TCP segments sent by lwIP's thread through the queue (queued $queued)" \
    test "${queued:-0}" -gt 8000
# The loop's UDP echo ran from the plane's input hook, right after lwIP
# queued the datagram (not a poll round later).
check "UDP echo on 4007 answered from the input hook" \
    test "$(awk '$1 == "udp_hook_echoes" { print $2 }' "$WORK/lwip.out")" -ge 1

fl_finish
