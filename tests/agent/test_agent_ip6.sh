#!/bin/bash
# test_agent_ip6.sh - IPv6 on the IP plane of portzerod (ip6 = on) on every
# switch of a fat tree (pzfabric, six portzerod over board/sim), real OpenSM
# as SM and SA, and Linux's own IPv6 stack in a network namespace behind an
# emulated host (pz-iphost --ipv6), issue 26:
#   - each switch's port 0 is a full member of all-nodes ff12:601b:ffff::1
#     and of its solicited-node group, which OpenSM created for its join;
#   - ping -6 from the host to every switch's link-local (fe80::<IID of its
#     port-0 GUID>%ib0) and configured address, 20/20, IPv4 ping beside it;
#   - 4 MiB through a switch's TCP echo port over IPv6 come back intact;
#   - ssh admin@<global> and admin@<link-local>%ib0 show version (tcp6 22);
#   - `show ip` lists the addresses (preferred), the groups with their MGIDs
#     and MLIDs, the host as an IPv6 neighbour; `show ip json` the same;
#   - SLAAC from a real router: radvd in the namespace advertises
#     fd00:81::/64 (the namespace has fd00:81::100 on ib0, as a router has);
#     every switch forms fd00:81::<IID>; Leaf2's `show ip` lists it
#     preferred with the lifetimes left from the RA's, ping -6 20/20, ssh;
#     a second prefix with preferred lifetime 0 gives a deprecated address;
#   - `show iperf` names IPv6 peers ([fd00:80::100]:port), not 0.0.0.0;
#   - `traffic matrix` (TCP and UDP) with IPv6 peers, mixed with IPv4;
#   - switch to switch: `pz-cli ping` to a global and to a link-local%ib0,
#     and a TCP iperf (`pz-cli iperf -c <v6>`); the host's `iperf -V -c` to a
#     switch, TCP and UDP;
#   - a portzerod restart (new QPN): the switch is reachable over IPv6 again
#     (its unsolicited NA replaces the host's stale neighbour entry);
#   - OpenSM restarts elsewhere with new LIDs: every switch rejoins its IPv6
#     groups and answers ping -6 again.
# Usage: test_agent_ip6.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init agentip6 10.80.0 "$@"
pzt_require opensm saquery ping socat sha256sum ip python3 ssh ssh-keygen iperf radvd
pzt_require_preload

declare -A ADDR6 LL6 GID
for i in "${!SWITCHES[@]}"; do
    s=${SWITCHES[$i]}
    ADDR6[$s]="fd00:80::$((i + 1))"
    AI_AGENT_EXTRA[$s]="-o ip6=on -o ip6_address=${ADDR6[$s]}/64"
done

# Leaf2 serves SSH to the admin key.
ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"
AI_AGENT_EXTRA[Leaf2]+=" -o state_dir=$WORK/state -o ssh_authorized_keys=$WORK/admin_keys"
SSHOPT=(-F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" -o StrictHostKeyChecking=accept-new
    -o BatchMode=yes -o ConnectTimeout=10 -i "$WORK/admin_key")

received() { # received COUNT ADDRESS [PING OPTION...]: host pings; prints the received count
    local count=$1 addr=$2
    shift 2
    in_ns ping "$@" -c "$count" -i 0.05 -W 2 "$addr" 2> /dev/null | awk '/packets transmitted/ { print $4 }'
}
linklocal() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | (int(sys.argv[1], 16) ^ (2 << 56))))' "$1"
}
port_gid() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$1"
}
solnode_mgid() {
    python3 -c 'import ipaddress, sys
a = int(ipaddress.IPv6Address(sys.argv[1]))
print(ipaddress.IPv6Address((0xff12601bffff << 80) | (0x1ff << 24) | (a & 0xffffff)))' "$1"
}

cli_pings() { # cli_pings SWITCH ADDRESS: SWITCH's `ping ADDRESS` (3 at 200 ms) got 3 replies
    cli "$1" ping "$2" count 3 interval 200 | grep -q '3 packets transmitted, 3 received'
}

ai_start_all || exit 1
ai_start_host 10.80.0.100/24 Hca3 --address6 fd00:80::100/64

