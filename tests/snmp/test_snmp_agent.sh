#!/bin/bash
# test_snmp_agent.sh - the SNMP agent library (snmp/) inside snmp_testd (a
# 36-port in-memory switch served on 127.0.0.1), queried by the real
# net-snmp tools.  Numeric OIDs throughout: Debian's snmp package ships no
# IETF MIB files (they come with the non-free snmp-mibs-downloader).
#   - SNMPv3 authPriv (SHA-256/AES) reads; noAuthNoPriv, wrong password,
#     unknown user, wrong community get no data; usmStatsWrongDigests rises;
#   - system group, ifNumber, ifName/ifType of every port (GETBULK walk);
#   - octet counters = 4 x the PMA's PortXmitData; a 32-bit column wraps;
#   - ifOperStatus of an unplugged port; ifHighSpeed 4x EDR;
#   - ifAlias set by the rwuser, refused to the rouser and the community,
#     kept across a restart; engineBoots +1 per restart; a user whose
#     createUser line was removed is unknown after the restart, the state
#     file keeps no configured user;
#   - ifAdminStatus down/up moves PhysState (read from the switch), up on
#     an up port leaves it alone (no retraining), the management port and
#     interface are refused (inconsistentValue);
#   - snmptrapd receives coldStart, linkDown/linkUp, hot-spot onset/clear;
#     a link bounce while sends fail is held and arrives, in order, after;
#   - what show snmp lists (snmp_testd's "conf") holds no part of a quoted
#     pass phrase or community with spaces (net-snmp's words, not blanks');
#   - agentaddress is refused with a message (the caller's transport only);
#   - a config path that is missing or a directory is refused at start;
#   - with no configuration nothing is answered.
# Usage: test_snmp_agent.sh SNMP_TESTD
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=snmp_lib.sh
source "$(dirname "$0")/snmp_lib.sh"
TESTD=$(abspath "$1")
pzt_require_tools snmpget snmpwalk snmpbulkwalk snmpbulkget snmpset snmptrapd

# The client tools read and write nothing of the machine's or the user's.
snmpt_init snmp 0 state empty-state trapd/cert_indexes
TRAP_PORT=$((PORT + 1))
EMPTY_PORT=$((PORT + 2))
SPARE_PORT=$((PORT + 3)) # a sink nobody listens on
AGENT_PID=
TRAPD_PID=
EMPTY_PID=
SNMPT_PID_VARS=(AGENT_PID EMPTY_PID TRAPD_PID)
SNMPT_LOGS=("$WORK/agent.err" "$WORK/trapd.log")

AGENT=127.0.0.1:$PORT
RO=("${PZT_SNMP_RO[@]}" -t 2 -r 1)
RW=("${PZT_SNMP_RW[@]}" -t 2 -r 1)
COM=(-v2c -c pzpublic -t 2 -r 1)
IFX=.1.3.6.1.2.1.31.1.1.1
IFT=.1.3.6.1.2.1.2.2.1
PZ=.1.3.6.1.4.1.99999

{
    pzt_snmp_users
    cat << EOF
rocommunity pzpublic 127.0.0.1
sysLocation lab rack 3
sysContact ops@example.net
sysName leaf-1
trap2sink 127.0.0.1:$TRAP_PORT pzpublic
createUser pzspaced SHA-256 "spaced auth secret" AES "spaced priv secret"
rouser pzspaced priv
trap2sink 127.0.0.1 "sink community secret" $SPARE_PORT
agentaddress udp:127.0.0.1:$SPARE_PORT
EOF
} > "$WORK/agent.conf"

# snmptrapd: log every notification, numeric, one line each.
cat > "$WORK/trapd.conf" << EOF
disableAuthorization yes
EOF
SNMP_PERSISTENT_DIR=$WORK/trapd snmptrapd -f -C -c "$WORK/trapd.conf" -m '' -M "$WORK/client" \
    -On -Lf "$WORK/trapd.log" -F '%V|%v\n' "udp:127.0.0.1:$TRAP_PORT" < /dev/null &
TRAPD_PID=$!
mkfifo "$WORK/ctl"

start_agent() {
    "$TESTD" --port "$PORT" --state "$WORK/state" --config "$WORK/agent.conf" --ports 36 \
        --mgmt-port 1 --ctl "$WORK/ctl" >> "$WORK/agent.out" 2>> "$WORK/agent.err" < /dev/null &
    AGENT_PID=$!
    wait_lines "$WORK/agent.out" 10 '^ready$' "$1"
}

