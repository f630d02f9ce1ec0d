#!/bin/bash
# test_snmp_system.sh - what the SNMP agent library (snmp/) says about the
# switch, and what the shipped configurations let a poller read, asked of
# snmp_testd (a 36-port in-memory switch on 127.0.0.1) with net-snmp's tools:
#   - sysName: the switch's NodeDescription (not the host name), following
#     it, octets a DisplayString cannot hold as '?'; Set by the rwuser (not
#     the rouser) it stays, across a restart too; a configured sysName wins
#     and is read-only (notWritable); a Set sysName, sysLocation or
#     sysContact with a control character (a line break would write a line
#     of its own into the state file, read back as configuration at the
#     next start) is wrongValue;
#   - sysORTable lists IF-MIB and PORTZERO-MIB with their descriptions;
#   - ifTableLastChange (IF-MIB ifGeneralInformationGroup) is 0 and stays
#     0 across a link bounce (no row is created or deleted);
#   - the view of snmp/portzero-snmp.conf.example and of the image's
#     image/snmp.conf, as shipped: their community and their rouser read
#     IF-MIB, PORTZERO-MIB, sysORTable, the engine and usmStats, but no
#     usmUserTable, VACM or SNMP-TARGET-MIB row (which holds a v2c sink's
#     community); a community without the view reads them (the checks can
#     fail).
# Usage: test_snmp_system.sh SNMP_TESTD SOURCE_DIR
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=snmp_lib.sh
source "$(dirname "$0")/snmp_lib.sh"
TESTD=$(abspath "$1")
SRC=$(abspath "$2")
pzt_require_tools snmpget snmpgetnext snmpwalk snmpbulkwalk snmpset

snmpt_init snmpsys 10
SPARE_PORT=$((PORT + 1)) # a sink nobody listens on
AGENT_PID=
SNMPT_PID_VARS=(AGENT_PID)
SNMPT_LOGS=("$WORK/agent.err")

AGENT=127.0.0.1:$PORT
RO=("${PZT_SNMP_RO[@]}" -t 2 -r 1)
RW=("${PZT_SNMP_RW[@]}" -t 2 -r 1)
SYSNAME=.1.3.6.1.2.1.1.5.0
IFT=.1.3.6.1.2.1.2.2.1
mkfifo "$WORK/ctl"
touch "$WORK/agent.out"

start_agent() { # start_agent STATE_DIR CONFIG: until it serves
    "$TESTD" --port "$PORT" --state "$1" --config "$2" --ports 36 --ctl "$WORK/ctl" \
        >> "$WORK/agent.out" 2>> "$WORK/agent.err" < /dev/null &
    AGENT_PID=$!
    wait_lines "$WORK/agent.out" 10 '^ready$' $(($(grep -c '^ready$' "$WORK/agent.out") + 1))
}
stop_agent() { # and check it exits 0 (a sanitizer report would not)
    stop_pid "$AGENT_PID"
    AGENT_PID=
    check_eq "snmp_testd exits 0 on SIGTERM" 0 "$STOP_RC"
}
get_ro() { snmpget "${RO[@]}" -Oqv "$AGENT" "$@" 2>&1; }

# --- sysName ----------------------------------------------------------------
mkdir -p "$WORK/state"
{
    pzt_snmp_users
    echo "rocommunity pzpublic 127.0.0.1"
} > "$WORK/agent.conf"
check "snmp_testd serves" start_agent "$WORK/state" "$WORK/agent.conf"
check_eq "sysName is the switch's NodeDescription" '"portzero switch"' "$(get_ro $SYSNAME)"
check "sysName is not the host name ($(hostname))" \
    test "$(get_ro $SYSNAME)" != "\"$(hostname)\""
echo "nodedesc leaf-3 rack-7" > "$WORK/ctl"
check "sysName follows a new NodeDescription" \
    wait_until 5 bash -c "[ \"\$(snmpget ${RO[*]} -Oqv $AGENT $SYSNAME)\" = '\"leaf-3 rack-7\"' ]"