for s in "${SWITCHES[@]}"; do
    guid=$(cli "$s" show system | awk '/^Port 0 GUID/ { print $4 }')
    LL6[$s]=$(linklocal "$guid")
    GID[$s]=$(port_gid "$guid")
    check "$s: logs its IPv6 addresses" grep -q "ip: IPv6 ${LL6[$s]}/64, ${ADDR6[$s]}/64" "${AI_DIR[$s]}/err"
done

# Every switch answers on its link-local (after lwIP's DAD, a second after the join).
for s in "${SWITCHES[@]}"; do
    check "host -> $s link-local answers" wait_until 30 in_ns ping -6 -c 1 -W 1 "${LL6[$s]}%ib0"
done
for s in "${SWITCHES[@]}"; do
    check_eq "ping -6 $s ${LL6[$s]}%ib0: 20/20" 20 "$(received 20 "${LL6[$s]}%ib0" -6)"
    check_eq "ping -6 $s ${ADDR6[$s]}: 20/20" 20 "$(received 20 "${ADDR6[$s]}" -6)"
done
received 20 "${ADDR[Spine1]}" > "$WORK/v4.count" &
v4=$!
check_eq "ping -6 Spine1 with an IPv4 ping beside it: 20/20" 20 "$(received 20 "${ADDR6[Spine1]}" -6)"
wait "$v4"
check_eq "ping Spine1 over IPv4 at the same time: 20/20" 20 "$(cat "$WORK/v4.count")"

# The groups as the SA has them (the SM_Key lists every member's port GID).
diag Hca2 saquery -m --smkey 1 > "$WORK/members.txt" 2>&1
member_state() { # member_state MGID GID: ScopeState of GID in MGID, or nothing
    awk -v m="$1" -v g="$2" '
        /MGID\./ { n = split($0, f, "."); mgid = f[n] }
        /PortGid\./ { n = split($0, f, "."); pg = f[n] }
        /ScopeState\./ { n = split($0, f, "."); if (mgid == m && pg == g) print f[n] }' \
        "$WORK/members.txt" | head -n 1
}
listed=0
for s in "${SWITCHES[@]}"; do
    state=$(member_state ff12:601b:ffff::1 "${GID[$s]}")
    [ -z "$state" ] && continue # saquery -m: only the first MAD arrives (no RMPP in umad2sim)
    listed=$((listed + 1))
    check_eq "saquery -m: $s is a full member of all-nodes" "0x21" "$state"
    sn=$(solnode_mgid "${LL6[$s]}")
    state=$(member_state "$sn" "${GID[$s]}")
    [ -z "$state" ] || check_eq "saquery -m: $s is a full member of $sn" "0x21" "$state"
done
check "saquery -m lists switches in all-nodes ($listed)" test "$listed" -ge 1

head -c 4M /dev/urandom > "$WORK/blob"
in_ns timeout 240 socat -t 60 - "TCP6:[${ADDR6[Leaf2]}]:7" < "$WORK/blob" > "$WORK/back.bin"
check_eq "4 MiB through Leaf2's TCP echo over IPv6 intact" "$(sha256sum < "$WORK/blob")" \
    "$(sha256sum < "$WORK/back.bin")"

check "ssh admin@${ADDR6[Leaf2]} show version names portzero" \
    bash -c "ip netns exec '$NS' ssh ${SSHOPT[*]} admin@${ADDR6[Leaf2]} show version | grep -qi portzero"
check "ssh admin@${LL6[Leaf2]}%ib0 show version names portzero" \
    bash -c "ip netns exec '$NS' ssh ${SSHOPT[*]} 'admin@${LL6[Leaf2]}%ib0' show version | grep -qi portzero"
check "ssh over IPv4 still works" \
    bash -c "ip netns exec '$NS' ssh ${SSHOPT[*]} admin@${ADDR[Leaf2]} show version | grep -qi portzero"