# ctl COMMAND: send a command, wait for its answer line (if it has one).
ctl() {
    echo "$*" > "$WORK/ctl"
}
ctl_ask() { # ctl_ask PREFIX COMMAND: the answer line of COMMAND
    local before
    before=$(grep -c "^$1 " "$WORK/agent.out")
    ctl "$2"
    wait_lines "$WORK/agent.out" 5 "^$1 " $((before + 1)) || return 1
    grep "^$1 " "$WORK/agent.out" | tail -n 1
}
get_ro() { snmpget "${RO[@]}" -Oqv "$AGENT" "$@" 2>&1; }
engine_boots() { get_ro .1.3.6.1.6.3.10.2.1.2.0; }

wait_file "$WORK/trapd.log" 5 'NET-SNMP|snmptrapd|^' "$TRAPD_PID" || true
check "snmp_testd serves" start_agent 1

# --- access --------------------------------------------------------------
check_eq "v3 authPriv reads sysDescr" '"portzero InfiniBand switch management agent"' \
    "$(get_ro .1.3.6.1.2.1.1.1.0)"
check_eq "sysObjectID is portzero's" .1.3.6.1.4.1.99999.2.1 \
    "$(snmpget "${RO[@]}" -Oqvn "$AGENT" .1.3.6.1.2.1.1.2.0 2>&1)"
check_eq "sysName from the config" '"leaf-1"' "$(get_ro .1.3.6.1.2.1.1.5.0)"
check_eq "v2c read-only community reads sysLocation" '"lab rack 3"' \
    "$(snmpget "${COM[@]}" -Oqv "$AGENT" .1.3.6.1.2.1.1.6.0 2>&1)"
got=$(snmpget -v3 -l noAuthNoPriv -u pzro -t 1 -r 0 -Oqv "$AGENT" .1.3.6.1.2.1.1.1.0 2>&1)
check "noAuthNoPriv against an authPriv user gets no data" \
    bash -c '[[ $1 != *portzero* && $1 == *[Ee]rror* || $1 == *Timeout* || $1 == *authorization* ]]' _ "$got"
digests0=$(get_ro .1.3.6.1.6.3.15.1.1.5.0)
got=$(snmpget -v3 -l authPriv -u pzro -a SHA-256 -A wrongpassword -x AES -X readprivpass1 -t 1 -r 0 \
    -Oqv "$AGENT" .1.3.6.1.2.1.1.1.0 2>&1)
check "a wrong auth password is refused" bash -c '[[ $1 == *[Aa]uthentication* ]]' _ "$got"
digests1=$(get_ro .1.3.6.1.6.3.15.1.1.5.0)
check "usmStatsWrongDigests rises ($digests0 -> $digests1)" test "$digests1" -gt "$digests0"
got=$(snmpget -v3 -l authPriv -u nobody -a SHA-256 -A whateverpass -x AES -X whateverpass -t 1 -r 0 \
    -Oqv "$AGENT" .1.3.6.1.2.1.1.1.0 2>&1)
check "an unknown user is refused" bash -c '[[ $1 == *[Uu]nknown\ user* ]]' _ "$got"
got=$(snmpget -v2c -c wrongcommunity -t 1 -r 0 -Oqv "$AGENT" .1.3.6.1.2.1.1.1.0 2>&1)
check "a wrong community gets no answer" bash -c '[[ $1 == *Timeout* ]]' _ "$got"

check_eq "a user whose pass phrases hold spaces reads sysName" '"leaf-1"' \
    "$(snmpget -v3 -l authPriv -u pzspaced -a SHA-256 -A "spaced auth secret" -x AES \
        -X "spaced priv secret" -t 2 -r 1 -Oqv "$AGENT" .1.3.6.1.2.1.1.5.0 2>&1)"
# What show snmp lists: pass phrases and community strings with spaces are
# single (quoted) words to net-snmp, so no part of them may be listed.
ctl conf
wait_lines "$WORK/agent.out" 5 '^conf end$' 1
grep '^conf ' "$WORK/agent.out" > "$WORK/conf"
check "conf: the spaced user with its protocols only" grep -qxF 'conf createUser|pzspaced|SHA-256 AES' "$WORK/conf"
check "conf: the sink with a spaced community: host and port" \
    grep -qxF "conf trap2sink|127.0.0.1|port $SPARE_PORT" "$WORK/conf"
