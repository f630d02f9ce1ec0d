#!/bin/bash
# test_snmp_traps.sh - the notifications of the SNMP agent library (snmp/)
# name the switch: snmp_testd (a 36-port in-memory switch on 127.0.0.1)
# sends to an SNMPv1 (trapsink), an SNMPv2c (trap2sink) and an SNMPv3
# authPriv (trapsess) sink of one real snmptrapd.
#   - coldStart, linkDown, linkUp and authenticationFailure: the SNMPv1
#     enterprise field and the SNMPv2c/v3 snmpTrapEnterprise.0 are the
#     agent's sysObjectID.0 (net-snmp put its Linux agent OID
#     .1.3.6.1.4.1.8072.3.2.10 there), in every PDU;
#   - PORTZERO-MIB's pzReachLost: SNMPv1 enterpriseSpecific(6), specific 3,
#     enterprise = the notification OID less ".0.3" (RFC 3584 3.2); the
#     SNMPv2c/v3 one carries no snmpTrapEnterprise.0;
#   - a configured sysObjectID is what the notifications carry.
# Usage: test_snmp_traps.sh SNMP_TESTD
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=snmp_lib.sh
source "$(dirname "$0")/snmp_lib.sh"
TESTD=$(abspath "$1")
pzt_require_tools snmpget snmptrapd

snmpt_init snmptraps 5 state trapd/cert_indexes
TRAP_PORT=$((PORT + 1))
AGENT_PID=
TRAPD_PID=
SNMPT_PID_VARS=(AGENT_PID TRAPD_PID)
SNMPT_LOGS=("$WORK/agent.err" "$WORK/trapd.log")

AGENT=127.0.0.1:$PORT
RO=("${PZT_SNMP_RO[@]}" -t 2 -r 1)
PZ=.1.3.6.1.4.1.99999
TRAPS=.1.3.6.1.6.3.1.1.5        # snmpTraps: coldStart.1 .. authenticationFailure.5
ENTERPRISE=.1.3.6.1.6.3.1.1.4.3.0 # snmpTrapEnterprise.0
# The SNMPv3 sink's engine ID (the trap's authoritative engine: trapsess -e).
TRAP_ENGINE=0x80001f8880706f72747a65726f

write_config() { # write_config [EXTRA LINE]: the agent's configuration
    {
        pzt_snmp_users
        echo "trapsink 127.0.0.1:$TRAP_PORT pzv1"
        echo "trap2sink 127.0.0.1:$TRAP_PORT pzv2"
        echo "trapsess -v 3 -u pztrap -l authPriv -a SHA-256 -A trapauthpass1 -x AES" \
            "-X trapprivpass1 -e $TRAP_ENGINE 127.0.0.1:$TRAP_PORT"
        echo "authtrapenable 1"
        [ $# -eq 0 ] || echo "$1"
    } > "$WORK/agent.conf"
}

# snmptrapd: one line per notification: generic, specific, enterprise,
# security (version, community or user), the varbinds.
cat > "$WORK/trapd.conf" << EOF
disableAuthorization yes
createUser -e $TRAP_ENGINE pztrap SHA-256 trapauthpass1 AES trapprivpass1
EOF
SNMP_PERSISTENT_DIR=$WORK/trapd snmptrapd -f -A -C -c "$WORK/trapd.conf" -m '' -M "$WORK/client" \
    -On -Lf "$WORK/trapd.log" -F 'TRAP %w %q ent=%N sec=%P|%V~%v\n' "udp:127.0.0.1:$TRAP_PORT" \
    < /dev/null &
TRAPD_PID=$!
mkfifo "$WORK/ctl"

start_agent() { # start_agent N: the Nth start
    "$TESTD" --port "$PORT" --state "$WORK/state" --config "$WORK/agent.conf" --ports 36 \
        --ctl "$WORK/ctl" >> "$WORK/agent.out" 2>> "$WORK/agent.err" < /dev/null &
    AGENT_PID=$!
    wait_lines "$WORK/agent.out" 10 '^ready$' "$1"
}

# The lines of one sink: v1 (community pzv1), v2c (pzv2) or v3 (user pztrap).
sink_lines() {
    case $1 in
        v1) grep -F 'community pzv1' "$WORK/trapd.log" ;;
        v2c) grep -F 'community pzv2' "$WORK/trapd.log" ;;
        v3) grep -E 'SNMP v3, user pztrap' "$WORK/trapd.log" ;;
    esac
}
# The SNMPv1 traps of generic type G, specific S (snmptrapd prints 3 as ".3").
v1_trap() { sink_lines v1 | grep -E "^TRAP $1 \.?$2 "; }
# The SNMPv2c/v3 notification whose snmpTrapOID.0 is OID.
v2_trap() { sink_lines "$1" | grep -F "1.3.6.1.6.3.1.1.4.1.0 = OID: $2~"; }
v2_trap_last() { sink_lines "$1" | grep -E "1\.3\.6\.1\.6\.3\.1\.1\.4\.1\.0 = OID: ${2//./\\.}($|~)"; }
# The enterprise field of the last v1 line; snmpTrapEnterprise.0's value of the last v2 line.
v1_enterprise() { tail -n 1 | sed -n 's/^TRAP [0-9]* [.0-9]* ent=\([^ ]*\) .*/\1/p'; }
v2_enterprise() { tail -n 1 | tr '~' '\n' | sed -n "s/^${ENTERPRISE//./\\.} = OID: //p"; }
# wait_trap NAME SINK REGEX: until a line of SINK (its snmptrapd %P text) matches REGEX.
wait_trap() {
    wait_until 5 bash -c "grep -E '$3' '$WORK/trapd.log' | grep -qE '$2'"
}
SINK_V1='community pzv1'
SINK_V2='community pzv2'
SINK_V3='SNMP v3, user pztrap'

