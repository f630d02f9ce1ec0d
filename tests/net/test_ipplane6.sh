#!/bin/bash
# test_ipplane6.sh - IPv6 through the switch's IP plane (net/pz_ipplane over
# ipoib/ with lwIP) on a CA of pzfabric (lwip_host --address6), reached by
# Linux's own IPv6 stack in a network namespace through pz-iphost --ipv6,
# with OpenSM as SM and SA (issue 26):
#   - lwIP's link-local fe80::<IID of its port GUID> and its configured
#     address end DAD and are usable (lwip_host lists them at exit);
#   - ping -6 to both, 20/20, answered by lwIP's ICMPv6; 3000-byte echoes
#     (fragmented both ways);
#   - a 4 MiB TCP stream to the echo port over IPv6 comes back intact;
#     UDP echo over IPv6 returns the datagram, also from pz_udp's port
#     (4007, global and link-local); IPv4 ping beside it;
#   - a second lwIP host configured with the same address: its lwIP's DAD
#     sees the first host defend it, and it gives the address up;
#   - a group lwIP's MLD joins (lwip_host --join6) is joined through the SA
#     too: saquery lists the port as a full member, and a UDP datagram to the
#     group reaches lwIP's echo service, which answers;
#   - SLAAC: an RA with prefix fd00:79::/64 (A, L) sent from the namespace
#     (tests/support/send_ra.py, through pz-iphost, which gives it its IPoIB
#     option) makes lwIP form fd00:79::<IID> and end its DAD (lwip_host lists
#     it usable); ping -6 to it from fd00:79::3, 20/20;
#   - no malformed neighbour discovery counted.
# Usage: test_ipplane6.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST LWIP_HOST
set -u
# shellcheck source=../fabric/fabric_lib.sh
source "$(dirname "$0")/../fabric/fabric_lib.sh"
fl_init ipplane6 "$1" "$2"
PZIPHOST=$(abspath "$3")
LWIPHOST=$(abspath "$4")
pzt_require opensm ping socat sha256sum ip python3
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS="pzt-$$-ipp6"
HOST_PID=
LWIP_PID=
DUP_PID=

trap 'fl_cleanup_ns $? "$NS" "$HOST_PID" "$LWIP_PID" "$DUP_PID"' EXIT

in_ns() { ip netns exec "$NS" "$@"; }
received() { # received COUNT ADDRESS [PING OPTION...]
    local count=$1 addr=$2
    shift 2
    in_ns ping "$@" -c "$count" -i 0.05 -W 2 "$addr" 2> /dev/null | awk '/packets transmitted/ { print $4 }'
}
linklocal() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | (int(sys.argv[1], 16) ^ (2 << 56))))' "$1"
}

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }

"$PZIPHOST" --sockname "$SOCK" --ca Hca3 --address 10.78.0.3/24 --address6 fd00:78::3/64 \
    --netns "$NS" -v > "$WORK/iphost.out" 2> "$WORK/iphost.err" < /dev/null &
HOST_PID=$!
"$LWIPHOST" --sockname "$SOCK" --ca Hca7 --address 10.78.0.7/24 --address6 fd00:78::7/64 \
    --join6 ff02::1:3 -v \
    > "$WORK/lwip.out" 2> "$WORK/lwip.err" < /dev/null &
LWIP_PID=$!
check "pz-iphost joins" wait_file "$WORK/iphost.out" 30 '^ready$' "$HOST_PID"
check "the lwIP host joins" wait_file "$WORK/lwip.out" 30 '^ready$' "$LWIP_PID"
LL7=$(linklocal "$(diag Hca7 smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ { print $NF }')")

# lwIP's DAD takes a second after the link is up: wait for the first answer.
check "lwIP answers ping -6 on its link-local $LL7 (after its DAD)" \
    wait_until 20 in_ns ping -6 -c 1 -W 1 "$LL7%ib0"
check_eq "ping -6 lwIP link-local: 20/20" 20 "$(received 20 "$LL7%ib0" -6)"
check "lwIP answers ping -6 on fd00:78::7" wait_until 20 in_ns ping -6 -c 1 -W 1 fd00:78::7
check_eq "ping -6 lwIP global: 20/20" 20 "$(received 20 fd00:78::7 -6)"
check_eq "ping -6 lwIP with 3000-byte fragments: 5/5" 5 "$(received 5 fd00:78::7 -6 -s 3000)"
check_eq "ping lwIP over IPv4 beside it: 20/20" 20 "$(received 20 10.78.0.7)"

