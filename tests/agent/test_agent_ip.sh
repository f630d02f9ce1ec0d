#!/bin/bash
# test_agent_ip.sh - the IP plane of portzerod on every switch of a fat tree
# (pzfabric, every switch served by its own portzerod over board/sim), real
# OpenSM (-R ftree --connect_roots) as SM and SA, and one emulated IP host
# (pz-iphost, a CA bridged to TUN in a network namespace of the test's own):
#   - every switch joins the IPoIB broadcast group: `pz-cli show ip` says up,
#     saquery -m lists each switch's port-0 GID as a full member;
#   - ping from the host to every switch: 20/20;
#   - 16 MiB through each switch's TCP echo port come back byte-identical;
#   - the same to a spine with 10% loss on the host's cable;
#   - switch to switch: every agent pings every other switch (pz-cli ping);
#   - faults: a spine link flaps, a portzerod restarts, OpenSM restarts
#     elsewhere with new LIDs: ping comes back by itself each time;
#   - without --connect_roots: spine-to-spine pings fail and are reported
#     unreachable within their timeout, leaf-to-spine still answers.
# Usage: test_agent_ip.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS=-vvv
ai_init agentip 10.79.0 "$@"
pzt_require opensm saquery ping socat sha256sum ip
pzt_require_preload

received() { # received COUNT ADDRESS: host pings; prints the received count
    in_ns ping -c "$1" -i 0.05 -W 2 "$2" 2> /dev/null | awk '/packets transmitted/ { print $4 }'
}
# echo_back FILE ADDRESS: FILE through ADDRESS's TCP echo port, into $WORK/back.bin.
# After its input ends socat waits up to 120 s for the rest of the echo: on the
# 10% lossy link lwIP's retransmission timer backs off 3, 6, 12 s... when losses
# come in a row, and a ThreadSanitizer build on a loaded machine is slower still
# (30 s once cut a 256K echo short).
echo_back() {
    in_ns timeout "${ECHO_TIMEOUT:-240}" socat -t 120 - "TCP:$2:7" < "$1" > "$WORK/back.bin"
}

ai_start_all || exit 1

check "Spine1: show ip names the group" bash -c \
    "'$PZCLI' -s '$WORK/Spine1/ctl' show ip | grep -q 'Broadcast MLID *0xc0.. (Q_Key 0x00000b1b'"
check_eq "Spine1: show ip reports the IP MTU 2044" 2044 \
    "$(cli Spine1 show ip | awk '/^MTU/ { print $2 }')"

# Each switch's port 0 as a member of the group, as OpenSM programmed it:
# port 0 is in the switch's MulticastForwardingTable entry of the group's
# MLID (ibroute -M).  saquery -m (a GetTable) lists full members too, but
# only the first MAD's records arrive here: umad2sim does no RMPP (and
# saquery ignores --gid for -m), so it is checked on those it shows.
mft_port0() { # mft_port0 LID MLID: prints x when port 0 is in MLID's MFT entry
    diag Hca2 ibroute -M "$1" 2> /dev/null | python3 -c '
import sys
lines = sys.stdin.read().splitlines()
hdr = next((l for l in lines if "Ports:" in l), "")
pos = hdr.find(" 0 ") + 1
row = next((l for l in lines if l.lower().startswith(sys.argv[1].lower())), "")
print(row[pos] if pos > 0 and len(row) > pos else "-")' "$2"
}
mlid=$(cli Spine1 show ip | awk '/^Broadcast MLID/ { print $3 }')
for s in "${SWITCHES[@]}"; do
    lid=$(cli "$s" show system | awk '/^LID/ { print $2 }')
    check_eq "ibroute -M: $s (LID $lid) has port 0 in MLID $mlid" x "$(mft_port0 "$lid" "$mlid")"