# check_generic NAME N [REGEX]: the generic notification snmpTraps.N (whose
# line also matches REGEX) at every sink carries sysObjectID ($SYSOID) as
# its enterprise.
check_generic() {
    local name=$1 n=$2 re=${3:-.} v got
    check "$name: SNMPv1 trap (generic $((n - 1))) received" \
        wait_until 5 bash -c "grep -F '$SINK_V1' '$WORK/trapd.log' | grep -E '^TRAP $((n - 1)) 0 ' |
            grep -qE '$re'"
    for v in "$SINK_V2" "$SINK_V3"; do
        check "$name: ${v%%,*} notification received" \
            wait_until 5 bash -c "grep -F '$v' '$WORK/trapd.log' |
                grep -E 'OID: ${TRAPS//./\\.}\\.$n($|~)' | grep -qE '$re'"
    done
    check_eq "$name: SNMPv1 enterprise = sysObjectID" "$SYSOID" \
        "$(v1_trap $((n - 1)) 0 | grep -E "$re" | v1_enterprise)"
    got=$(v1_trap $((n - 1)) 0 | grep -E "$re" | v2_enterprise)
    check "$name: SNMPv1 snmpTrapEnterprise.0 varbind, if any, = sysObjectID ($got)" \
        test -z "$got" -o "$got" = "$SYSOID"
    for v in v2c v3; do
        check_eq "$name: $v snmpTrapEnterprise.0 = sysObjectID" "$SYSOID" \
            "$(v2_trap_last "$v" "$TRAPS.$n" | grep -E "$re" | v2_enterprise)"
    done
}

write_config
wait_file "$WORK/trapd.log" 5 '^' "$TRAPD_PID" || true
check "snmp_testd serves" start_agent 1
SYSOID=$(snmpget "${RO[@]}" -Oqvn "$AGENT" .1.3.6.1.2.1.1.2.0 2>&1)
check_eq "sysObjectID.0 is portzero's pzSwitchAgent" "$PZ.2.1" "$SYSOID"

check_generic coldStart 1
echo "unplug 3" > "$WORK/ctl"
check_generic linkDown 3 '2\.2\.1\.1\.3 = INTEGER: 3'
echo "plug 3" > "$WORK/ctl"
check_generic linkUp 4 '2\.2\.1\.1\.3 = INTEGER: 3'
snmpget -v2c -c wrongcommunity -t 1 -r 0 "$AGENT" .1.3.6.1.2.1.1.1.0 > /dev/null 2>&1
check_generic authenticationFailure 5
check_eq "the linkDown v2c notification: ifIndex, ifAdminStatus, ifOperStatus, snmpTrapEnterprise.0" \
    ".1.3.6.1.2.1.2.2.1.1.3 .1.3.6.1.2.1.2.2.1.7.3 .1.3.6.1.2.1.2.2.1.8.3 $ENTERPRISE" \
    "$(v2_trap_last v2c "$TRAPS.3" | tail -n 1 | tr '~' '\n' | sed -n '3,$s/ = .*//p' | tr '\n' ' ' | sed 's/ $//')"

# PORTZERO-MIB's own notification: the enterprise is the notification's.
echo "reach 42 0" > "$WORK/ctl"
check "pzReachLost: SNMPv1 trap received" wait_trap pzReachLost "$SINK_V1" '^TRAP 6 \.?3 '
check_eq "pzReachLost: SNMPv1 enterprise = $PZ (snmpTrapOID less .0.3)" "$PZ" \
    "$(v1_trap 6 3 | v1_enterprise)"
for v in v2c v3; do
    check "pzReachLost: $v notification received" \
        wait_until 5 bash -c "grep -F 'OID: $PZ.0.3~' '$WORK/trapd.log' | grep -qF '$([ $v = v2c ] && echo "$SINK_V2" || echo "$SINK_V3")'"
    check_eq "pzReachLost: $v carries no snmpTrapEnterprise.0" "" \
        "$(v2_trap "$v" "$PZ.0.3" | v2_enterprise)"
done
check "no notification carries net-snmp's Linux agent OID (.1.3.6.1.4.1.8072.3.2.10)" \
    bash -c "! grep -qF '.1.3.6.1.4.1.8072' '$WORK/trapd.log'"

# A configured sysObjectID is what the notifications carry.
stop_pid "$AGENT_PID"
AGENT_PID=
check_eq "snmp_testd exits 0 on SIGTERM (no sanitizer report)" 0 "$STOP_RC"
: > "$WORK/trapd.log"
write_config "sysObjectID $PZ.2.7"
check "snmp_testd serves with sysObjectID $PZ.2.7" start_agent 2
SYSOID=$(snmpget "${RO[@]}" -Oqvn "$AGENT" .1.3.6.1.2.1.1.2.0 2>&1)
check_eq "sysObjectID.0 as configured" "$PZ.2.7" "$SYSOID"
check_generic "coldStart (configured sysObjectID)" 1
stop_pid "$AGENT_PID"
AGENT_PID=
check_eq "snmp_testd exits 0 on SIGTERM (no sanitizer report)" 0 "$STOP_RC"