head -c 4M /dev/urandom > "$WORK/blob"
in_ns timeout 120 socat -t 30 - "TCP6:[fd00:78::7]:7" < "$WORK/blob" > "$WORK/back.bin"
check_eq "4 MiB echoed over TCP/IPv6 intact" "$(sha256sum < "$WORK/blob")" "$(sha256sum < "$WORK/back.bin")"
got=$(echo "portzero udp6 echo $$" | in_ns timeout 5 socat -T 3 - "UDP6:[fd00:78::7]:7")
check_eq "UDP echo over IPv6" "portzero udp6 echo $$" "$got"
# pz_udp (SNMP's port type) binds both families: its loop-served echo on 4007
# answers IPv6 peers, at the global and the link-local (the reply keeps the zone).
got=$(echo "portzero pz_udp6 $$" | in_ns timeout 5 socat -T 3 - "UDP6:[fd00:78::7]:4007")
check_eq "pz_udp echo (4007) over IPv6" "portzero pz_udp6 $$" "$got"
got=$(echo "portzero pz_udp6 ll $$" | in_ns timeout 5 socat -T 3 - "UDP6:[$LL7%ib0]:4007")
check_eq "pz_udp echo (4007) over IPv6 at the link-local" "portzero pz_udp6 ll $$" "$got"

# The group MLD joined: a member at the SA, and what is sent to it reaches lwIP.
diag Hca1 saquery -m --smkey 1 > "$WORK/members.txt" 2>&1
G7=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' \
    "$(diag Hca7 smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ { print $NF }')")
state=$(awk -v g="$G7" '/MGID\./ { n = split($0, f, "."); m = f[n] }
    /PortGid\./ { n = split($0, f, "."); pg = f[n] }
    /ScopeState\./ { n = split($0, f, "."); if (m == "ff12:601b:ffff::1:3" && pg == g) print f[n] }' "$WORK/members.txt")
check_eq "the MLD group ff02::1:3 is joined at the SA (ff12:601b:ffff::1:3, full member)" 0x21 "$state"
got=$(echo "portzero mcast6 $$" | in_ns timeout 5 socat -T 3 - "UDP6-DATAGRAM:[ff02::1:3%ib0]:7")
check_eq "a UDP datagram to ff02::1:3 is echoed by lwIP" "portzero mcast6 $$" "$got"

# SLAAC: a router advertisement from the namespace; lwIP forms fd00:79::<IID>.
SLAAC7=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfd000079 << 96) | (int(ipaddress.IPv6Address(sys.argv[1])) & ((1 << 64) - 1))))' "$LL7")
check "send_ra.py: an RA for fd00:79::/64 leaves the namespace" \
    in_ns /usr/bin/python3 "$(dirname "$0")/../support/send_ra.py" ib0 fd00:79::/64
# The sender holds an address in the prefix, as a router does: pz-iphost
# must answer lwIP's neighbour solicitation for fd00:79::3 (Linux's own
# address, not one of its command line) for the echo replies to return.
in_ns ip -6 addr add fd00:79::3/64 dev ib0 nodad
check "lwIP answers ping -6 on its SLAAC address $SLAAC7" wait_until 20 in_ns ping -6 -c 1 -W 1 "$SLAAC7"
check_eq "ping -6 lwIP SLAAC address: 20/20" 20 "$(received 20 "$SLAAC7" -6)"

# A duplicate: another lwIP host with the same address; the first defends it.
"$LWIPHOST" --sockname "$SOCK" --ca Hca8 --address 10.78.0.8/24 --address6 fd00:78::7/64 -v \
    > "$WORK/dup.out" 2> "$WORK/dup.err" < /dev/null &
DUP_PID=$!
check "the second lwIP host joins" wait_file "$WORK/dup.out" 30 '^ready$' "$DUP_PID"
check "the first host saw a probe for its address" \
    wait_file "$WORK/lwip.err" 20 'probes for fd00:78::7, which is ours: defended' "$LWIP_PID"
sleep 2 # the second host's DAD decides one second after its probe
stop_pid "$DUP_PID"
DUP_PID=
check_eq "the second host gave fd00:78::7 up (DAD: duplicate)" 0 \
    "$(grep -c '^ip6_address fd00:78::7 ' "$WORK/dup.out")"
check "the second host kept its link-local" grep -q '^ip6_address fe80::' "$WORK/dup.out"
check_eq "ping -6 still reaches the first host: 5/5" 5 "$(received 5 fd00:78::7 -6)"

stop_pid "$LWIP_PID"
LWIP_PID=
check_eq "lwip_host exits 0 on SIGTERM" 0 "$STOP_RC"
check "lwIP's fd00:78::7 was usable" grep -q '^ip6_address fd00:78::7 usable' "$WORK/lwip.out"
check "lwIP's $LL7 was usable" grep -q "^ip6_address $LL7 usable" "$WORK/lwip.out"
check "lwIP's SLAAC address $SLAAC7 was usable" grep -q "^ip6_address $SLAAC7 usable" "$WORK/lwip.out"
check_eq "no malformed neighbour discovery counted" 0 \
    "$(awk '$1 == "ip6_rx_dropped_nd" { print $2 }' "$WORK/lwip.out")"
check "IPv6 packets went through the endpoint" \
    test "$(awk '$1 == "ip6_rx_packets" { print $2 }' "$WORK/lwip.out")" -gt 1000

fl_finish