done
diag Hca2 saquery -m --smkey 1 > "$WORK/members.txt" 2>&1
gid_text() { python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$1"; }
listed=0
for s in "${SWITCHES[@]}"; do
    gid=$(gid_text "$(cli "$s" show system | awk '/^Port 0 GUID/ { print $4 }')")
    # the broadcast group's record only (with ip6 = on the port is in IPv6 groups too)
    state=$(awk -v g="$gid" '/MGID\./ { n = split($0, f, "."); m = f[n] }
        /PortGid\./ { n = split($0, f, "."); pg = f[n] }
        /ScopeState\./ { n = split($0, f, "."); if (pg == g && m == "ff12:401b:ffff::ffff:ffff") print f[n] }' \
        "$WORK/members.txt")
    [ -z "$state" ] && continue
    listed=$((listed + 1))
    check_eq "saquery -m: $s ($gid) is a full member" "0x21" "$state"
done
check "saquery -m lists switches' port 0 ($listed)" test "$listed" -ge 2

# The CLI's InfiniBand view against infiniband-diags read right after.
# Leaf1: ports 1-2 go to the spines, 3-4 to Hca1/Hca2, 5-8 are not cabled.
pi_field() { sed -n "s/^$1:\.*//p"; } # pi_field FIELD < smpquery output
leaf1=$(cli Leaf1 show system | awk '/^LID/ { print $2 }')
cli Leaf1 show interfaces ib > "$WORK/ifaces.txt"
for port in 1 3 5; do
    diag Hca2 smpquery portinfo "$leaf1" "$port" > "$WORK/pi.$port" 2>&1
    check_eq "show interfaces ib: Leaf1 port $port state as smpquery" \
        "$(pi_field LinkState < "$WORK/pi.$port")" "$(awk -v p="$port" '$1 == p { print $2 }' "$WORK/ifaces.txt")"
    check_eq "show interfaces ib: Leaf1 port $port phys state as smpquery" \
        "$(pi_field PhysLinkState < "$WORK/pi.$port")" "$(awk -v p="$port" '$1 == p { print $3 }' "$WORK/ifaces.txt")"
done
for port in 1 3; do
    check_eq "show interfaces ib: Leaf1 port $port width as smpquery" \
        "$(pi_field LinkWidthActive < "$WORK/pi.$port")" "$(awk -v p="$port" '$1 == p { print $4 }' "$WORK/ifaces.txt")"
done
hca2_lid=$(diag Hca2 ibaddr 2> /dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "start") print $(i + 1) }')
hca2_lid=$((${hca2_lid:-0}))
peer4() { test "$(cli Leaf1 show interfaces ib 4 | awk '$1 == 4 { print $7 }')" = "$hca2_lid"; }
check "show interfaces ib: Leaf1 port 4's peer LID is Hca2's ($hca2_lid)" wait_until 10 peer4
xmit_cli=$(cli Leaf1 show interfaces ib 1 counters | awk '$1 == "PortXmitData" { print $2 }')
xmit_pq=$(diag Hca2 perfquery -x "$leaf1" 1 2> /dev/null | pi_field PortXmitData)
check "show interfaces ib 1 counters: PortXmitData $xmit_cli, perfquery -x right after $xmit_pq" \
    test -n "$xmit_cli" -a -n "$xmit_pq" -a "${xmit_pq:-0}" -ge "${xmit_cli:-1}" -a \
    "$((${xmit_pq:-0} - ${xmit_cli:-0}))" -le 1000000
for cmd in "show interfaces ib" "show interfaces ib 1 counters" "show congestion" "show lft" \
    "show version" "show system"; do
    check "$cmd json: valid JSON" bash -c "'$PZCLI' -s '$WORK/Leaf1/ctl' $cmd json | python3 -m json.tool > /dev/null"
done
check "show lft: Leaf1 routes its own LID $leaf1 to port 0" \
    bash -c "'$PZCLI' -s '$WORK/Leaf1/ctl' show lft $leaf1 | grep -q '^$leaf1 *0\$'"

# The emulated host on Hca3 (below Leaf2).
ai_start_host 10.79.0.100/24

for s in "${SWITCHES[@]}"; do
    check_eq "host -> $s (${ADDR[$s]}): ping 20/20" 20 "$(received 20 "${ADDR[$s]}")"
done

head -c 16M /dev/urandom > "$WORK/blob"
SUM=$(sha256sum < "$WORK/blob")
for s in "${SWITCHES[@]}"; do
    echo_back "$WORK/blob" "${ADDR[$s]}"
    check_eq "16 MiB through $s's TCP echo come back intact" "$SUM" "$(sha256sum < "$WORK/back.bin")"
done

# 10% loss on the host's own cable (every packet to and from it crosses it,
# both ways).  LOSSY_SIZE (default 256K; `make test-long` runs 16M):
# Debian's lwIP recovers from a loss by a retransmission timeout more often
# than not (no SACK, 500 ms slow timer), ~20 KB/s at this loss rate; the
# check is that nothing is corrupted or lost for good.
lost_before=$(status_value lost)
check "link-drop 10% on Hca3's cable" bash -c "'$PZCTL' --sockname '$SOCK' link-drop Hca3 1 10 > /dev/null"
head -c "${LOSSY_SIZE:-256K}" /dev/urandom > "$WORK/blob-lossy"
echo_back "$WORK/blob-lossy" "${ADDR[Spine2]}"
check_eq "${LOSSY_SIZE:-256K} through Spine2's echo over a 10% lossy link come back intact ($(stat -c %s "$WORK/back.bin") bytes)" \
    "$(sha256sum < "$WORK/blob-lossy")" "$(sha256sum < "$WORK/back.bin")"
ctl link-drop Hca3 1 0 > /dev/null
check "the cable lost packets" test "$(($(status_value lost) - lost_before))" -gt 10

# Switch to switch: every agent pings every other switch.
pairs_ok() { # pairs_ok: prints the pairs that do not answer (none: empty)
    local a b
    for a in "${SWITCHES[@]}"; do
        for b in "${SWITCHES[@]}"; do
            [ "$a" = "$b" ] && continue
            cli "$a" ping "${ADDR[$b]}" count 2 interval 100 timeout 1000 > /dev/null 2>&1 ||
                echo "$a->$b"
        done
    done
}
bad=$(pairs_ok)
check_eq "switch to switch: all 30 pairs answer (--connect_roots)" "" "$bad"
out=$(cli Leaf1 ping "${ADDR[Spine2]}" count 3 interval 100)
check "pz-cli ping prints iputils' summary" grep -q "3 packets transmitted, 3 received, 0% packet loss" <<< "$out"
# iputils' two summary lines: the run's time (two 100 ms intervals and the last
# reply) and min/avg/max/mdev, the mean deviation no larger than max - min.
ms=$(sed -n 's/.* packet loss, time \([0-9]*\)ms$/\1/p' <<< "$out")
check "... time ${ms:-?}ms: about the two intervals" awk -v t="${ms:-0}" 'BEGIN { exit !(t >= 190 && t <= 2000) }'
rtt=$(sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\) ms$|\1 \2 \3 \4|p' <<< "$out")
check "... rtt min/avg/max/mdev ($rtt): min <= avg <= max, mdev <= max - min" \
    awk -v r="$rtt" 'BEGIN { n = split(r, v, " "); exit !(n == 4 && v[1] <= v[2] && v[2] <= v[3] && v[4] <= v[3] - v[1] + 0.0005) }'
check_eq "pz-cli ping of a silent address exits 1" 1 \
    "$(cli Leaf1 ping 10.79.0.200 count 1 timeout 300 > "$WORK/silent.txt" 2>&1; echo $?)"
check "... and says unreachable" grep -q "unreachable" "$WORK/silent.txt"

# Faults.  A spine link flaps: the SM reroutes, pings come back.
ctl link-down Leaf2 1 > /dev/null
sleep 2
ctl link-up Leaf2 1 > /dev/null
check "after a link flap: host -> Spine1 answers again" wait_until 40 in_ns ping -c 1 -W 1 "${ADDR[Spine1]}"
check "after a link flap: Leaf2 -> Spine1 answers again" wait_until 40 \
    cli Leaf2 ping "${ADDR[Spine1]}" count 1 timeout 1000

# portzerod restarts: the switch rejoins and answers.
stop_pid "${AGENT[Leaf3]}"
AGENT[Leaf3]=
check "pzfabric saw Leaf3's agent go" wait_file "$WORK/fabric.err" 10 'switch Leaf3 lost its agent'
start_agent Leaf3
check "Leaf3: restarted portzerod ready" wait_lines "$WORK/Leaf3/out" 20 '^ready$' 2
check "after a portzerod restart: host -> Leaf3 answers" wait_until 60 in_ns ping -c 1 -W 1 "${ADDR[Leaf3]}"

# OpenSM restarts on Hca8 and reassigns every LID (-r).
lids() { local s; for s in "${SWITCHES[@]}"; do cli "$s" show system | awk '/^LID/ { printf "%s ", $2 }'; done; }
old_lids=$(lids)
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
fl_start_opensm Hca8 -r
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
lids_changed() { test "$old_lids" != "$(lids)"; }
check "the switches' LIDs changed (were: $old_lids)" wait_until 20 lids_changed
for s in "${SWITCHES[@]}"; do
    check "after the SM restart: host -> $s answers" wait_until 60 in_ns ping -c 1 -W 1 "${ADDR[$s]}"
done
check "after the SM restart: Spine1 -> Spine2 answers" wait_until 30 \
    cli Spine1 ping "${ADDR[Spine2]}" count 1 timeout 1000

# Without --connect_roots the spines have no route to each other.
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.2"
rm -rf "$WORK/sm"
pzt_start_opensm "$WORK/sm" "$SOCK" Hca1 -R ftree
OSM_PID=$PZT_OSM_PID
fl_wait_up 60 || echo "third OpenSM never reached SUBNET UP"
check "no connect_roots: Leaf1 -> Spine1 still answers" wait_until 60 \
    cli Leaf1 ping "${ADDR[Spine1]}" count 1 timeout 1000
start=$SECONDS
check_eq "no connect_roots: Spine1 -> Spine2 fails (exit 1)" 1 \
    "$(cli Spine1 ping "${ADDR[Spine2]}" count 3 interval 100 timeout 1000 > "$WORK/roots.txt" 2>&1; echo $?)"
check "... reported unreachable" grep -q "10.79.0.2 unreachable" "$WORK/roots.txt"
# Not hung (3 pings 100 ms apart, 1 s timeout: ~1.2 s): a hang guard, not the design's bound.
check "... ended, not hung ($((SECONDS - start)) s, at most 15)" test $((SECONDS - start)) -le 15
check_eq "no connect_roots: Spine2 -> Spine1 fails too" 1 \
    "$(cli Spine2 ping "${ADDR[Spine1]}" count 2 interval 100 timeout 1000 > /dev/null 2>&1; echo $?)"

ai_stop_agents
fl_finish