check "conf: the sink given as host:port: host and its port" \
    grep -qxF "conf trap2sink|127.0.0.1|port $TRAP_PORT" "$WORK/conf"
check "conf: no word of a pass phrase or community anywhere" \
    bash -c "! grep -qiwE 'secret|community|pzpublic|[a-z]*pass1' '$WORK/conf'"

check "agentaddress is refused with a message" \
    grep -qF "agentaddress udp:127.0.0.1:$SPARE_PORT refused" "$WORK/agent.err"
got=$(snmpget "${COM[@]}" -t 1 -r 0 -Oqv "127.0.0.1:$SPARE_PORT" .1.3.6.1.2.1.1.5.0 2>&1)
check "nothing answers on the agentaddress port" bash -c '[[ $1 == *Timeout* ]]' _ "$got"

# --- IF-MIB ----------------------------------------------------------------
check_eq "ifNumber = 36 ports + the management interface" 37 "$(get_ro .1.3.6.1.2.1.2.1.0)"
snmpbulkwalk "${RO[@]}" -Cr20 -OQn "$AGENT" "$IFX.1" > "$WORK/ifname" 2>&1
check_eq "GETBULK walk of ifName: 37 rows" 37 "$(grep -c '^\.1' "$WORK/ifname")"
check_eq "ifName of port 5" "$IFX.1.5 = \"IB1/5\"" "$(grep "^$IFX.1.5 " "$WORK/ifname")"
snmpwalk "${RO[@]}" -OQn "$AGENT" "$IFT.3" > "$WORK/iftype" 2>&1
check_eq "ifType infiniband(199) on every row" 37 "$(grep -c ' = 199$' "$WORK/iftype")"
check_eq "snmpbulkget max-repetitions 5 returns 5 varbinds" 5 \
    "$(snmpbulkget "${RO[@]}" -Cn0 -Cr5 -OQn "$AGENT" "$IFX.1" 2>&1 | grep -c "^$IFX.1.")"
check_eq "ifHighSpeed of an untouched port: 4x EDR = 103125 Mb/s" 103125 \
    "$(get_ro "$IFX.15.2")"
check_eq "ifMtu from NeighborMTU 4096" 4096 "$(get_ro "$IFT.4.2")"

ctl add 3 xmit_data 1000
ctl add 3 rcv_data 250
sleep 0.3
pma=$(ctl_ask pma "pma 3")
xmit=$(echo "$pma" | awk '{ print $3 }')
rcv=$(echo "$pma" | awk '{ print $4 }')
check_eq "ifHCOutOctets = 4 x PortXmitData ($xmit)" $((xmit * 4)) "$(get_ro "$IFX.10.3")"
check_eq "ifHCInOctets = 4 x PortRcvData ($rcv)" $((rcv * 4)) "$(get_ro "$IFX.6.3")"
check_eq "ifOutOctets (32-bit) agrees below 2^32" $((xmit * 4)) "$(get_ro "$IFT.16.3")"
ctl add 4 xmit_data $((1 << 30))
ctl add 4 xmit_data 5
sleep 0.3
check_eq "ifHCOutOctets past 2^32" $(((1 << 32) + 20)) "$(get_ro "$IFX.10.4")"
check_eq "ifOutOctets wraps modulo 2^32 (no saturation)" 20 "$(get_ro "$IFT.16.4")"
ctl add 6 rcv_errors 7
sleep 0.3
check_eq "ifInErrors from PortRcvErrors" 7 "$(get_ro "$IFT.14.6")"

check_eq "ifOperStatus of an Active port: up" 1 "$(get_ro "$IFT.8.7")"
ctl unplug 7
sleep 0.3
check_eq "ifOperStatus of an unplugged port: down" 2 "$(get_ro "$IFT.8.7")"
check "ifLastChange of the unplugged port moved" test "$(snmpget "${RO[@]}" -Oqvt "$AGENT" "$IFT.9.7")" -gt 0
ctl plug 7
sleep 0.3
check_eq "ifOperStatus after re-plugging: up" 1 "$(get_ro "$IFT.8.7")"

