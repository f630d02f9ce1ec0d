#!/bin/bash
# test_snmp_ip6.sh - the SNMP agent library (snmp/) over IPv6: snmp_testd
# (a 36-port in-memory switch) serves 127.0.0.1 and [::1] (--ipv6), and the
# real net-snmp tools reach it on udp6:[::1]:
#   - SNMPv3 authPriv over udp6 and over IPv4 (USM and VACM for both);
#   - net-snmp's community mapping sees the source's family, as in snmpd:
#     an `rocommunity6 ... ::1` community and a `com2sec6` one answer over
#     udp6 (a v2c walk of ifName: every port) and not over IPv4; an IPv4
#     `rocommunity ... 127.0.0.1` answers over IPv4 and not over udp6
#     (a timeout; snmpInBadCommunityNames rises by exactly the refused
#     requests); `rwcommunity6` writes ifAlias over udp6, `rocommunity6`
#     cannot;
#   - IPv4 and IPv6 requests at the same time are all answered;
#   - notifications to an IPv6 sink (`trap2sink udp6:[::1]:PORT`): snmptrapd
#     on udp6 gets coldStart and linkDown with the switch's sysObjectID
#     as snmpTrapEnterprise.0, from [::1] (also `trap2sink [::1]:PORT`, no
#     prefix, without an error line); an `informsink udp6:[...]`
#     inform is acknowledged (received once, not resent);
#   - what show snmp lists names the IPv6 sinks' addresses and ports;
#   - a sink address that is not numeric IPv6 is refused with a message.
# Usage: test_snmp_ip6.sh SNMP_TESTD
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=snmp_lib.sh
source "$(dirname "$0")/snmp_lib.sh"
TESTD=$(abspath "$1")
pzt_require_tools snmpget snmpwalk snmpset snmptrapd
if ! python3 -c 'import socket; s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2> /dev/null; then
    echo "SKIP: no IPv6 loopback"
    exit 77
fi

snmpt_init snmp6 15 state trapd/cert_indexes
TRAP_PORT=$((PORT + 1))
AGENT_PID=
TRAPD_PID=
SNMPT_PID_VARS=(AGENT_PID TRAPD_PID)
SNMPT_LOGS=("$WORK/agent.err" "$WORK/trapd.log")

V4=127.0.0.1:$PORT
V6="udp6:[::1]:$PORT"
RO=("${PZT_SNMP_RO[@]}" -t 2 -r 1)
IFX=.1.3.6.1.2.1.31.1.1.1
SYSDESCR=.1.3.6.1.2.1.1.1.0
BADCOMM=.1.3.6.1.2.1.11.4.0 # snmpInBadCommunityNames
TRAPS=.1.3.6.1.6.3.1.1.5
ENTERPRISE=.1.3.6.1.6.3.1.1.4.3.0

{
    pzt_snmp_users
    echo 'rocommunity pzv4only 127.0.0.1'
    echo 'rocommunity6 pzv6 ::1/128'
    echo 'rwcommunity6 pzrw6 ::1'
    echo 'com2sec6 sixsec ::1/128 pzcom6'
    echo 'group sixgroup v2c sixsec'
    echo 'view sixview included .1.3.6.1.2.1.1'
    echo 'access sixgroup "" v2c noauth exact sixview none none'
    echo "trap2sink udp6:[::1]:$TRAP_PORT pzv6trap"
    echo "informsink udp6:[::1]:$TRAP_PORT pzv6inform"
    echo "trap2sink [::1]:$TRAP_PORT pzbare" # no prefix: net-snmp's default domains, udp then udp6
    echo 'trap2sink udp6:not-an-address pzbad'
} > "$WORK/agent.conf"

# snmptrapd on udp6 only: one line per notification (its source, community, varbinds).
echo "disableAuthorization yes" > "$WORK/trapd.conf"
SNMP_PERSISTENT_DIR=$WORK/trapd snmptrapd -f -C -c "$WORK/trapd.conf" -m '' -M "$WORK/client" \
    -On -Lf "$WORK/trapd.log" -F '%b|%P|%V~%v\n' "udp6:[::1]:$TRAP_PORT" < /dev/null &