# ---- SLAAC from a router (radvd) ---------------------------------------------
# radvd advertises fd00:81::/64 every 3-4 s (valid 7000 s, preferred 5000 s;
# not a default router) and fd00:82::/64 (valid 600 s, preferred 0: its
# address is deprecated at once, RFC 4862 section 5.5.4); the namespace holds fd00:81::100 on ib0, as a
# router does, and pz-iphost answers neighbour solicitations for it.
slaac_of() { # slaac_of LINK-LOCAL: fd00:81::<its interface identifier>
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfd000081 << 96) | (int(ipaddress.IPv6Address(sys.argv[1])) & ((1 << 64) - 1))))' "$1"
}
slaac_preferred() { # slaac_preferred SWITCH: `show ip` lists its fd00:81:: address preferred
    cli "$1" show ip | grep -qF "$(slaac_of "${LL6[$1]}")/64 (preferred, SLAAC, "
}
printf '%s\n' 'interface ib0 {' '    AdvSendAdvert on;' '    MinRtrAdvInterval 3;' \
    '    MaxRtrAdvInterval 4;' '    AdvDefaultLifetime 0;' '    AdvSourceLLAddress off;' \
    '    prefix fd00:81::/64 {' '        AdvOnLink on;' '        AdvAutonomous on;' \
    '        AdvValidLifetime 7000;' '        AdvPreferredLifetime 5000;' '    };' \
    '    prefix fd00:82::/64 {' '        AdvOnLink on;' '        AdvAutonomous on;' \
    '        AdvValidLifetime 600;' '        AdvPreferredLifetime 0;' '    };' '};' \
    > "$WORK/radvd.conf"
chmod 600 "$WORK/radvd.conf"
in_ns ip -6 addr add fd00:81::100/64 dev ib0 nodad
in_ns sysctl -q -w net.ipv6.conf.all.forwarding=1
# ip netns exec execs radvd: $! is radvd itself (in_ns would add a subshell)
ip netns exec "$NS" radvd -n -m stderr -C "$WORK/radvd.conf" -p "$WORK/radvd.pid" \
    > "$WORK/radvd.out" 2>&1 < /dev/null &
AI_PIDS+=($!)
SLAAC6=$(slaac_of "${LL6[Leaf2]}")
check "Leaf2 forms $SLAAC6 from radvd's RA and ends its DAD" wait_until 30 slaac_preferred Leaf2
cli Leaf2 show ip > "$WORK/showip_slaac.txt"
life=$(sed -nE "s|^ +$SLAAC6/64 \(preferred, SLAAC, valid ([0-9]+) s, preferred ([0-9]+) s\)$|\1 \2|p" \
    "$WORK/showip_slaac.txt")