# --- PORTZERO-MIB ---------------------------------------------------------
ctl add 8 symbol_errors 11
ctl add 8 xmit_wait 1234
sleep 0.3
check_eq "pzIbPortSymbolErrors of port 8" 11 "$(get_ro "$PZ.1.2.1.12.8")"
check_eq "pzIbPortXmitWait of port 8" 1234 "$(get_ro "$PZ.1.2.1.24.8")"
check_eq "pzIbPortState of port 8: active(4)" 4 "$(get_ro "$PZ.1.2.1.8.8")"
check_eq "pzIbPortPhysState of port 8: linkUp(5)" 5 "$(get_ro "$PZ.1.2.1.9.8")"
snmpbulkwalk "${RO[@]}" -Cr30 -OQn "$AGENT" "$PZ.1.3.1.2" > "$WORK/cong" 2>&1
check_eq "pzCongTable has a class for each of the 36 ports" 36 "$(grep -c "^$PZ.1.3.1.2." "$WORK/cong")"
check_eq "pzNodeGuid" "00 02 C9 03 00 00 12 34" \
    "$(snmpget "${RO[@]}" -Oqvx "$AGENT" "$PZ.1.1.3.0" 2>&1 | tr -d '"' | sed 's/ *$//')"
snmpset "${RW[@]}" "$AGENT" "$PZ.1.4.2.0" u 150000 > /dev/null 2>&1
check_eq "pzCongThreshold is writable" 150000 "$(get_ro "$PZ.1.4.2.0")"
got=$(snmpset "${RW[@]}" "$AGENT" "$PZ.1.4.1.0" u 5 2>&1)
check "a monitor interval below 100 ms is wrongValue" bash -c '[[ $1 == *wrongValue* ]]' _ "$got"
snmpset "${RW[@]}" "$AGENT" "$PZ.1.4.2.0" u 100000 > /dev/null 2>&1
ctl reach 42 1
sleep 0.2
check_eq "pzReachTable row of LID 42 reachable(1)" 1 "$(get_ro "$PZ.1.5.1.4.42")"
ctl reach 42 0
check "snmptrapd received reachability lost of LID 42" \
    wait_file "$WORK/trapd.log" 5 "$PZ\\.0\\.3\\|.*$PZ\\.1\\.5\\.1\\.4\\.42 = INTEGER: 2"

# --- sets ----------------------------------------------------------------
got=$(snmpset "${RO[@]}" "$AGENT" "$IFX.18.2" s "not allowed" 2>&1)
check "the rouser cannot set ifAlias" bash -c '[[ $1 == *noAccess* || $1 == *notWritable* || $1 == *authorization* ]]' _ "$got"
got=$(snmpset "${COM[@]}" "$AGENT" "$IFX.18.2" s "not allowed" 2>&1)
check "the read-only community cannot set ifAlias" bash -c '[[ $1 == *noAccess* || $1 == *notWritable* || $1 == *authorization* ]]' _ "$got"
snmpset "${RW[@]}" "$AGENT" "$IFX.18.2" s "uplink to spine-1" > /dev/null 2>&1
check_eq "the rwuser sets ifAlias" '"uplink to spine-1"' "$(get_ro "$IFX.18.2")"
got=$(snmpset "${RW[@]}" "$AGENT" "$IFX.18.2" s "$(printf 'x%.0s' {1..65})" 2>&1)
check "a 65-byte ifAlias is refused (wrongLength)" bash -c '[[ $1 == *wrongLength* ]]' _ "$got"
# ifAlias is a DisplayString (RFC 2579): a NUL (kept as a C string, it read back
# cut: "A" for 41 00 42), octets above 127 and a bare CR are wrongValue, and
# the value before stays; a CR LF is fine.
for bad in "41 00 42" "00" "41 FF" "41 0D 42"; do
    got=$(snmpset "${RW[@]}" "$AGENT" "$IFX.18.2" x "$bad" 2>&1)
    check "ifAlias $bad is refused (wrongValue)" bash -c '[[ $1 == *wrongValue* ]]' _ "$got"
done
check_eq "ifAlias unchanged by the refused sets" '"uplink to spine-1"' "$(get_ro "$IFX.18.2")"
snmpset "${RW[@]}" "$AGENT" "$IFX.18.3" x "41 0D 0A 42" > /dev/null 2>&1
alias_hex() { snmpget "${RO[@]}" -Oqvx "$AGENT" "$IFX.18.3" 2>&1 | tr -d ' "\n'; }
check_eq "ifAlias with CR LF reads back whole" "410D0A42" "$(alias_hex)"
got=$(snmpset "${RW[@]}" "$AGENT" "$IFX.1.2" s "IB9/9" 2>&1)
check "ifName is not writable" bash -c '[[ $1 == *notWritable* ]]' _ "$got"

