#!/bin/bash
# test_iphost6.sh - IPv6 over IPoIB between two emulated IP hosts (pz-iphost
# --ipv6) across pzfabric, with real OpenSM as SM and SA and Linux's own
# IPv6 stack in network namespaces of the test's own (issue 26):
#   - each host has fe80::<IID of its port GUID> (u bit complemented) and its
#     configured global address on ib0;
#   - OpenSM created the IPv6 groups for the hosts' joins: saquery lists both
#     port GIDs as full members of all-nodes ff12:601b:ffff::1 and each one of
#     its own solicited-node group;
#   - ping -6 to the link-local address (%ib0) and to the global one, 20/20
#     both ways, IPv4 ping at the same time;
#   - a 4 MiB TCP stream over IPv6 arrives byte-identical;
#   - tshark decodes the capture's neighbour discovery as valid ICMPv6 (good
#     checksum, no malformed frame) with the IPoIB link-layer option: type
#     1/2, length 3, two zero bytes then the sender's QPN and port GID;
#   - OpenSM restarts on another node and reassigns every LID: the hosts
#     join their IPv6 groups again and ping -6 works again.
# Usage: test_iphost6.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST
set -u
# shellcheck source=fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
fl_init iphost6 "$1" "$2"
PZIPHOST=$(abspath "$3")
pzt_require opensm saquery ping socat sha256sum tshark ip python3
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS3="pzt-$$-h3"
NS7="pzt-$$-h7"
H3_PID=
H7_PID=

trap 'fl_cleanup_ns $? "$NS3 $NS7" "$H3_PID" "$H7_PID"' EXIT

# start_host CA ADDRESS ADDRESS6 NS: pz-iphost --ipv6 in the background; its PID in HOST_PID.
start_host() {
    "$PZIPHOST" --sockname "$SOCK" --ca "$1" --address "$2" --address6 "$3" --netns "$4" -v \
        > "$WORK/$1.out" 2> "$WORK/$1.err" < /dev/null &
    HOST_PID=$!
}

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# received COUNT NS ADDRESS [ping option]: ping COUNT times; prints the received count.
received() {
    in_ns "$2" ping ${4:+"$4"} -c "$1" -i 0.05 -W 2 "$3" 2> /dev/null |
        awk '/packets transmitted/ { print $4 }'
}

# port_guid CA: the CA's port GUID (0x...).
port_guid() { diag "$1" smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ { print $NF }'; }

# v6_text: python3 one-liners on addresses (RFC 5952 text).
# linklocal GUID: fe80::(GUID ^ 0x0200000000000000); port_gid GUID: fe80::GUID;
# solnode ADDRESS: ff02::1:ffXX:XXXX; solnode_mgid ADDRESS: ff12:601b:ffff::1:ffXX:XXXX.
linklocal() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | (int(sys.argv[1], 16) ^ (2 << 56))))' "$1"
}
port_gid() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$1"
}
solnode() {
    python3 -c 'import ipaddress, sys
a = int(ipaddress.IPv6Address(sys.argv[1]))
print(ipaddress.IPv6Address((0xff02 << 112) | (0x1ff << 24) | (a & 0xffffff)))' "$1"
}
solnode_mgid() {
    python3 -c 'import ipaddress, sys
a = int(ipaddress.IPv6Address(sys.argv[1]))
print(ipaddress.IPv6Address((0xff12601bffff << 80) | (0x1ff << 24) | (a & 0xffffff)))' "$1"
}

fl_start_fabric --pcap "$WORK/cap.pcap" "$NET" || exit 1
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }

start_host Hca3 10.77.0.3/24 fd00:77::3/64 "$NS3"
H3_PID=$HOST_PID
start_host Hca7 10.77.0.7/24 fd00:77::7/64 "$NS7"
H7_PID=$HOST_PID
check "Hca3 joins (ready)" wait_file "$WORK/Hca3.out" 30 '^ready$' "$H3_PID"
check "Hca7 joins (ready)" wait_file "$WORK/Hca7.out" 30 '^ready$' "$H7_PID"

G3=$(port_guid Hca3)
G7=$(port_guid Hca7)
LL3=$(linklocal "$G3")
LL7=$(linklocal "$G7")
check "Hca3's ib0 has $LL3/64" sh -c "ip -n '$NS3' -6 addr show dev ib0 | grep -q 'inet6 $LL3/64'"
check "Hca3's ib0 has fd00:77::3/64" sh -c "ip -n '$NS3' -6 addr show dev ib0 | grep -q 'inet6 fd00:77::3/64'"
check_eq "Hca3's ib0 has no other IPv6 address" 2 \
    "$(ip -n "$NS3" -6 addr show dev ib0 | grep -c 'inet6 ')"
check "Hca3 joined all-nodes" wait_lines "$WORK/Hca3.err" 30 'joined ff02::1: MLID' 1
check "Hca3 joined its solicited-node group" \
    wait_lines "$WORK/Hca3.err" 30 "joined ff02::1:ff00:3: MLID" 1
check "Hca7 joined its link-local's solicited-node group" \
    wait_lines "$WORK/Hca7.err" 30 "joined $(solnode "$LL7"): MLID" 1

# The members as the SA has them (the SM_Key lists every member's port GID).
diag Hca1 saquery -m --smkey 1 > "$WORK/members.txt" 2>&1
# member_state MGID GID: the ScopeState of GID's membership of MGID, or nothing.
member_state() {
    awk -v m="$1" -v g="$2" '
        /MGID\./ { n = split($0, f, "."); mgid = f[n] }
        /PortGid\./ { n = split($0, f, "."); pg = f[n] }
        /ScopeState\./ { n = split($0, f, "."); if (mgid == m && pg == g) print f[n] }' \
        "$WORK/members.txt" | head -n 1
}
for ca in Hca3 Hca7; do
    guid=$(port_guid "$ca")
    gid=$(port_gid "$guid")
    check_eq "$ca is a full member of all-nodes ff12:601b:ffff::1" "0x21" \
        "$(member_state ff12:601b:ffff::1 "$gid")"
    sn=$(solnode_mgid "$(linklocal "$guid")")
    check_eq "$ca is a full member of its solicited-node group $sn" "0x21" "$(member_state "$sn" "$gid")"