printf 'nodedesc sw-\xc3\xa9\ttab\n' > "$WORK/ctl"
check "sysName: NodeDescription octets outside NVT ASCII read as '?'" \
    wait_until 5 bash -c "[ \"\$(snmpget ${RO[*]} -Oqv $AGENT $SYSNAME)\" = '\"sw-???tab\"' ]"
got=$(snmpset "${RO[@]}" "$AGENT" $SYSNAME s "not-allowed" 2>&1)
check "the rouser cannot set sysName" \
    bash -c '[[ $1 == *noAccess* || $1 == *notWritable* || $1 == *authorization* ]]' _ "$got"
snmpset "${RW[@]}" "$AGENT" $SYSNAME s "spine-9" > /dev/null 2>&1
check_eq "the rwuser sets sysName" '"spine-9"' "$(get_ro $SYSNAME)"
echo "nodedesc leaf-4" > "$WORK/ctl"
# The FIFO is read in order: once "conf" is answered, the nodedesc before it was applied.
ends=$(grep -c '^conf end$' "$WORK/agent.out")
echo conf > "$WORK/ctl"
check "snmp_testd took the new NodeDescription" \
    wait_lines "$WORK/agent.out" 10 '^conf end$' $((ends + 1))
check_eq "a Set sysName stays when the NodeDescription changes" '"spine-9"' "$(get_ro $SYSNAME)"
# net-snmp keeps a Set sysContact/sysName/sysLocation as a line of the state
# file, read back as configuration: a line break in the value wrote a line
# of its own (here a community for anyone) that the next start obeyed.
INJECT=$(printf 'row 5
rocommunity evil
' | od -An -tx1 | tr -d '\n')
got=$(snmpset "${RW[@]}" "$AGENT" .1.3.6.1.2.1.1.6.0 x "$INJECT" 2>&1)
check "sysLocation with a line break: wrongValue" bash -c '[[ $1 == *wrongValue* ]]' _ "$got"
got=$(snmpset "${RW[@]}" "$AGENT" $SYSNAME x "41 0D 0A 42" 2>&1)
check "sysName with CR LF: wrongValue" bash -c '[[ $1 == *wrongValue* ]]' _ "$got"
got=$(snmpset "${RW[@]}" "$AGENT" .1.3.6.1.2.1.1.4.0 x "6F 70 73 09 78" 2>&1)
check "sysContact with a TAB: wrongValue" bash -c '[[ $1 == *wrongValue* ]]' _ "$got"
check_eq "sysName unchanged by the refused Set" '"spine-9"' "$(get_ro $SYSNAME)"
snmpset "${RW[@]}" "$AGENT" .1.3.6.1.2.1.1.6.0 s "row 5, rack 2" > /dev/null 2>&1
check_eq "the rwuser sets sysLocation" '"row 5, rack 2"' "$(get_ro .1.3.6.1.2.1.1.6.0)"
stop_agent
check "the Set sysName is in the state file" grep -qx 'psysname spine-9' "$WORK/state/portzero-snmp.conf"
check "no line of a refused value is in the state file" \
    bash -c "! grep -q 'rocommunity' '$WORK/state/portzero-snmp.conf'"
check "snmp_testd serves again" start_agent "$WORK/state" "$WORK/agent.conf"
check_eq "a Set sysName is kept across a restart" '"spine-9"' "$(get_ro $SYSNAME)"
check_eq "a Set sysLocation is kept across a restart" '"row 5, rack 2"' "$(get_ro .1.3.6.1.2.1.1.6.0)"
got=$(snmpget -v2c -c evil -t 1 -r 0 -Oqv "$AGENT" $SYSNAME 2>&1)
check "no community 'evil' after the restart" bash -c '[[ $1 == *Timeout* ]]' _ "$got"
stop_agent
echo "sysName leaf-1" >> "$WORK/agent.conf"
check "snmp_testd serves with sysName configured" start_agent "$WORK/state" "$WORK/agent.conf"
check_eq "a configured sysName wins over the stored one" '"leaf-1"' "$(get_ro $SYSNAME)"
got=$(snmpset "${RW[@]}" "$AGENT" $SYSNAME s "spine-9" 2>&1)
check "a configured sysName is read-only (notWritable)" bash -c '[[ $1 == *notWritable* ]]' _ "$got"

# --- sysORTable --------------------------------------------------------------
snmpwalk "${RO[@]}" -OQn "$AGENT" .1.3.6.1.2.1.1.9.1 > "$WORK/sysor" 2>&1
orid() { grep -F " = $1" "$WORK/sysor" | grep '^\.1\.3\.6\.1\.2\.1\.1\.9\.1\.2\.' | sed 's/.*\.\([0-9]*\) = .*/\1/'; }
ifmib=$(orid .1.3.6.1.2.1.31)
pzmib=$(orid .1.3.6.1.4.1.99999)
check "sysORTable lists IF-MIB (ifMIB .1.3.6.1.2.1.31)" test -n "$ifmib"
check "sysORTable lists PORTZERO-MIB (.1.3.6.1.4.1.99999)" test -n "$pzmib"
check_eq "sysORDescr of IF-MIB" \
    '"The MIB module to describe generic objects for network interface sub-layers"' \
    "$(sed -n "s/^\.1\.3\.6\.1\.2\.1\.1\.9\.1\.3\.${ifmib:-x} = //p" "$WORK/sysor")"
check "sysORDescr of PORTZERO-MIB names it" \
    grep -q "^\.1\.3\.6\.1\.2\.1\.1\.9\.1\.3\.${pzmib:-x} = \"The MIB module of portzero" "$WORK/sysor"
check "sysORTable still lists the SNMP framework (SNMPv2-MIB .1.3.6.1.6.3.1)" \
    test -n "$(orid .1.3.6.1.6.3.1)"

# --- ifTableLastChange -----------------------------------------------------------
LASTCHANGE=.1.3.6.1.2.1.31.1.5.0
check_eq "ifTableLastChange.0 = 0 (no row created or deleted since the start)" 0 \
    "$(snmpget "${RO[@]}" -Oqvt "$AGENT" $LASTCHANGE 2>&1)"
check_eq "GETNEXT after ifMIBObjects.2 is ifTableLastChange.0" "$LASTCHANGE" \
    "$(snmpgetnext "${RO[@]}" -OQn "$AGENT" .1.3.6.1.2.1.31.1.2 2>&1 | sed 's/ = .*//')"
echo "unplug 4" > "$WORK/ctl"
check "port 4 goes down" wait_until 5 bash -c "[ \"\$(snmpget ${RO[*]} -Oqv $AGENT $IFT.8.4)\" = 2 ]"
echo "plug 4" > "$WORK/ctl"
check "port 4 comes back up" wait_until 5 bash -c "[ \"\$(snmpget ${RO[*]} -Oqv $AGENT $IFT.8.4)\" = 1 ]"
check "ifLastChange of port 4 moved" test "$(snmpget "${RO[@]}" -Oqvt "$AGENT" "$IFT.9.4")" -gt 0
check_eq "ifTableLastChange.0 stays 0 across the link bounce" 0 \
    "$(snmpget "${RO[@]}" -Oqvt "$AGENT" $LASTCHANGE 2>&1)"
check_eq "ifNumber unchanged" 37 "$(get_ro .1.3.6.1.2.1.2.1.0)"
stop_agent

# --- the shipped views ------------------------------------------------------------
# rows FILE SUBTREE: how many lines of FILE name an object under SUBTREE.
rows() { grep -c "^${2//./\\.}\\." "$1"; }

# check_view NAME FILE: FILE's view, users and community lines (uncommented,
# the example poller 10.0.0.5 made 127.0.0.1) plus a v2c sink and a
# community without a view; what each reads.
check_view() {
    local name=$1 file=$2 dir=$WORK/$1 auth priv c
    mkdir -p "$dir/state"
    sed -nE 's/^#?((view|createUser|rouser|rwuser|rocommunity) .*)/\1/p' "$file" |
        sed 's/10\.0\.0\.5/127.0.0.1/' > "$dir/agent.conf"
    echo "trap2sink 127.0.0.1:$SPARE_PORT sink-community-secret" >> "$dir/agent.conf"
    echo "rocommunity pzfull 127.0.0.1" >> "$dir/agent.conf"
    check "$name: a view line and a community through it" \
        bash -c "grep -q '^view pzread' '$dir/agent.conf' && grep -q '^rocommunity public-ro 127.0.0.1 -V pzread' '$dir/agent.conf'"
    auth=$(sed -nE 's/^createUser nms +SHA-256 +"([^"]*)" AES "([^"]*)".*/\1/p' "$dir/agent.conf")
    priv=$(sed -nE 's/^createUser nms +SHA-256 +"([^"]*)" AES "([^"]*)".*/\2/p' "$dir/agent.conf")
    check "$name serves" start_agent "$dir/state" "$dir/agent.conf"
    snmpbulkwalk -v2c -c public-ro -t 2 -r 1 -Cr50 -OQn "$AGENT" .1 > "$dir/community.walk" 2>&1
    snmpbulkwalk -v3 -l authPriv -u nms -a SHA-256 -A "$auth" -x AES -X "$priv" -t 2 -r 1 -Cr50 -OQn \
        "$AGENT" .1 > "$dir/nms.walk" 2>&1
    snmpbulkwalk -v2c -c pzfull -t 2 -r 1 -Cr50 -OQn "$AGENT" .1 > "$dir/full.walk" 2>&1
    for c in community nms; do
        check_eq "$name, $c: ifName of 37 interfaces" 37 "$(rows "$dir/$c.walk" .1.3.6.1.2.1.31.1.1.1.1)"
        check_eq "$name, $c: ifTableLastChange" 1 "$(rows "$dir/$c.walk" .1.3.6.1.2.1.31.1.5)"
        check_eq "$name, $c: pzIbPortState of 36 ports" 36 "$(rows "$dir/$c.walk" .1.3.6.1.4.1.99999.1.2.1.8)"
        check "$name, $c: sysORTable" test "$(rows "$dir/$c.walk" .1.3.6.1.2.1.1.9.1.2)" -ge 8
        check_eq "$name, $c: snmpEngineBoots" 1 "$(rows "$dir/$c.walk" .1.3.6.1.6.3.10.2.1.2)"
        check "$name, $c: usmStats" test "$(rows "$dir/$c.walk" .1.3.6.1.6.3.15.1.1)" -ge 6
        check_eq "$name, $c: no usmUserTable object" 0 "$(rows "$dir/$c.walk" .1.3.6.1.6.3.15.1.2)"
        check_eq "$name, $c: no VACM object" 0 "$(rows "$dir/$c.walk" .1.3.6.1.6.3.16)"
        check_eq "$name, $c: no SNMP-TARGET-MIB object" 0 "$(rows "$dir/$c.walk" .1.3.6.1.6.3.12)"
        check "$name, $c: the sink's community is nowhere" \
            bash -c "! grep -q sink-community-secret '$dir/$c.walk'"
    done
    # Without the view the same agent shows them all: the checks above can fail.
    check "$name, no view: usmUserTable rows" test "$(rows "$dir/full.walk" .1.3.6.1.6.3.15.1.2)" -gt 0
    check "$name, no view: VACM rows" test "$(rows "$dir/full.walk" .1.3.6.1.6.3.16)" -gt 0
    check "$name, no view: the sink's community (snmpTargetParamsSecurityName)" \
        grep -q '^\.1\.3\.6\.1\.6\.3\.12\.1\.3\.1\.4\..* = "sink-community-secret"$' "$dir/full.walk"
    stop_agent
}
check_view example "$SRC/snmp/portzero-snmp.conf.example"
check_view image "$SRC/image/snmp.conf"