snmpset "${RW[@]}" "$AGENT" "$IFT.7.5" i 2 > /dev/null 2>&1
check_eq "ifAdminStatus down disables port 5 (PhysState 3 in the switch)" "state 5 1 3" \
    "$(ctl_ask state "state 5")"
check_eq "ifAdminStatus reads down" 2 "$(get_ro "$IFT.7.5")"
check_eq "ifOperStatus of the disabled port: down" 2 "$(get_ro "$IFT.8.5")"
snmpset "${RW[@]}" "$AGENT" "$IFT.7.5" i 1 > /dev/null 2>&1
check "ifAdminStatus up re-enables port 5 (PhysState no longer Disabled)" \
    bash -c "[[ '$(ctl_ask state "state 5")' != 'state 5 1 3' ]]"
check_eq "port 7 is Active / LinkUp" "state 7 4 5" "$(ctl_ask state "state 7")"
snmpset "${RW[@]}" "$AGENT" "$IFT.7.7" i 1 > /dev/null 2>&1
check_eq "ifAdminStatus up on an up port leaves the link alone (no retraining to Init)" \
    "state 7 4 5" "$(ctl_ask state "state 7")"
got=$(snmpset "${RW[@]}" "$AGENT" "$IFT.7.1" i 2 2>&1)
check "ifAdminStatus down on the management port: inconsistentValue" \
    bash -c '[[ $1 == *inconsistentValue* ]]' _ "$got"
check_eq "the management port stays enabled" "state 1 4 5" "$(ctl_ask state "state 1")"
got=$(snmpset "${RW[@]}" "$AGENT" "$IFT.7.37" i 2 2>&1)
check "ifAdminStatus down on the IPoIB interface: inconsistentValue" \
    bash -c '[[ $1 == *inconsistentValue* ]]' _ "$got"

# --- traps ----------------------------------------------------------------
check "snmptrapd received coldStart" wait_file "$WORK/trapd.log" 5 '\.1\.3\.6\.1\.6\.3\.1\.1\.5\.1'
check "snmptrapd received linkDown of port 7" \
    wait_file "$WORK/trapd.log" 5 '\.1\.3\.6\.1\.6\.3\.1\.1\.5\.3.*2\.2\.1\.1\.7 = INTEGER: 7'
check "snmptrapd received linkUp of port 7" \
    wait_file "$WORK/trapd.log" 5 '\.1\.3\.6\.1\.6\.3\.1\.1\.5\.4.*2\.2\.1\.1\.7 = INTEGER: 7'
for _ in 1 2 3 4 5 6; do
    ctl add 9 xmit_wait 2000000
    sleep 0.1
done
check "snmptrapd received hot-spot onset of port 9 (class hotSpot)" \
    wait_file "$WORK/trapd.log" 5 "$PZ\\.0\\.1\\|.*$PZ\\.1\\.3\\.1\\.2\\.9 = INTEGER: 1"
check "snmptrapd received hot-spot clear of port 9" \
    wait_file "$WORK/trapd.log" 10 "$PZ\\.0\\.2\\|.*$PZ\\.1\\.3\\.1\\.2\\.9 = INTEGER: 0"

# A link bounce while the IP path is down (portzerod: lwIP has no route while
# IPoIB rejoins): the notifications are held, then sent in order once sends work.
LINKDOWN_11='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.3.*2\.2\.1\.1\.11 = INTEGER: 11'
LINKUP_11='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.4.*2\.2\.1\.1\.11 = INTEGER: 11'
ctl net 0
ctl unplug 11
sleep 0.5
ctl plug 11
sleep 0.5
check "no notification of port 11 left while sends fail" bash -c "! grep -q '2\.2\.1\.1\.11 = ' '$WORK/trapd.log'"
ctl net 1
check "linkDown of port 11, held while sends failed, arrives once they work" \
    wait_file "$WORK/trapd.log" 5 "$LINKDOWN_11"
check "linkUp of port 11 arrives after its linkDown" wait_file "$WORK/trapd.log" 5 "$LINKUP_11"
check "linkDown of port 11 before its linkUp" test \
    "$(grep -n "$LINKDOWN_11" "$WORK/trapd.log" | head -n 1 | cut -d: -f1)" -lt \
    "$(grep -n "$LINKUP_11" "$WORK/trapd.log" | head -n 1 | cut -d: -f1)"

