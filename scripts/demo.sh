#!/bin/bash
# demo.sh - portzero at work on an emulated fabric.
#
# Starts pzfabric on a small two-level fat tree (2 spines, 4 leaves, 8 hosts)
# in which every switch runs portzero's SMA, PMA and congestion monitor, and
# spine-1 and leaf-1 are taken over by external portzerod processes; runs
# OpenSM (-R ftree --connect_roots) until SUBNET UP; then shows what the
# diags see; then makes host-1-1 an endpoint hot-spot (three contributors,
# one victim) and shows leaf-1's portzerod finding it and pz-dftree, the
# dFtree manager, moving the contributors to the slow lane so that the
# victim recovers (its throughput before and after); then two
# emulated IP hosts (pz-iphost) ping and stream TCP over IPoIB through the
# fabric.  Everything it starts is stopped
# by PID on exit, and it works in a temporary directory.
set -euo pipefail

BIN=${1:-build/bin}
BIN=$(cd "$BIN" && pwd)
# Every tool attaches the documented way: pz-attach (attach/README.md).
ATTACH="$BIN/pz-attach"
WORK=$(mktemp -d)
SOCK="pzdemo$$"
PIDS=()

# Stop what was started, newest first (OpenSM before the fabric it talks
# to); whatever ignores SIGTERM for 5 s gets SIGKILL.
# (Debian's libumad2sim can abort in its exit handler after SIGTERM; the
# shell's "Aborted" job notices say nothing about the demo: stderr is closed.)
cleanup() {
    local i pid t
    exec 2> /dev/null
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        pid=${PIDS[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for t in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# wait_for FILE SECONDS REGEX
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        grep -qE "$3" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "demo: timed out waiting for '$3' in $1" >&2
    return 1
}

# diag TOOL ARGS...: run an infiniband-diags tool from host-1-2.
diag() {
    local dir
    dir=$(mktemp -d -p "$WORK")
    "$ATTACH" -s "$SOCK" -C "$dir" host-1-2 -- "$@"
}

cd "$WORK"
say "Topology: gen-fattree 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8"
"$BIN/gen-fattree" 2 --spines 2 --leaves 4 --hosts-per-leaf 2 --radix 8 > fabric.net
sed -n '2p' fabric.net

say "pzfabric: every switch and HCA answered by portzero's SMA/PMA; spine-1 and leaf-1 by external portzerods"
"$BIN/pzfabric" --sockname "$SOCK" --agent spine-1 --agent leaf-1 --monitor-interval 500 -v \
    fabric.net > fabric.out 2> fabric.err &
PIDS+=($!)
wait_for fabric.out 10 '^ready$'
# The switches' SNMP agent (SNMPv3 authPriv user) and SSH CLI (an admin key).
printf '%s\n' 'createUser nms SHA-256 "demo-auth-pass" AES "demo-priv-pass"' 'rouser nms priv' \
    'sysLocation demo rack' > snmp.conf
ssh-keygen -q -t ed25519 -N '' -f admin_key 2> /dev/null && cp admin_key.pub admin_keys
# start_agent SWITCH NAME ADDRESS ADDRESS6: an external portzerod for SWITCH with
# an IPoIB address (and IPv6: a link-local and ADDRESS6), a control socket
# (pz-cli), SNMP and SSH, logs in NAME.out/.err
start_agent() {
    mkdir "$2"
    "$ATTACH" -s "$SOCK" -C "$2" "$1" -- "$BIN/portzerod" -o board=sim -o monitor_interval_ms=500 \
        -o "ip_address=$3/24" -o "ctl_socket=$WORK/$2/ctl" -o "state_dir=$WORK/$2/state" \
        -o "snmp_config=$WORK/snmp.conf" -o "ssh_authorized_keys=$WORK/admin_keys" \
        -o ip6=on -o "ip6_address=$4/64" -vvv > "$2.out" 2> "$2.err" &
    PIDS+=($!)
    wait_for "$2.out" 10 '^ready$'
}
start_agent spine-1 agent 10.60.0.1 fd00:60::1
start_agent leaf-1 leafagent 10.60.0.2 fd00:60::2
grep -v 'SMP class' agent.err | sed 's/^portzerod [0-9.]* //'

say "OpenSM -R ftree --connect_roots -Q (on host-1-1): QoS maps SL 0 to VL 0, SL 1 to VL 1 (dFtree's two lanes)"
mkdir -p sm/cache sm/tmp sm/dump
printf '%s\n' 'qos_max_vls 2' 'qos_high_limit 0' 'qos_vlarb_high 0:0' 'qos_vlarb_low 0:64,1:64' \
    'qos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0' > qos.conf
OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp "$ATTACH" -s "$SOCK" -C sm host-1-1 -- \
    opensm -d2 -R ftree --connect_roots -Q -F "$WORK/qos.conf" --dump_files_dir "$WORK/sm/dump" \
    -f "$WORK/sm/osm.log" > sm/opensm.out 2>&1 &
PIDS+=($!)
wait_for sm/osm.log 60 'SUBNET UP'
grep -E 'ftree tables configured|SUBNET UP' sm/osm.log | sed 's/^.*\] //' | sort -u

say "ibnetdiscover"
diag ibnetdiscover | grep -vE '^#|^$|^vendid|^devid|^sysimgguid|^switchguid|^caguid'

SPINE1=$(diag ibnetdiscover | sed -n 's/^Switch.*"spine-1".* lid \([0-9]*\) .*/\1/p')
SPINE2=$(diag ibnetdiscover | sed -n 's/^Switch.*"spine-2".* lid \([0-9]*\) .*/\1/p')

say "LFT of root switch spine-1 (LID $SPINE1), programmed by OpenSM through portzerod"
diag ibroute "$SPINE1"

say "Root-to-root route spine-1 -> spine-2 (exists because of --connect_roots)"
diag ibtracert "$SPINE1" "$SPINE2"

say "perfquery -x on spine-1 port 1: 64-bit counters, the last MAD bytes included (pz-attach)"
diag perfquery -x "$SPINE1" 1 | grep -E 'PortXmitWait|VL15Dropped|QP1Dropped'

say "SMPs portzerod answered for spine-1 so far: $(grep -c answered agent.err || true)"
diag smpquery nodedesc "$SPINE1"
diag smpquery switchinfo "$SPINE1" | grep -E 'LinearFdbTop|LinearFdbCap|StateChange'

LEAF1=$(diag ibnetdiscover | sed -n 's/^Switch.*"leaf-1".* lid \([0-9]*\) .*/\1/p')
CTL=("$BIN/pzfabric-ctl" --sockname "$SOCK")
say "dFtree: pz-dftree, the manager (on host-3-2), subscribes at the SA for the switches' hot-spot notices"
mkdir dftree
"$ATTACH" -s "$SOCK" -C dftree host-3-2 -- "$BIN/pz-dftree" > dftree.out 2> dftree.err &
PIDS+=($!)
wait_for dftree.out 20 '^ready$'
sed 's/^pz-dftree: /   /' dftree.err
say "dFtree: host-1-1 sinks only 25 Gb/s (a PCIe-limited HCA); three contributors send to it,"
echo "   and host-2-1 also sends to host-1-2 (the victim, sharing leaf-2's queue with a contributor)"
"${CTL[@]}" ca-rate host-1-1 25
FLOWS=()
for src in host-2-1 host-3-1 host-4-1; do
    FLOWS+=("$("${CTL[@]}" flow-add "$src" host-1-1 40)")
done
VICTIM=$("${CTL[@]}" flow-add host-2-1 host-1-2 40)
FLOWS+=("$VICTIM")
# victim: the victim's achieved rate (Gb/s) now.
victim() { "${CTL[@]}" flow-list | awk -v id="$VICTIM" '$1 == id { print $6 }'; }
echo "   flows (id src dst SL demand achieved state moved path), all on SL 0 (the fast lane):"
"${CTL[@]}" flow-list | sed 's/^/   /'
BEFORE=$(victim)
echo "   victim before: $BEFORE Gb/s of 40 (held behind host-2-1's contributor flow)"
for _ in $(seq 100); do
    [ "$("${CTL[@]}" flow-list | awk -v id="${FLOWS[0]}" '$1 == id { print $4 }')" = 1 ] && break
    sleep 0.1
done
say "leaf-1's portzerod told OpenSM, OpenSM forwarded the notice to pz-dftree, pz-dftree repathed"
grep -E 'notice 0x0001|onset|hot-spot|CONTRIBUTOR|repath' dftree.err | sed 's/^pz-dftree: /   /'
grep 'lane:' fabric.err | sed 's/^pzfabric: /   /' || true
echo "   flows now: the contributors on SL 1 (VL 1), the victim alone on VL 0:"
"${CTL[@]}" flow-list | sed 's/^/   /'
echo "   victim before: $BEFORE Gb/s, after: $(victim) Gb/s (the contributors keep their share)"

say "leaf-1's portzerod (LID $LEAF1): its congestion monitor, read as vendor PMA attribute 0xFF30"
diag "$BIN/pz-hotspot" -t 3000 "$LEAF1"
diag "$BIN/pz-hotspot" -t 3000 "$LEAF1" 1 | head -4
grep -E 'discover|hot-spot' leafagent.err | sed 's/^portzerod [0-9.]* //' | head -8

say "perfquery on leaf-1 port 1 (facing host-1-1), twice 1 s apart: XmitWait grows ~750000 ticks/s"
diag perfquery "$LEAF1" 1 | grep -E 'PortXmitData|PortXmitWait'
sleep 1
diag perfquery "$LEAF1" 1 | grep -E 'PortXmitData|PortXmitWait'

say "The flows stop: the hot-spot clears"
for id in "${FLOWS[@]}"; do "${CTL[@]}" flow-del "$id"; done
sleep 1.5
diag "$BIN/pz-hotspot" -t 3000 "$LEAF1"
grep -E 'hot-spot|normal' leafagent.err | sed 's/^portzerod [0-9.]* //' | tail -2

say "What OpenSM received: leaf-1's vendor notices (onset, clear), and what it forwarded"
grep -E 'Received Vendor Notice|Reporting Vendor Notice' sm/osm.log | sed 's/^.*\] //' || true
echo "   pz-dftree on the clear (the fast-lane notices):"
wait_for dftree.err 5 'fast-lane notice' || true
grep -E 'notice 0x0002|clear|fast-lane' dftree.err | sed 's/^pz-dftree: /   /'

say "IPoIB: two emulated hosts (pz-iphost: a CA bridged to a TUN device in a network namespace)"
if [ "$(id -u)" = 0 ] && [ -e /dev/net/tun ]; then
    "$BIN/pz-iphost" --sockname "$SOCK" --ca host-1-1 --address 10.60.0.11/24 \
        --netns "pzdemo$$-a" > iphost-a.out 2> iphost-a.err &
    PIDS+=($!)
    "$BIN/pz-iphost" --sockname "$SOCK" --ca host-4-2 --address 10.60.0.42/24 \
        --address6 fd00:60::42/64 --netns "pzdemo$$-b" > iphost-b.out 2> iphost-b.err &
    PIDS+=($!)
    wait_for iphost-a.out 30 '^ready$'
    wait_for iphost-b.out 30 '^ready$'
    cat iphost-a.err
    echo "   the broadcast group's members, as OpenSM's SA lists them:"
    diag saquery -m --smkey 1 | grep -E 'MGID|PortGid|ScopeState' | sed 's/^[[:space:]]*/   /'
    echo "   ping 10.60.0.42 (host-4-2) from host-1-1's namespace, through leaf-1, a spine, leaf-4:"
    ip netns exec "pzdemo$$-a" ping -c 3 -i 0.2 10.60.0.42 | sed 's/^/   /'
    head -c 8M /dev/urandom > blob
    ip netns exec "pzdemo$$-b" timeout 30 socat -u TCP-LISTEN:7009,reuseaddr OPEN:recv,creat &
    sleep 0.5
    ip netns exec "pzdemo$$-a" timeout 30 socat -u OPEN:blob TCP:10.60.0.42:7009
    wait $! || true
    echo "   8 MiB over TCP: sent $(sha256sum < blob | cut -c1-16), received $(sha256sum < recv | cut -c1-16)"

    say "The switches' own IP plane: portzerod on spine-1 (10.60.0.1) and leaf-1 (10.60.0.2), IPoIB + lwIP on port 0"
    echo "   pz-cli show ip on spine-1 (through its control socket):"
    "$BIN/pz-cli" -s "$WORK/agent/ctl" show ip | sed 's/^/   /'
    echo "   ping spine-1 from host-4-2's namespace:"
    ip netns exec "pzdemo$$-b" ping -c 3 -i 0.2 10.60.0.1 | sed 's/^/   /'
    echo "   switch to switch: leaf-1's agent pings spine-1 (a LID route between switches):"
    "$BIN/pz-cli" -s "$WORK/leafagent/ctl" ping 10.60.0.1 count 3 interval 200 | sed 's/^/   /'
    ip netns exec "pzdemo$$-b" timeout 30 socat -t 10 - TCP:10.60.0.1:7 < blob > echoed
    echo "   8 MiB through spine-1's TCP echo service: sent $(sha256sum < blob | cut -c1-16), back $(sha256sum < echoed | cut -c1-16)"
    echo "   switch to switch iperf: leaf-1's agent runs an iperf 2 client (TCP, 2 s) against spine-1's iperf server:"
    "$BIN/pz-cli" -s "$WORK/leafagent/ctl" -t 30 iperf -c 10.60.0.1 -t 2 | sed 's/^/   /'

    say "SNMP: snmpwalk of spine-1's IF-MIB names from host-4-2's namespace (SNMPv3 authPriv, SHA-256/AES)"
    V3=(-v3 -l authPriv -u nms -a SHA-256 -A demo-auth-pass -x AES -X demo-priv-pass -t 3 -r 2)
    ip netns exec "pzdemo$$-b" snmpget "${V3[@]}" -Oqv 10.60.0.1 .1.3.6.1.2.1.1.1.0 .1.3.6.1.2.1.1.6.0 |
        sed 's/^/   /'
    ip netns exec "pzdemo$$-b" snmpwalk "${V3[@]}" -On 10.60.0.1 .1.3.6.1.2.1.31.1.1.1.1 | sed 's/^/   /'
    echo "   ifOperStatus (1 up, 2 down) and ifHCOutOctets of spine-1's ports:"
    ip netns exec "pzdemo$$-b" snmpwalk "${V3[@]}" -Oqn 10.60.0.1 .1.3.6.1.2.1.2.2.1.8 | sed 's/^/   /'
    ip netns exec "pzdemo$$-b" snmpwalk "${V3[@]}" -Oqn 10.60.0.1 .1.3.6.1.2.1.31.1.1.1.10 |
        sed 's/^/   /'

    say "SSH: OpenSSH to spine-1's CLI (admin, ed25519 key): ssh admin@10.60.0.1 show system"
    SSHO=(-F /dev/null -o UserKnownHostsFile="$WORK/known_hosts" -o StrictHostKeyChecking=accept-new
        -o BatchMode=yes -o LogLevel=ERROR -i "$WORK/admin_key")
    ip netns exec "pzdemo$$-b" ssh "${SSHO[@]}" admin@10.60.0.1 show system | sed 's/^/   /'
    echo "   ssh admin@10.60.0.1 ping 10.60.0.2 count 2 (switch to switch, from the CLI):"
    ip netns exec "pzdemo$$-b" ssh "${SSHO[@]}" admin@10.60.0.1 ping 10.60.0.2 count 2 interval 200 |
        sed 's/^/   /'

    say "IPv6 on the same plane: spine-1 is fe80::<IID of its port-0 GUID> and fd00:60::1"
    echo "   ping -6 fd00:60::1 from host-4-2's namespace (Linux's IPv6; neighbour discovery by the IPoIB layers):"
    ip netns exec "pzdemo$$-b" ping -6 -c 3 -i 0.2 fd00:60::1 | sed 's/^/   /'
    echo "   ssh admin@fd00:60::1 show version:"
    ip netns exec "pzdemo$$-b" ssh "${SSHO[@]}" admin@fd00:60::1 show version | sed 's/^/   /'
    echo "   snmpget udp6:[fd00:60::1]:161 sysDescr.0 (SNMPv3 authPriv, the same USM user over IPv6):"
    ip netns exec "pzdemo$$-b" snmpget "${V3[@]}" -Oqv 'udp6:[fd00:60::1]:161' .1.3.6.1.2.1.1.1.0 |
        sed 's/^/   /'
else
    echo "   (needs root and /dev/net/tun for the network namespaces: skipped)"
fi

say "Route check: pz-routecheck from host-1-2 rebuilds every switch-to-switch route of the live LFTs"
echo "   (SA NodeRecords, LinkRecords, LFTRecords; channel dependency graph searched for a cycle):"
diag "$BIN/pz-routecheck" | sed 's/^/   /' || true
echo "   the same check run by leaf-1's portzerod through its own SA client (pz-cli route check):"
"$BIN/pz-cli" -s "$WORK/leafagent/ctl" -t 60 route check | head -6 | sed 's/^/   /' || true

say "Reachability: leaf-1's portzerod probes every switch's port-0 echo service (found in SA ServiceRecords)"
echo "   spine-1 runs portzerod (reachable); the other switches are pzfabric's own (no agent):"
"$BIN/pz-cli" -s "$WORK/leafagent/ctl" -t 30 reachability check | sed 's/^/   /' || true

say "Stopping everything"
