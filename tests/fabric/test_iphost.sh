#!/bin/bash
# test_iphost.sh - IPoIB between two emulated IP hosts (pz-iphost) across
# pzfabric, with real OpenSM as SM and SA and real Linux tools in network
# namespaces of the test's own:
#   - both hosts join the IPoIB broadcast group: saquery -m lists their port
#     GIDs as full members of ff12:401b:ffff::ffff:ffff;
#   - ping both ways, 20 echoes each, no loss;
#   - a 16 MiB TCP stream through socat arrives byte-identical (sha256);
#   - tshark decodes the capture as IPoIB: ARP with hardware type 32 and
#     20-byte addresses, ICMP echo request/reply;
#   - with 10% loss on a link of the path (pzfabric-ctl link-drop), TCP still
#     delivers 4 MiB intact;
#   - OpenSM restarts on another node and reassigns the LIDs: the hosts
#     rejoin by themselves and ping works again;
#   - SIGTERM: exit status 0 and the namespaces are gone.
# Usage: test_iphost.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST
set -u
# shellcheck source=fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
fl_init iphost "$1" "$2"
PZIPHOST=$(abspath "$3")
pzt_require opensm saquery ping socat sha256sum tshark ip
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS3="pzt-$$-h3"
NS7="pzt-$$-h7"
H3_PID=
H7_PID=

# Stop the hosts (and remove namespaces they may leave behind if killed).
trap 'fl_cleanup_ns $? "$NS3 $NS7" "$H3_PID" "$H7_PID"' EXIT

# start_host CA ADDRESS NS: pz-iphost in the background; its PID in HOST_PID.
start_host() {
    "$PZIPHOST" --sockname "$SOCK" --ca "$1" --address "$2" --netns "$3" -v \
        > "$WORK/$1.out" 2> "$WORK/$1.err" < /dev/null &
    HOST_PID=$!
}

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
quiet() { "$@" > /dev/null; }

# received COUNT NS ADDRESS: ping COUNT times; prints the received count.
received() {
    in_ns "$2" ping -c "$1" -i 0.05 -W 2 "$3" 2> /dev/null |
        awk '/packets transmitted/ { print $4 }'
}

fl_start_fabric --pcap "$WORK/cap.pcap" "$NET" || exit 1
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }

start_host Hca3 10.77.0.3/24 "$NS3"
H3_PID=$HOST_PID
start_host Hca7 10.77.0.7/24 "$NS7"
H7_PID=$HOST_PID
check "Hca3 joins (ready)" wait_file "$WORK/Hca3.out" 30 '^ready$' "$H3_PID"
check "Hca7 joins (ready)" wait_file "$WORK/Hca7.out" 30 '^ready$' "$H7_PID"
check "Hca3 log names the group" grep -q "MLID 0xc0.. Q_Key 0x00000b1b MTU 2044" "$WORK/Hca3.err"