TRAPD_PID=$!
wait_file "$WORK/trapd.log" 5 '^' "$TRAPD_PID" || true
mkfifo "$WORK/ctl"
"$TESTD" --port "$PORT" --state "$WORK/state" --config "$WORK/agent.conf" --ports 36 --ipv6 \
    --ctl "$WORK/ctl" > "$WORK/agent.out" 2> "$WORK/agent.err" < /dev/null &
AGENT_PID=$!
check "snmp_testd serves 127.0.0.1 and [::1]" wait_lines "$WORK/agent.out" 10 '^ready$' 1

# get OPTION... TARGET OID...: values only (errors too, on the same stream).
get() { snmpget -Oqv "$@" 2>&1; }
v2get() { get -v2c -c "$1" -t 1 -r 0 "${@:2}"; } # v2get COMMUNITY TARGET OID...
badcomm() { get "${RO[@]}" "$V4" "$BADCOMM"; }

check "v3 authPriv over $V6: sysDescr names portzero" grep -qi portzero <<< "$(get "${RO[@]}" "$V6" "$SYSDESCR")"
check "v3 authPriv over $V4: sysDescr names portzero" grep -qi portzero <<< "$(get "${RO[@]}" "$V4" "$SYSDESCR")"
SYSOID=$(get "${RO[@]}" -On "$V6" .1.3.6.1.2.1.1.2.0)
check_eq "v3 over udp6: sysObjectID is portzero's" .1.3.6.1.4.1.99999.2.1 "$SYSOID"

# Communities by the source's family.
check "v2c rocommunity6 pzv6 over udp6: sysDescr" grep -qi portzero <<< "$(v2get pzv6 "$V6" "$SYSDESCR")"
snmpwalk -v2c -c pzv6 -t 2 -r 1 -On "$V6" "$IFX.1" > "$WORK/walk6.txt" 2>&1
check_eq "v2c walk of ifName over udp6: IB1/1..IB1/36 and the IPoIB row" 37 \
    "$(grep -c "^$IFX\.1\.[0-9]* = STRING: " "$WORK/walk6.txt")"
check_eq "v2c walk over udp6: ifName.36" '"IB1/36"' \
    "$(sed -n "s/^$IFX\.1\.36 = STRING: //p" "$WORK/walk6.txt")"
check "v2c com2sec6 community over udp6: sysDescr" grep -qi portzero <<< "$(v2get pzcom6 "$V6" "$SYSDESCR")"
check "v2c rocommunity pzv4only over IPv4: sysDescr" grep -qi portzero <<< "$(v2get pzv4only "$V4" "$SYSDESCR")"

b0=$(badcomm)
out=$(v2get pzv4only "$V6" "$SYSDESCR")
check "v2c rocommunity (IPv4 only) over udp6: no answer (timeout)" grep -q '^Timeout' <<< "$out"
b1=$(badcomm)
check_eq "snmpInBadCommunityNames counted that request ($b0 -> $b1)" $((b0 + 1)) "$b1"
out=$(v2get pzv6 "$V4" "$SYSDESCR")
check "v2c rocommunity6 over IPv4: no answer (timeout)" grep -q '^Timeout' <<< "$out"
out=$(v2get pzcom6 "$V4" "$SYSDESCR")
check "v2c com2sec6 community over IPv4: no answer (timeout)" grep -q '^Timeout' <<< "$out"
b2=$(badcomm)
check_eq "snmpInBadCommunityNames counted both ($b1 -> $b2)" $((b1 + 2)) "$b2"
out=$(v2get pzcom6 "$V6" "$IFX.1.1")
check_eq "com2sec6's view (system only): ifName.1 over udp6 is outside it" "No Such Object available on this agent at this OID" "$out"

