#!/bin/bash
# test_agent_snmp6.sh - portzerod's SNMP agent on UDP 161 over IPv6 (ip6 =
# on, issue 26): Leaf2 of a fat tree (pzfabric, real OpenSM) reached from
# Linux's own IPv6 stack in a network namespace behind an emulated host
# (pz-iphost --address6) by net-snmp's tools:
#   - snmpget -v3 authPriv sysDescr.0 at udp6:[<global>]:161 and at the
#     link-local udp6:[fe80::<IID>%ib0]:161; IPv4 beside them;
#   - net-snmp's community mapping sees the IPv6 source, as in snmpd: a
#     v2c walk of ifName with an `rocommunity6` community (the global
#     prefix) over udp6, another (`fe80::/10`) over the link-local; an IPv4
#     `rocommunity` (the IPv4 subnet) is refused over udp6 (a timeout;
#     snmpInBadCommunityNames counts exactly that request) and answers over
#     IPv4;
#   - 20 IPv6 and 20 IPv4 GETs at the same time: all answered;
#   - the refused request's authenticationFailure reaches snmptrapd
#     listening on udp6 in the namespace (`trap2sink udp6:[<host>]:162`),
#     from the switch's global address, with the switch's sysObjectID as
#     snmpTrapEnterprise.0;
#   - restarted with a sink at the host's link-local address too (no zone),
#     its coldStart reaches both sinks;
#   - the agent logs that it serves IPv6; portzerod exits cleanly.
# Usage: test_agent_snmp6.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
SWITCHES=(Leaf2) # the one portzerod; the other switches are pzfabric's own
ai_init agentsnmp6 10.85.0 "$@"
pzt_require opensm ping ip python3 snmpget snmpwalk snmptrapd
pzt_require_preload

SW=Leaf2
SWADDR=${ADDR[$SW]}
SWADDR6=fd00:85::1
HOSTADDR=10.85.0.100
HOSTADDR6=fd00:85::100
TRAPD_PID=''
AI_PID_VARS=(TRAPD_PID) # stopped on exit before the host and the agent (ai_cleanup)
RO=("${PZT_SNMP_RO[@]}" -t 3 -r 2)
IFX=.1.3.6.1.2.1.31.1.1.1
SYSDESCR=.1.3.6.1.2.1.1.1.0
BADCOMM=.1.3.6.1.2.1.11.4.0 # snmpInBadCommunityNames
AUTHF='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.5(~|$)'
ENTERPRISE=.1.3.6.1.6.3.1.1.4.3.0

mkdir -p "$WORK/state" "$WORK/client/cert_indexes" "$WORK/trapd/cert_indexes"
export SNMPCONFPATH=$WORK/client SNMP_PERSISTENT_DIR=$WORK/client MIBS='' MIBDIRS=$WORK/client
{
    pzt_snmp_users
    echo 'rocommunity pzv4 10.85.0.0/24'
    echo 'rocommunity6 pzv6 fd00:85::/64'
    echo 'rocommunity6 pzlink fe80::/10'
    echo "trap2sink udp6:[$HOSTADDR6]:162 pztrap6"
    echo 'authtrapenable 1'
} > "$WORK/snmp.conf"
AI_AGENT_EXTRA[$SW]="-o ip6=on -o ip6_address=$SWADDR6/64 -o state_dir=$WORK/state -o snmp_config=$WORK/snmp.conf"

linklocal() {
    python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address((0xfe80 << 112) | (int(sys.argv[1], 16) ^ (2 << 56))))' "$1"
}
# get OPTION... TARGET OID...: values only (errors too, on the same stream).
get() { in_ns snmpget -Oqv "$@" 2>&1; }
v2get() { get -v2c -c "$1" -t 2 -r 0 "${@:2}"; } # v2get COMMUNITY TARGET OID...
badcomm() { get "${RO[@]}" "$SWADDR" "$BADCOMM"; }