# The members as the SA has them: each host's port GID, JoinState full member (0x1).
# With the SM_Key (OpenSM's default, 1) the SA lists every member; without
# it, one record per group with the port GID hidden.
diag Hca1 saquery -m --smkey 1 > "$WORK/members.txt" 2>&1
# gid_text GUID: the port GID fe80::GUID as saquery prints it (RFC 5952 text).
gid_text() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$1"
}
for ca in Hca3 Hca7; do
    guid=$(diag "$ca" smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ { print $NF }')
    gid=$(gid_text "$guid")
    # ScopeState 0x21: link-local scope, JoinState full member.
    state=$(awk -v g="$gid" '
        /MGID\./ { n = split($0, f, "."); mgid = f[n] }
        /PortGid\./ { n = split($0, f, "."); pg = f[n] }
        /ScopeState\./ { n = split($0, f, "."); if (mgid == "ff12:401b:ffff::ffff:ffff" && pg == g) print f[n] }' \
        "$WORK/members.txt" | head -n 1)
    check_eq "$ca ($gid) is a full member of the broadcast group" "0x21" "$state"
done

check_eq "ping Hca3 -> Hca7: 20/20" 20 "$(received 20 "$NS3" 10.77.0.7)"
check_eq "ping Hca7 -> Hca3: 20/20" 20 "$(received 20 "$NS7" 10.77.0.3)"

# 16 MiB through TCP, compared by sha256.
head -c 16M /dev/urandom > "$WORK/blob"
stream() { # stream BYTES_FILE PORT: NS3 -> NS7, the received copy in $WORK/recv.bin
    rm -f "$WORK/recv.bin"
    in_ns "$NS7" timeout 180 socat -u "TCP-LISTEN:$2,reuseaddr" "OPEN:$WORK/recv.bin,creat,trunc" &
    local srv=$!
    wait_until 10 in_ns "$NS7" sh -c "ss -ltn | grep -q ':$2 '"
    in_ns "$NS3" timeout 180 socat -u "OPEN:$1" "TCP:10.77.0.7:$2"
    wait "$srv"
}
stream "$WORK/blob" 7007
check_eq "16 MiB over TCP arrive intact" "$(sha256sum < "$WORK/blob")" \
    "$(sha256sum < "$WORK/recv.bin" 2> /dev/null)"

# The capture as tshark decodes it (USER0 copy: tshark 4.0 cannot open link type 247).
cp "$WORK/cap.pcap" "$WORK/user0.pcap"
printf '\223' | dd of="$WORK/user0.pcap" bs=1 seek=20 conv=notrunc status=none
UAT='uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'
# The capture holds every packet once per link it crosses, so TCP analysis
# would take the copies (and a retransmission cut at other boundaries) for
# overlapping data: judge each frame alone.
NOTCP=(-o tcp.desegment_tcp_streams:FALSE -o tcp.analyze_sequence_numbers:FALSE)
tshark -r "$WORK/user0.pcap" -o "$UAT" -Y arp -V 2> /dev/null > "$WORK/arp.txt"
check "tshark: IPoIB ARP, hardware type InfiniBand (32)" grep -q "Hardware type: InfiniBand (32)" "$WORK/arp.txt"
check "tshark: IPoIB ARP, hardware size 20" grep -q "Hardware size: 20" "$WORK/arp.txt"
check "tshark: an ARP reply" grep -q "Opcode: reply (2)" "$WORK/arp.txt"
requests=$(tshark -r "$WORK/user0.pcap" -o "$UAT" -Y "icmp.type == 8" 2> /dev/null | wc -l)
replies=$(tshark -r "$WORK/user0.pcap" -o "$UAT" -Y "icmp.type == 0" 2> /dev/null | wc -l)
check "tshark: ICMP echo requests decoded ($requests)" test "$requests" -ge 40
check "tshark: ICMP echo replies decoded ($replies)" test "$replies" -ge 40
# The copy was taken while pzfabric writes: its last record may be torn.
# IPoIB frames (ARP, IPv4) are this test's; MADs are test_fabric_pcap's.
frames=$(tshark -r "$WORK/user0.pcap" -o "$UAT" 2> /dev/null | wc -l)
check_eq "tshark: no IPoIB frame malformed (of $frames frames)" 0 \
    "$(tshark -r "$WORK/user0.pcap" -o "$UAT" "${NOTCP[@]}" \
        -Y "_ws.malformed && (arp || ip) && frame.number < $frames" 2> /dev/null | wc -l)"
other=$(tshark -r "$WORK/user0.pcap" -o "$UAT" "${NOTCP[@]}" -Y "_ws.malformed && frame.number < $frames" \
    2> /dev/null | head -n 3)
[ -z "$other" ] || note "malformed non-IPoIB frames: $other"

# Losses: 10% of every traversal of Hca3's cable (a link in the path), both
# ways; TCP retransmits until the stream is whole.
head -c 4M /dev/urandom > "$WORK/blob4"
lost_before=$(status_value lost)
check "link-drop on Hca3's cable" quiet ctl link-drop Hca3 1 10
stream "$WORK/blob4" 7008
check "link-drop off" quiet ctl link-drop Hca3 1 0
lost=$(($(status_value lost) - lost_before))
check "the cable lost packets ($lost)" test "$lost" -gt 50
check_eq "4 MiB over TCP through a 10% lossy link arrive intact" "$(sha256sum < "$WORK/blob4")" \
    "$(sha256sum < "$WORK/recv.bin" 2> /dev/null)"
check "link-drop refuses a port without a cable" fails ctl link-drop Hca3 2 10
check "link-drop refuses 101%" fails ctl link-drop Hca3 1 101

# The SM restarts elsewhere (Hca8) and reassigns every LID (-r): the hosts
# see a new LID and a new SM and must rejoin on their own.
old_lid=$(diag Hca3 smpquery -D portinfo 0 1 | awk -F. '/^Lid/ { print $NF }')
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
fl_start_opensm Hca8 -r
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
new_lid=$(diag Hca3 smpquery -D portinfo 0 1 | awk -F. '/^Lid/ { print $NF }')
check "Hca3's LID changed ($old_lid -> $new_lid)" test "$old_lid" != "$new_lid"
check "ping works again after the SM restart" wait_until 40 in_ns "$NS3" ping -c 1 -W 1 10.77.0.7
check "Hca3 joined again" wait_lines "$WORK/Hca3.err" 30 'joined the broadcast group' 2

stop_pid "$H3_PID"
H3_PID=
check_eq "pz-iphost exits 0 on SIGTERM" 0 "$STOP_RC"
check "its namespace is gone" fails ip netns exec "$NS3" true

fl_finish