valid=${life% *} pref=${life#* }
check "show ip: $SLAAC6 valid lifetime left from the RA's 7000 s (${valid:-none})" \
    test "${valid:-0}" -le 7000 -a "${valid:-0}" -gt 5000
check "show ip: its preferred lifetime left from the RA's 5000 s (${pref:-none})" \
    test "${pref:-0}" -le 5000 -a "${pref:-0}" -gt 3000
cli Leaf2 show ip json > "$WORK/showip_slaac.json"
check_eq "show ip json: the SLAAC address's state, origin and lifetimes" "preferred slaac True True" \
    "$(python3 -c 'import json, sys
a = [a for a in json.load(open(sys.argv[1]))["ipv6"]["addresses"] if a["address"] == sys.argv[2]][0]
print(a["state"], a["origin"], 5000 < a["valid_lifetime"] <= 7000, 3000 < a["preferred_lifetime"] <= 5000)' \
        "$WORK/showip_slaac.json" "$SLAAC6")"
check "host -> Leaf2's SLAAC address answers" wait_until 20 in_ns ping -6 -c 1 -W 1 "$SLAAC6"
check_eq "ping -6 Leaf2 $SLAAC6 (from fd00:81::100): 20/20" 20 "$(received 20 "$SLAAC6" -6)"
check "ssh admin@$SLAAC6 show version names portzero" \
    bash -c "ip netns exec '$NS' ssh ${SSHOPT[*]} admin@$SLAAC6 show version | grep -qi portzero"
for s in "${SWITCHES[@]}"; do
    check "$s formed its fd00:81:: address" wait_until 10 slaac_preferred "$s"
done
DEPR6=$(slaac_of "${LL6[Leaf2]}" | sed 's/^fd00:81:/fd00:82:/')
slaac_deprecated() { cli Leaf2 show ip | grep -qE "^ +$DEPR6/64 \(deprecated, SLAAC, valid [0-9]+ s, preferred 0 s\)$"; }
check "show ip: Leaf2's $DEPR6 (preferred lifetime 0) is deprecated" wait_until 10 slaac_deprecated
# ---- end of SLAAC -------------------------------------------------------------

# The CLI's view.
cli Spine1 show ip > "$WORK/showip.txt"
check "show ip: the link-local, preferred" grep -q "^IPv6 address  *${LL6[Spine1]}/64 (preferred)" "$WORK/showip.txt"
check "show ip: the global, preferred" grep -q "^  *${ADDR6[Spine1]}/64 (preferred)" "$WORK/showip.txt"
check "show ip: all-nodes joined with its MGID and an MLID" \
    grep -qE "^ff02::1 +ff12:601b:ffff::1 +0xc[0-9a-f]{3} +full +joined" "$WORK/showip.txt"
check "show ip: its solicited-node group joined" \
    grep -qE "^ff02::1:ff20:0 +ff12:601b:ffff::1:ff20:0 +0xc[0-9a-f]{3} +full +joined" "$WORK/showip.txt"
check "show ip: the host as a resolved IPv6 neighbour" grep -qE "^fe80::[0-9a-f:]+ +[0-9]+ .* resolved" "$WORK/showip.txt"
cli Spine1 show ip json > "$WORK/showip.json"
check_eq "show ip json: the IPv6 addresses" \
    "${LL6[Spine1]} ${ADDR6[Spine1]} $(slaac_of "${LL6[Spine1]}") $(slaac_of "${LL6[Spine1]}" | sed 's/^fd00:81:/fd00:82:/')" \
    "$(python3 -c 'import json, sys; print(" ".join(a["address"] for a in json.load(open(sys.argv[1]))["ipv6"]["addresses"]))' "$WORK/showip.json")"
check "pz-cli ping Spine1 -> Leaf4's global: 3 received" cli_pings Spine1 "${ADDR6[Leaf4]}"
check "pz-cli ping Leaf1 -> Spine2's link-local%ib0: 3 received" cli_pings Leaf1 "${LL6[Spine2]}%ib0"
check "pz-cli ping to an IPv6 address nobody has fails (exit 1)" \
    fails cli Leaf1 ping fd00:80::99 count 1 timeout 500

# iperf over IPv6: switch to switch (TCP), host to switch (TCP and UDP).
cli Leaf1 iperf -c "${ADDR6[Spine1]}" -t 2 > "$WORK/s2s6.txt" 2>&1
check_eq "pz-cli iperf -c ${ADDR6[Spine1]} (Leaf1, TCP 2 s) exits 0" 0 "$?"
check "the switch-to-switch stream connected over IPv6" \
    grep -qE "local fd00:80::3 port [0-9]+ connected with ${ADDR6[Spine1]} port 5001" "$WORK/s2s6.txt"
check "the switch-to-switch stream moved data" \
    grep -qE "^\[  1\] 0\.0000-[0-9.]+ sec +[0-9.]+ (KBytes|MBytes)" "$WORK/s2s6.txt"
in_ns iperf -V -c "${ADDR6[Spine2]}" -t 2 -y C > "$WORK/h2s6.csv" 2> "$WORK/h2s6.err"
bytes=$(awk -F, 'NF > 8 { print $8 }' "$WORK/h2s6.csv" | tail -n 1)
check "host iperf -V -c ${ADDR6[Spine2]} (TCP 2 s) moved data ($bytes bytes)" test "${bytes:-0}" -gt 100000
in_ns iperf -V -u -c "${ADDR6[Leaf4]}" -b 1M -t 2 > "$WORK/h2s6u.txt" 2>&1
check "host iperf -V -u -c ${ADDR6[Leaf4]}: the switch's server report came back" \
    grep -q "Server Report" "$WORK/h2s6u.txt"

# ---- show iperf names IPv6 peers ---------------------------------------------
iperf_peer_bytes() { # iperf_peer_bytes SWITCH PROTO PEER: bytes of PEER's newest test in `show iperf`
    cli "$1" show iperf | awk -v proto="$2" -v peer="[$3]:" '
        $1 == proto && index($2, peer) == 1 { print $3; exit }'
}
b=$(iperf_peer_bytes Spine2 TCP fd00:80::100)
check "show iperf (Spine2): the host's TCP test from [fd00:80::100] (${b:-none} bytes)" \
    test "${b:-0}" -gt 100000
b=$(iperf_peer_bytes Leaf4 UDP fd00:80::100)
check "show iperf (Leaf4): the host's UDP test from [fd00:80::100] (${b:-none} bytes)" test "${b:-0}" -gt 0
b=$(iperf_peer_bytes Spine1 TCP "${ADDR6[Leaf1]}")
check "show iperf (Spine1): Leaf1's TCP test from [${ADDR6[Leaf1]}] (${b:-none} bytes)" test "${b:-0}" -gt 0
check "show iperf: no 0.0.0.0 peer" bash -c "! '$PZCLI' -s '${AI_DIR[Spine2]}/ctl' show iperf | grep -q '0\.0\.0\.0'"
check_eq "show iperf json (Spine2): the peer is the host's IPv6 address" fd00:80::100 \
    "$(cli Spine2 show iperf json | python3 -c 'import json, sys; print(json.load(sys.stdin)["recent_tests"][0]["peer"])')"
# ---- end of show iperf -------------------------------------------------------

# ---- traffic matrix with IPv6 peers ------------------------------------------
cli Leaf1 traffic matrix tcp 2 "${ADDR6[Spine1]}" "${ADDR6[Spine2]}" "${ADDR[Leaf4]}" > "$WORK/m6tcp.txt" 2>&1
check_eq "traffic matrix tcp (Leaf1) to two IPv6 peers and one IPv4 peer exits 0" 0 "$?"
for p in "${ADDR6[Spine1]}" "${ADDR6[Spine2]}" "${ADDR[Leaf4]}"; do
    b=$(awk -v p="$p" '$1 == p && $NF == "done" { print $2 }' "$WORK/m6tcp.txt")
    check "traffic matrix tcp: $p received data (${b:-none} bytes)" test "${b:-0}" -gt 0
done
check "traffic matrix tcp: 3 of 3 peers completed" grep -q '^3 of 3 peers completed' "$WORK/m6tcp.txt"
cli Leaf1 traffic matrix 1M 2 "${ADDR6[Leaf2]}" "${LL6[Leaf3]}%ib0" > "$WORK/m6udp.txt" 2>&1
check_eq "traffic matrix 1M 2 (Leaf1) to a global and a link-local IPv6 peer exits 0" 0 "$?"
for p in "${ADDR6[Leaf2]}" "${LL6[Leaf3]}"; do
    # shellcheck disable=SC2016 # an awk program
    check "traffic matrix: $p sent its server report (received bytes)" \
        awk -v p="$p" '$1 == p && $3 ~ /^[0-9]+$/ && $3 > 0 { ok = 1 } END { exit !ok }' "$WORK/m6udp.txt"
done
check "traffic matrix: 2 of 2 peers reported" grep -q '^2 of 2 peers reported' "$WORK/m6udp.txt"
check_eq "traffic matrix to :: is refused (usage, exit 2)" 2 \
    "$(cli Leaf1 traffic matrix tcp 2 :: > "$WORK/m6bad.txt" 2>&1; echo $?)"
check "... saying it is not an address" grep -q '% not an address: ::' "$WORK/m6bad.txt"
# ---- end of traffic matrix ---------------------------------------------------

# portzerod restarts: a new QPN; its unsolicited NA updates the host at once.
stop_pid "${AGENT[Leaf3]}"
AGENT[Leaf3]=
check "pzfabric saw Leaf3's agent go" wait_file "$WORK/fabric.err" 10 'switch Leaf3 lost its agent'
start_agent Leaf3
check "Leaf3: restarted portzerod ready" wait_lines "${AI_DIR[Leaf3]}/out" 20 '^ready$' 2
check "after a portzerod restart: host -> Leaf3 answers over IPv6" \
    wait_until 60 in_ns ping -6 -c 1 -W 1 "${ADDR6[Leaf3]}"

# OpenSM restarts on Hca8 and reassigns every LID (-r).
fl_stop_opensm
mv "$WORK/sm" "$WORK/sm.1"
fl_start_opensm Hca8 -r
fl_wait_up 60 || echo "second OpenSM never reached SUBNET UP"
for s in "${SWITCHES[@]}"; do
    check "after the SM restart: host -> $s answers over IPv6" \
        wait_until 60 in_ns ping -6 -c 1 -W 1 "${LL6[$s]}%ib0"
done
check "after the SM restart: Spine1's global address answers" \
    wait_until 30 in_ns ping -6 -c 1 -W 1 "${ADDR6[Spine1]}"

ai_stop_agents
fl_finish