ai_start_all || exit 1
check "$SW: the agent serves IPv4 and IPv6" grep -q "snmp: agent on UDP 161 (IPv4 and IPv6;" "${AI_DIR[$SW]}/err"
ai_start_host "$HOSTADDR/24" Hca3 --address6 "$HOSTADDR6/64"
echo "disableAuthorization yes" > "$WORK/trapd.conf"
ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd" snmptrapd -f -C -c "$WORK/trapd.conf" -m '' \
    -On -Lf "$WORK/trapd.log" -F '%b|%P|%V~%v\n' "udp6:162" < /dev/null &
TRAPD_PID=$!

guid=$(cli "$SW" show system | awk '/^Port 0 GUID/ { print $4 }')
LL=$(linklocal "$guid")
V6="udp6:[$SWADDR6]:161"
LL6="udp6:[$LL%ib0]:161"
check "host -> $SW's global answers ping -6 (DAD done)" wait_until 30 in_ns ping -6 -c 1 -W 1 "$SWADDR6"
check "host -> $SW's link-local answers ping -6" wait_until 30 in_ns ping -6 -c 1 -W 1 "$LL%ib0"

check "v3 authPriv at $V6: sysDescr names portzero" grep -qi portzero <<< "$(get "${RO[@]}" "$V6" "$SYSDESCR")"
check "v3 authPriv at $LL6: sysDescr names portzero" grep -qi portzero <<< "$(get "${RO[@]}" "$LL6" "$SYSDESCR")"
check "v3 authPriv over IPv4 beside it: sysDescr names portzero" \
    grep -qi portzero <<< "$(get "${RO[@]}" "$SWADDR" "$SYSDESCR")"
SYSOID=$(get "${RO[@]}" -On "$V6" .1.3.6.1.2.1.1.2.0)
check_eq "v3 over udp6: sysObjectID is portzero's" .1.3.6.1.4.1.99999.2.1 "$SYSOID"

in_ns snmpwalk -v2c -c pzv6 -t 3 -r 2 -On "$V6" "$IFX.1" > "$WORK/walk6.txt" 2>&1
check_eq "v2c rocommunity6 walk of ifName over udp6: IB1/1..IB1/8" \
    "$(printf '"IB1/%s" ' 1 2 3 4 5 6 7 8)" \
    "$(sed -n "s/^$IFX\.1\.[1-8] = STRING: //p" "$WORK/walk6.txt" | tr '\n' ' ')"
check_eq "v2c rocommunity6 walk over udp6: 9 rows (the IPoIB row last)" 9 \
    "$(grep -c "^$IFX\.1\.[0-9]* = STRING: " "$WORK/walk6.txt")"
in_ns snmpwalk -v2c -c pzlink -t 3 -r 2 -On "$LL6" "$IFX.1" > "$WORK/walkll.txt" 2>&1
check_eq "v2c rocommunity6 fe80::/10 walk over the link-local: 9 rows" 9 \
    "$(grep -c "^$IFX\.1\.[0-9]* = STRING: " "$WORK/walkll.txt")"
check "v2c rocommunity (IPv4 subnet) over IPv4: sysDescr" grep -qi portzero <<< "$(v2get pzv4 "$SWADDR" "$SYSDESCR")"

b0=$(badcomm)
out=$(v2get pzv4 "$V6" "$SYSDESCR")
check "v2c rocommunity (IPv4 only) over udp6: no answer (timeout)" grep -q '^Timeout' <<< "$out"
b1=$(badcomm)
check_eq "snmpInBadCommunityNames counted that request ($b0 -> $b1)" $((b0 + 1)) "$b1"
check "its authenticationFailure reaches snmptrapd on udp6 from $SWADDR6" \
    wait_until 10 bash -c "grep -E '$AUTHF' '$WORK/trapd.log' | grep -qF 'UDP/IPv6: [$SWADDR6]:161'"