# rwcommunity6 writes over udp6; rocommunity6 does not.
snmpset -v2c -c pzrw6 -t 2 -r 1 "$V6" "$IFX.18.5" s "rack6-port5" > "$WORK/set6.txt" 2>&1
check_eq "rwcommunity6 over udp6: ifAlias.5 set" '"rack6-port5"' "$(v2get pzv6 "$V6" "$IFX.18.5")"
check "rocommunity6 over udp6: ifAlias.5 set refused" \
    bash -c "snmpset -v2c -c pzv6 -t 2 -r 0 '$V6' '$IFX.18.5' s nope 2>&1 | grep -qiE 'notWritable|noAccess|noSuchName|authorization'"
check_eq "ifAlias.5 kept" '"rack6-port5"' "$(v2get pzv6 "$V6" "$IFX.18.5")"

# Both families at the same time.
for i in $(seq 20); do get -v2c -c pzv6 -t 2 -r 1 "$V6" "$IFX.1.$((i % 36 + 1))"; done > "$WORK/par6.txt" &
par6=$!
for i in $(seq 20); do get -v2c -c pzv4only -t 2 -r 1 "$V4" "$IFX.1.$((i % 36 + 1))"; done > "$WORK/par4.txt"
wait "$par6"
check_eq "20 IPv6 GETs beside 20 IPv4 GETs: all answered" 20 "$(grep -c '^"IB1/' "$WORK/par6.txt")"
check_eq "20 IPv4 GETs beside them: all answered" 20 "$(grep -c '^"IB1/' "$WORK/par4.txt")"

# Notifications to IPv6 sinks (snmptrapd's %b: "UDP/IPv6: [::1]:PORT").
cold() { grep -F "community $1" "$WORK/trapd.log" | grep -E "OID: ${TRAPS//./\\.}\.1(~|$)"; }
check "trap2sink udp6: coldStart from [::1]" wait_until 5 bash -c "$(declare -f cold); TRAPS=$TRAPS WORK=$WORK; cold pzv6trap | grep -qF 'UDP/IPv6: [::1]'"
check "trap2sink [::1]:PORT (no udp6: prefix): coldStart" wait_until 5 bash -c "$(declare -f cold); TRAPS=$TRAPS WORK=$WORK; cold pzbare | grep -qF 'UDP/IPv6: [::1]'"
check "... and no IPv4 refusal logged for it" bash -c "! grep -qF 'is not a numeric IPv4' '$WORK/agent.err'"
check_eq "coldStart over udp6: snmpTrapEnterprise.0 = sysObjectID" "$SYSOID" \
    "$(cold pzv6trap | tail -n 1 | tr '~' '\n' | sed -n "s/^${ENTERPRISE//./\\.} = OID: //p")"
echo "unplug 3" > "$WORK/ctl"
check "trap2sink udp6: linkDown of port 3" \
    wait_until 5 bash -c "grep -F 'community pzv6trap' '$WORK/trapd.log' | grep -E 'OID: ${TRAPS//./\\.}\\.3(~|\$)' | grep -qF '.1.3.6.1.2.1.2.2.1.1.3 = INTEGER: 3'"
check "informsink udp6: coldStart inform received" wait_until 5 bash -c "grep -F 'community pzv6inform' '$WORK/trapd.log' | grep -qE 'OID: ${TRAPS//./\\.}\\.1(~|\$)'"
sleep 3 # net-snmp's inform retry is 1 s: an unacknowledged one would arrive again
check_eq "informsink udp6: the coldStart inform acknowledged (received once)" 1 \
    "$(cold pzv6inform | wc -l)"

# What show snmp lists, and the refused sink.
echo conf > "$WORK/ctl"
wait_lines "$WORK/agent.out" 5 '^conf end$' 1 || true
check "show snmp: the IPv6 trap2sink with its address and port" grep -qF "conf trap2sink|::1|port $TRAP_PORT" "$WORK/agent.out"
check "show snmp: the IPv6 informsink" grep -qF "conf informsink|::1|port $TRAP_PORT" "$WORK/agent.out"
check "a non-numeric udp6 sink is refused with a message" \
    grep -qF "notification target 'not-an-address' is not a numeric IPv6" "$WORK/agent.err"

stop_pid "$AGENT_PID"
AGENT_PID=
check_eq "snmp_testd exits 0 on SIGTERM (no sanitizer report)" 0 "$STOP_RC"