done

check_eq "ping -6 Hca3 -> Hca7 link-local %ib0: 20/20" 20 "$(received 20 "$NS3" "$LL7%ib0" -6)"
check_eq "ping -6 Hca7 -> Hca3 link-local %ib0: 20/20" 20 "$(received 20 "$NS7" "$LL3%ib0" -6)"
check_eq "ping -6 Hca3 -> Hca7 global: 20/20" 20 "$(received 20 "$NS3" fd00:77::7 -6)"
# Both families at once: IPv4 and IPv6 pings interleaved.
received 20 "$NS7" 10.77.0.3 > "$WORK/v4.count" &
v4=$!
check_eq "ping -6 Hca7 -> Hca3 global: 20/20 (with IPv4 beside it)" 20 \
    "$(received 20 "$NS7" fd00:77::3 -6)"
wait "$v4"
check_eq "ping Hca7 -> Hca3 IPv4 at the same time: 20/20" 20 "$(cat "$WORK/v4.count")"

head -c 4M /dev/urandom > "$WORK/blob"
in_ns "$NS7" timeout 180 socat -u "TCP6-LISTEN:7006,reuseaddr" "OPEN:$WORK/recv.bin,creat,trunc" &
srv=$!
wait_until 10 in_ns "$NS7" sh -c "ss -ltn | grep -q ':7006 '"
in_ns "$NS3" timeout 180 socat -u "OPEN:$WORK/blob" "TCP6:[fd00:77::7]:7006"
wait "$srv"
check_eq "4 MiB over TCP/IPv6 arrive intact" "$(sha256sum < "$WORK/blob")" \
    "$(sha256sum < "$WORK/recv.bin" 2> /dev/null)"

# The capture as tshark decodes it (USER0 copy: tshark 4.0 cannot open link type 247).
cp "$WORK/cap.pcap" "$WORK/user0.pcap"
printf '\223' | dd of="$WORK/user0.pcap" bs=1 seek=20 conv=notrunc status=none
UAT='uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'
NOTCP=(-o tcp.desegment_tcp_streams:FALSE -o tcp.analyze_sequence_numbers:FALSE)
frames=$(tshark -r "$WORK/user0.pcap" -o "$UAT" 2> /dev/null | wc -l)
tshark -r "$WORK/user0.pcap" -o "$UAT" -Y "icmpv6.type == 135 || icmpv6.type == 136" \
    -T fields -e icmpv6.type -e icmpv6.checksum.status -e icmpv6.opt.type -e icmpv6.opt.length \
    -e icmpv6.opt.linkaddr -e ipv6.src 2> /dev/null > "$WORK/nd.txt"
ns=$(awk '$1 == 135' "$WORK/nd.txt" | wc -l)
na=$(awk '$1 == 136' "$WORK/nd.txt" | wc -l)
check "tshark: neighbor solicitations decoded ($ns)" test "$ns" -ge 1
check "tshark: neighbor advertisements decoded ($na)" test "$na" -ge 1
check_eq "tshark: every NS/NA checksum good" 0 "$(awk '$2 != 1' "$WORK/nd.txt" | wc -l)"
check "tshark: an NS with a source link-layer option of length 3" \
    sh -c "awk '\$1 == 135 && \$3 == 1 && \$4 == 3' '$WORK/nd.txt' | grep -q ."
check "tshark: an NA with a target link-layer option of length 3" \
    sh -c "awk '\$1 == 136 && \$3 == 2 && \$4 == 3' '$WORK/nd.txt' | grep -q ."
# The option's 22 bytes: 2 zero bytes, flags 0, the QPN (3 bytes), the port GID.
gid_hex() { python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).packed.hex())' "$(port_gid "$1")"; }
g3hex=$(gid_hex "$G3")
check "tshark: Hca3's option holds 0000, flags 0, a QPN and its GID" \
    sh -c "awk '\$6 == \"$LL3\" { gsub(\":\", \"\", \$5); print \$5 }' '$WORK/nd.txt' | grep -qE '^000000[0-9a-f]{6}$g3hex\$'"
check_eq "tshark: no IPv6 frame malformed (of $frames frames)" 0 \
    "$(tshark -r "$WORK/user0.pcap" -o "$UAT" "${NOTCP[@]}" \
        -Y "_ws.malformed && ipv6 && frame.number < $frames" 2> /dev/null | wc -l)"

# The SM restarts elsewhere (Hca8) and reassigns every LID (-r): the hosts
# rejoin the broadcast group, then their IPv6 groups, by themselves.
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
fl_start_opensm Hca8 -r
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
check "Hca3 joined all-nodes again" wait_lines "$WORK/Hca3.err" 40 'joined ff02::1: MLID' 2
check "ping -6 works again after the SM restart" \
    wait_until 40 in_ns "$NS3" ping -6 -c 1 -W 1 "$LL7%ib0"
check "ping -6 to the global address too" wait_until 20 in_ns "$NS3" ping -6 -c 1 -W 1 fd00:77::7

stop_pid "$H3_PID"
H3_PID=
check_eq "pz-iphost exits 0 on SIGTERM" 0 "$STOP_RC"
check "its IPv6 counters were printed" grep -q "ipv6: rx" "$WORK/Hca3.err"

fl_finish