check_eq "authenticationFailure over udp6: snmpTrapEnterprise.0 = sysObjectID" "$SYSOID" \
    "$(grep -E "$AUTHF" "$WORK/trapd.log" | grep -F 'community pztrap6' | tail -n 1 | tr '~' '\n' |
        sed -n "s/^${ENTERPRISE//./\\.} = OID: //p")"

# Both families at the same time.
for i in $(seq 20); do get -v2c -c pzv6 -t 3 -r 2 "$V6" "$IFX.1.$((i % 8 + 1))"; done > "$WORK/par6.txt" &
par6=$!
for i in $(seq 20); do get -v2c -c pzv4 -t 3 -r 2 "$SWADDR" "$IFX.1.$((i % 8 + 1))"; done > "$WORK/par4.txt"
wait "$par6"
check_eq "20 GETs over udp6 beside 20 over IPv4: all answered" 20 "$(grep -c '^"IB1/' "$WORK/par6.txt")"
check_eq "20 GETs over IPv4 beside them: all answered" 20 "$(grep -c '^"IB1/' "$WORK/par4.txt")"

# The IPoIB row (ifIndex 9) counts IPv6 group packets as multicast (IF-MIB
# ifHCInMulticastPkts, ifXEntry 8): 3 echo requests to all-nodes reach the switch
# through the all-nodes group, whether or not lwIP answers a multicast echo.
mc() { get -v2c -c pzv6 -t 3 -r 2 "$V6" "$IFX.8.9"; }
m0=$(mc)
in_ns ping -6 -c 3 -i 0.2 -W 1 "ff02::1%ib0" > /dev/null 2>&1 || true
mc_rose() { test "$(mc)" -ge $((m0 + 3)); }
check "ifHCInMulticastPkts of the IPoIB row rose by the 3 pings to ff02::1 at least (from $m0 to $(wait_until 10 mc_rose; mc))" \
    mc_rose
check "ifHCOutMulticastPkts of the IPoIB row counts the switch's IPv6 group packets (MLD, ND)" \
    test "$(get -v2c -c pzv6 -t 3 -r 2 "$V6" "$IFX.11.9")" -gt 0

# A sink at the host's link-local address (no zone: the plane's only
# interface) and the global one: portzerod restarts with it, and its coldStart
# reaches both (sent once IPoIB is up, held while IPv6 has no usable source).
HOSTLL=$(in_ns ip -6 addr show dev ib0 scope link | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }')
check "the host has a link-local address ($HOSTLL)" test -n "$HOSTLL"
echo "trap2sink udp6:[$HOSTLL]:162 pztrapll" >> "$WORK/snmp.conf"
COLD='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.1(~|$)'
cold6() { grep -E "$COLD" "$WORK/trapd.log" | grep -F 'community pztrap6' | grep -cF "UDP/IPv6: [$SWADDR6]:161"; }
c0=$(cold6)
stop_pid "${AGENT[$SW]}"
AGENT[$SW]=
start_agent "$SW"
check "$SW: restarted portzerod ready" wait_lines "${AI_DIR[$SW]}/out" 20 '^ready$' 2
check "coldStart at the global sink, from $SWADDR6 (coldStarts before: $c0)" \
    wait_until 60 bash -c "$(declare -f cold6); COLD='$COLD' WORK=$WORK SWADDR6=$SWADDR6; [ \$(cold6) -gt $c0 ]"
check "coldStart at the link-local sink $HOSTLL, from $LL" \
    wait_until 30 bash -c "grep -E '$COLD' '$WORK/trapd.log' | grep -F 'community pztrapll' | grep -qF 'UDP/IPv6: [$LL'"
check_eq "the link-local sink's coldStart: snmpTrapEnterprise.0 = sysObjectID" "$SYSOID" \
    "$(grep -E "$COLD" "$WORK/trapd.log" | grep -F 'community pztrapll' | tail -n 1 | tr '~' '\n' |
        sed -n "s/^${ENTERPRISE//./\\.} = OID: //p")"

ai_stop_agents
fl_finish