# --- restart: persistence ----------------------------------------------------
boots=$(engine_boots)
# A user whose createUser line leaves the configuration is gone after the
# restart (net-snmp stored its localized keys and read them back before).
sed -i '/^createUser pzspaced /d' "$WORK/agent.conf"
stop_pid "$AGENT_PID"
# net-snmp's own way still works: a createUser line in the persistent file
# becomes a stored (localized) user.
echo 'createUser pzstate SHA-256 "stateauthpass1"' >> "$WORK/state/portzero-snmp.conf"
echo 'rouser pzstate auth' >> "$WORK/agent.conf"
check_eq "snmp_testd exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT_PID=
check "snmp_testd serves again" start_agent 2
check_eq "engineBoots incremented across the restart" $((boots + 1)) "$(engine_boots)"
check_eq "ifAlias kept across the restart" '"uplink to spine-1"' "$(get_ro "$IFX.18.2")"
check_eq "ifAlias with CR LF kept across the restart" "410D0A42" "$(alias_hex)"
got=$(snmpget -v3 -l authPriv -u pzspaced -a SHA-256 -A "spaced auth secret" -x AES \
    -X "spaced priv secret" -t 1 -r 0 -Oqv "$AGENT" .1.3.6.1.2.1.1.5.0 2>&1)
check "a user removed from the configuration is unknown after the restart ($got)" \
    bash -c '[[ $1 == *[Uu]nknown\ user* ]]' _ "$got"
check_eq "the configured users still read after the restart" '"leaf-1"' "$(get_ro .1.3.6.1.2.1.1.5.0)"
check_eq "a user of the persistent file's createUser reads" '"leaf-1"' \
    "$(snmpget -v3 -l authNoPriv -u pzstate -a SHA-256 -A stateauthpass1 -t 2 -r 1 -Oqv "$AGENT" \
        .1.3.6.1.2.1.1.5.0 2>&1)"
check "the state file keeps that user localized, without its pass phrase" \
    bash -c "grep -q '^usmUser .*\"pzstate\"' '$WORK/state/portzero-snmp.conf' &&
        ! grep -q stateauthpass1 '$WORK/state/portzero-snmp.conf'"
check "the state file keeps no user of the configuration (createUser makes them at each start)" \
    bash -c "! grep -E '^usmUser' '$WORK/state/portzero-snmp.conf' | grep -qv pzstate"
check_eq "the configured users are readOnly(5) in usmUserTable, the stored one nonVolatile(3)" "3 5" \
    "$(snmpwalk "${RO[@]}" -Oqv "$AGENT" .1.3.6.1.6.3.15.1.2.2.1.12 2>&1 | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "the state directory holds only net-snmp's persistent file and cert index" \
    bash -c "[ \"\$(ls '$WORK/state' | tr '\n' ' ')\" = 'cert_indexes portzero-snmp.conf ' ]"

# --- a configuration that is not a readable file: refused ----------------------
refused_config() { # refused_config RC OUTPUT: a non-zero exit that names the file
    [ "$1" -ne 0 ] && [[ "$2" == *"cannot read config file"* ]]
}
for bad in "$WORK/no-such.conf" "$WORK/client"; do
    got=$(timeout 5 "$TESTD" --port "$EMPTY_PORT" --state "$WORK/empty-state" --config "$bad" \
        --ports 4 2>&1 < /dev/null)
    rc=$?
    check "snmp_config $(basename "$bad") is refused at start (exit $rc)" refused_config "$rc" "$got"
done

# --- no configuration: no access -----------------------------------------------
"$TESTD" --port "$EMPTY_PORT" --state "$WORK/empty-state" --ports 4 > "$WORK/empty.out" \
    2> "$WORK/empty.err" < /dev/null &
EMPTY_PID=$!
check "an agent without configuration starts" wait_file "$WORK/empty.out" 10 '^ready$' "$EMPTY_PID"
got=$(snmpget -v2c -c public -t 1 -r 0 -Oqv "127.0.0.1:$EMPTY_PORT" .1.3.6.1.2.1.1.1.0 2>&1)
check "no community unless configured (public: no answer)" bash -c '[[ $1 == *Timeout* ]]' _ "$got"
got=$(snmpget "${RO[@]}" -Oqv "127.0.0.1:$EMPTY_PORT" .1.3.6.1.2.1.1.1.0 2>&1)
check "no user unless configured" bash -c '[[ $1 != *portzero* ]]' _ "$got"
