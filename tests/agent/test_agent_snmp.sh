#!/bin/bash
# test_agent_snmp.sh - portzerod's SNMP agent on its IPoIB address, reached
# from an emulated host's network namespace (pz-iphost) across pzfabric with
# real OpenSM, by real net-snmp tools:
#   - SNMPv3 authPriv (SHA-256/AES) reads sysDescr, sysLocation, ifNumber,
#     ifName, ifType; a wrong password and an unknown community get nothing;
#     sysName is the switch's NodeDescription (smpquery nodedesc);
#     ifTableLastChange is 0;
#   - ifOperStatus of a cabled and an uncabled port; the IPoIB interface row
#     (up, MTU 2044; broadcast pings counted as broadcast, not unicast);
#   - ifHCOutOctets of the host's port = 4 x perfquery's PortXmitData, read
#     between two SNMP reads (the counters move: the SNMP answers cross it);
#   - PORTZERO-MIB: the switch's LID and master SM LID as smpquery has them;
#     pzRouteCheck: 0 before, then the CLI's `route check` numbers;
#   - snmptrapd in the namespace receives linkDown/linkUp when a cable is
#     pulled and plugged (pzfabric-ctl), and coldStart, each with the
#     switch's sysObjectID as snmpTrapEnterprise.0;
#   - ifAdminStatus down (rwuser) disables the port (smpquery sees
#     PhysLinkState Disabled), up restores it; the read-only user is refused;
#   - portzerod restarts: engineBoots went up by one (state_dir kept).
# On a 36-port switch (tests/integration/ft-36port.net, leaf-2), also:
#   - snmpbulkwalk (authPriv) of ifXTable: IB1/1..IB1/36 + the IPoIB row;
#     ifHighSpeed of an active port = lanes x rate from smpquery portinfo;
#   - v2c with the configured rocommunity (the namespace's subnet) works;
#     an unknown user, a wrong auth key, noAuthNoPriv against the authPriv
#     user get no value, usmStatsUnknownUserNames / usmStatsWrongDigests
#     rise, and what authenticationFailure traps snmptrapd gets is checked;
#   - coldStart reaches snmptrapd when the agent starts after it (restart);
#     linkDown/linkUp within 2 s of pzfabric-ctl link-down/up; an
#     ifOperStatus read right after the change comes with its ifLastChange;
#   - perfquery -R on the host's port: ifHCOutOctets never steps back;
#   - bad input (random, truncated, mutated datagrams; GETBULK with
#     max-repetitions 10000; a 128-sub-identifier OID): the next good
#     request is answered, the agent lives, no sanitizer report;
#   - an answer too long for the IP plane's UDP port: tooBig (v1, v2c, v3),
#     snmpOutTooBigs counts it; sysServices has its value.
# Usage: test_agent_snmp.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
ai_init_one agentsnmp "$1" "$2"
pzt_paths "test_agent_snmp.sh PZIPHOST PORTZEROD PZCLI" "${@:3}"
pzt_require opensm ping ip snmpget snmpwalk snmpbulkwalk snmpbulkget snmpset snmptrapd perfquery smpquery python3
pzt_require_preload
NET=$(abspath "$(dirname "$0")/../integration/ft-36port.net")
SW=leaf-2 # 36 ports: host-2-1 (the host) hangs at port 1, host-2-2 at port 2
SM=host-1-1
HOSTCA=host-2-1
DR=0,1,3,3 # SM -> leaf-1 -> spine-1 -> leaf-2
HP=1       # the host's port
OP=2       # the other host's port (cable pulled and plugged)
NPORTS=36
SWADDR=10.81.0.4
ai_switch "$SW" "$SWADDR"
HOSTADDR=10.81.0.100
HOST_PID='' TRAPD_PID=''
AI_PID_VARS=(TRAPD_PID) # stopped on exit before the host and the agent (ai_cleanup)
RO=("${PZT_SNMP_RO[@]}" -t 3 -r 2)
RW=("${PZT_SNMP_RW[@]}" -t 3 -r 2)
IFT=.1.3.6.1.2.1.2.2.1
IFX=.1.3.6.1.2.1.31.1.1.1
PZ=.1.3.6.1.4.1.99999

{
    pzt_snmp_users
    echo 'sysLocation emulated rack 1'
    echo "trap2sink $HOSTADDR:162 pztrap"
    echo 'rocommunity pzpublic 10.81.0.0/24'
    echo 'authtrapenable 1'
} > "$WORK/snmp.conf"

AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf")
get() { in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" "$@" 2>&1; }
# wait_trap SECONDS REGEX [COUNT]: until trapd.log has COUNT lines from the switch with REGEX.
# (%b of snmptrapd: "UDP: [10.81.0.4]:161->[10.81.0.100]:162")
wait_trap() { wait_lines "$WORK/trapd.log" "$1" "\\[$SWADDR\\].*$2" "${3:-1}"; }
traps() { grep -cE "\\[$SWADDR\\].*$1" "$WORK/trapd.log" 2> /dev/null; }
COLD='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.1([^0-9]|$)'
AUTHF='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.5([^0-9]|$)'
SPI=$(abspath "$(dirname "$0")/snmp_raw.py")

fl_start_fabric --agent "$SW" "$NET" || exit 1
start_agent "$SW"
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "${AGENT[$SW]}"
check "portzerod logs its SNMP agent" grep -q "snmp: agent on UDP 161" "$WORK/agent/err"
fl_start_opensm "$SM"
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined "$SW"

fl_start_host "$HOSTCA" "$HOSTADDR/24"
echo "disableAuthorization yes" > "$WORK/trapd.conf"
ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd" snmptrapd -f -C -c "$WORK/trapd.conf" -m '' \
    -On -Lf "$WORK/trapd.log" -F '%b|%V|%v\n' "udp:$HOSTADDR:162" < /dev/null &
TRAPD_PID=$!
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"

check "v3 authPriv: sysDescr names portzero" grep -qi portzero <<< "$(get .1.3.6.1.2.1.1.1.0)"
check_eq "sysLocation from the config" '"emulated rack 1"' "$(get .1.3.6.1.2.1.1.6.0)"
check_eq "sysServices 74 (subnetwork + end-to-end + applications)" 74 "$(get .1.3.6.1.2.1.1.7.0)"
nodedesc=$(diag "$SM" smpquery -D nodedesc "$DR" | sed -n 's/^Node Description:\.*//p')
check_eq "sysName is $SW's NodeDescription (smpquery nodedesc)" "\"$nodedesc\"" \
    "$(get .1.3.6.1.2.1.1.5.0)"
check_eq "ifTableLastChange 0 (no ifTable row created or deleted)" 0 \
    "$(get -Ot .1.3.6.1.2.1.31.1.5.0)"
check_eq "ifNumber: $NPORTS ports + the IPoIB interface" $((NPORTS + 1)) "$(get .1.3.6.1.2.1.2.1.0)"
check_eq "ifName.$HP" "\"IB1/$HP\"" "$(get "$IFX.1.$HP")"
check_eq "ifType.$HP infiniband(199)" 199 "$(get "$IFT.3.$HP")"
check_eq "ifOperStatus.$HP ($HOSTCA's cable) up" 1 "$(get "$IFT.8.$HP")"
check_eq "ifOperStatus.7 (no cable) down" 2 "$(get "$IFT.8.7")"
check_eq "ifOperStatus.$((NPORTS + 1)) (the IPoIB interface) up" 1 "$(get "$IFT.8.$((NPORTS + 1))")"
check_eq "ifMtu.$((NPORTS + 1)) (the IPoIB interface) 2044" 2044 "$(get "$IFT.4.$((NPORTS + 1))")"
# The IPoIB row counts the IP plane's packets: 5 pings to the subnet broadcast
# reach it through the broadcast group, broadcast packets, not unicast ones.
MIF=$((NPORTS + 1))
read -r uc0 bc0 <<< "$(get "$IFT.11.$MIF" "$IFX.9.$MIF" | paste -sd' ')"
in_ns ping -b -c 5 -i 0.2 -W 1 10.81.0.255 > /dev/null 2>&1
read -r uc1 bc1 nu1 <<< "$(get "$IFT.11.$MIF" "$IFX.9.$MIF" "$IFT.12.$MIF" | paste -sd' ')"
check_eq "ifHCInBroadcastPkts.$MIF: the 5 broadcast pings" $((bc0 + 5)) "$bc1"
check "ifInUcastPkts.$MIF: only the GET between ($uc0 -> $uc1)" test $((uc1 - uc0)) -ge 1 -a $((uc1 - uc0)) -lt 5
check "ifInNUcastPkts.$MIF includes them ($nu1)" test "$nu1" -ge "$bc1"

# ifXTable of the 36-port switch, one authPriv snmpbulkwalk.
in_ns snmpbulkwalk "${RO[@]}" -On "$SWADDR" "$IFX" > "$WORK/ifx.walk" 2>&1
names=$(sed -n "s/^$IFX\.1\.\([0-9]*\) = STRING: \"*\([^\"]*\)\"*$/\1 \2/p" "$WORK/ifx.walk")
want=$(for p in $(seq "$NPORTS"); do echo "$p IB1/$p"; done)
check_eq "bulkwalk ifXTable: ifName of ports 1..$NPORTS" "$want" "$(head -n "$NPORTS" <<< "$names")"
check "bulkwalk ifXTable: row $((NPORTS + 1)) is the IPoIB interface" \
    test "$(sed -n "$((NPORTS + 1))p" <<< "$names" | cut -d' ' -f1)" = $((NPORTS + 1))
check_eq "bulkwalk ifXTable: $((NPORTS + 1)) ifHCOutOctets" $((NPORTS + 1)) \
    "$(grep -c "^$IFX\.10\." "$WORK/ifx.walk")"
# ifHighSpeed = lanes x lane signalling rate (snmp/README.md), from smpquery portinfo.
pi=$(diag "$SM" smpquery -D portinfo "$DR" "$HP")
pif() { sed -n "s/^$1:\.*\([0-9.]*\).*/\1/p" <<< "$pi"; } # "LinkSpeedActive:....10.0 Gbps"
lanes=$(pif LinkWidthActive)
rate=$(pif LinkSpeedActive)
ext=$(pif LinkSpeedExtActive)
case "$ext" in "" | 0 | 0.0) ;; *) rate=$ext ;; esac
mbs=$(awk -v l="$lanes" -v r="$rate" 'BEGIN { printf "%.0f", l * r * 1000 }')
note "smpquery: port $HP ${lanes}x at $rate Gb/s"
check_eq "ifHighSpeed.$HP = ${lanes} lanes x $rate Gb/s" "$mbs" \
    "$(sed -n "s/^$IFX\.15\.$HP = Gauge32: //p" "$WORK/ifx.walk")"

# v2c with the configured read-only community (limited to 10.81.0.0/24).
check "v2c rocommunity pzpublic: sysDescr" \
    grep -qi portzero <<< "$(in_ns snmpget -v2c -c pzpublic -t 2 -r 1 -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)"
check_eq "v2c rocommunity pzpublic: ifName.$NPORTS" "\"IB1/$NPORTS\"" \
    "$(in_ns snmpget -v2c -c pzpublic -t 2 -r 1 -Oqv "$SWADDR" "$IFX.1.$NPORTS" 2>&1)"
# no_value NAME SNMPGET-OPTION...: sysDescr.0 asked with these options gets no value.
no_value() {
    local name=$1 out
    shift
    out=$(in_ns snmpget "$@" -t 1 -r 0 -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)
    check "$name gets no value" bash -c '! grep -qi portzero <<< "$1"' _ "$out"
}
no_value "v2c community 'public' (not configured)" -v2c -c public
check "v2c wrong community: authenticationFailure trap" wait_trap 5 "$AUTHF"

# SNMPv3 failures: no data, the usmStats counters rise.
UNKNOWN=.1.3.6.1.6.3.15.1.1.3.0
WRONGDIG=.1.3.6.1.6.3.15.1.1.5.0
u0=$(get $UNKNOWN)
w0=$(get $WRONGDIG)
a0=$(traps "$AUTHF")
no_value "v3 unknown user" -v3 -l authPriv -u nosuchuser -a SHA-256 -A readauthpass1 -x AES -X readprivpass1
u1=$(get $UNKNOWN)
sleep 0.5
a1=$(traps "$AUTHF")
check "usmStatsUnknownUserNames rose ($u0 -> $u1)" test "$u1" -gt "$u0"
no_value "v3 wrong auth key" -v3 -l authPriv -u pzro -a SHA-256 -A wrongpassword1 -x AES -X readprivpass1
w1=$(get $WRONGDIG)
sleep 0.5
a2=$(traps "$AUTHF")
check "usmStatsWrongDigests rose ($w0 -> $w1)" test "$w1" -gt "$w0"
no_value "v3 noAuthNoPriv as the authPriv user" -v3 -l noAuthNoPriv -u pzro
sleep 0.5
a3=$(traps "$AUTHF")
note "authenticationFailure traps from net-snmp: unknown user $((a1 - a0)), wrong auth key $((a2 - a1)), noAuthNoPriv $((a3 - a2))"
check "v3 wrong auth key: an authenticationFailure trap reaches snmptrapd" test "$a2" -gt "$a1"

# The octet counters against the PMA as perfquery reads it.
LID=$(diag "$SM" smpquery -D portinfo "$DR" 0 | awk -F. '/^Lid/ { print $NF }')
before=$(get "$IFX.10.$HP")
xmit=$(diag "$SM" perfquery -x "$LID" "$HP" | awk -F. '/^PortXmitData/ { print $NF }')
sleep 0.1 # a read of a port's counters serves requests for 50 ms (snmp/README.md)
after=$(get "$IFX.10.$HP")
check "ifHCOutOctets.$HP ($before .. $after) brackets 4 x PortXmitData ($((xmit * 4)))" \
    test "$before" -le $((xmit * 4)) -a $((xmit * 4)) -le "$after"
check_eq "PORTZERO-MIB pzSwitchLid = smpquery's LID" "$LID" "$(get "$PZ.1.1.1.0")"
check_eq "PORTZERO-MIB pzMasterSmLid = smpquery's SMLid" \
    "$(diag "$SM" smpquery -D portinfo "$DR" 0 | awk -F. '/^SMLid/ { print $NF }')" \
    "$(get "$PZ.1.1.2.0")"
# PORTZERO-MIB pzRouteCheck: nothing before a check, then what
# the CLI's `route check` (the agent's SA client) found.
check_eq "pzRouteCheckTime is 0 before any route check" 0 "$(get "$PZ.1.7.1.0")"
cli "$SW" route check json > "$WORK/routes.json" 2>&1 || true
rc_cli=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
print(d["switches"], d["pairs"], d["unrouted"], 1 if d["cycle"] else 2)' "$WORK/routes.json" 2>&1)
check_eq "pzRouteCheck switches, pairs, unrouted, cycle = the CLI's route check ($rc_cli)" \
    "$rc_cli" "$(get "$PZ.1.7.2.0" "$PZ.1.7.3.0" "$PZ.1.7.4.0" "$PZ.1.7.5.0" | paste -sd' ')"
rc_age=$(($(date +%s) - $(get "$PZ.1.7.1.0")))
check "pzRouteCheckTime is the check's time ($rc_age s ago)" test "$rc_age" -ge 0 -a "$rc_age" -le 30

# perfquery -R clears the PMA's PortCounters of the host's port: ifHC* never step back.
hc0=$(get "$IFX.10.$HP")
diag "$SM" perfquery -R "$LID" "$HP" > /dev/null 2>&1
x1=$(diag "$SM" perfquery -x "$LID" "$HP" | awk -F. '/^PortXmitData/ { print $NF }')
check "perfquery -R cleared PortXmitData ($((x1 * 4)) < $hc0 octets)" test $((x1 * 4)) -lt "$hc0"
hc1=$(get "$IFX.10.$HP")
hc2=$(get "$IFX.10.$HP")
check "ifHCOutOctets.$HP never steps back across perfquery -R ($hc0 <= $hc1 <= $hc2)" \
    test "$hc0" -le "$hc1" -a "$hc1" -le "$hc2" -a "$hc0" -lt "$hc2"
in0=$(get "$IFX.6.$HP")
check "ifHCInOctets.$HP did not step back either" test "$(get "$IFX.6.$HP")" -ge "$in0"

# Traps: host-2-2's cable pulled and plugged; each trap sent by the scan that
# saw the change, timed by the agent's own clock (see link_trap).
LDOWN='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.3\|.*\.1\.3\.6\.1\.2\.1\.2\.2\.1\.1\.'$OP' '
LUP='\.1\.3\.6\.1\.6\.3\.1\.1\.5\.4\|.*\.1\.3\.6\.1\.2\.1\.2\.2\.1\.1\.'$OP' '
# trap_uptime REGEX: the sysUpTime.0 (ticks) of the last trap from the switch with REGEX.
trap_uptime() {
    grep -E "\\[$SWADDR\\].*$1" "$WORK/trapd.log" | tail -n 1 |
        sed -n 's/.*\.1\.3\.6\.1\.2\.1\.1\.3\.0 = Timeticks: (\([0-9]*\)).*/\1/p'
}
# link_trap NAME REGEX CTL-ACTION: pzfabric-ctl CTL-ACTION on port $OP; its trap NAME
# (REGEX) reaches snmptrapd.  Read in one request right after the action: an
# ifOperStatus that changed has an ifLastChange from after the action
# (sysUpTime before it), not the time of the state before.  The trap's
# latency is measured by the agent's clock, not the test's: its sysUpTime
# is at or after the action's (u0), and at most one scan period (the scan
# runs at least every second: 100 ticks) after the sysUpTime of the first
# request that read the new ifOperStatus (us).
link_trap() {
    local name=$1 re=$2 action=$3 n o0 u0 o1 l1 u1 tu us os deadline=$((SECONDS + 30))
    n=$(traps "$re")
    read -r u0 o0 _ <<< "$(get -Ot .1.3.6.1.2.1.1.3.0 "$IFT.8.$OP" | paste -sd' ')"
    ctl "$action" "$SW" "$OP" > /dev/null
    read -r u1 o1 l1 <<< "$(get -Ot .1.3.6.1.2.1.1.3.0 "$IFT.8.$OP" "$IFT.9.$OP" | paste -sd' ')"
    if [ "$o1" != "$o0" ]; then
        check "$action: ifOperStatus.$OP $o0 -> $o1 with ifLastChange $l1 in [$u0, $u1]" \
            test "$l1" -ge "$u0" -a "$l1" -le "$u1"
    fi
    us=$u1 os=$o1
    while [ "$os" = "$o0" ] && ((SECONDS < deadline)); do
        sleep 0.05
        read -r us os <<< "$(get -Ot .1.3.6.1.2.1.1.3.0 "$IFT.8.$OP" | paste -sd' ')"
    done
    check "snmptrapd: $name of ifIndex $OP from $SWADDR" wait_trap 30 "$re" $((n + 1))
    tu=$(trap_uptime "$re")
    check "$name: sysUpTime ${tu:-?} at or after the action's ($u0), within a scan period (100 ticks) of the first read of the new state ($us)" \
        test "${tu:-0}" -ge "$u0" -a "${tu:-0}" -le $((us + 100))
}
link_trap linkDown "$LDOWN" link-down
link_trap linkUp "$LUP" link-up
# Their enterprise is the switch's sysObjectID, not net-snmp's Linux agent OID.
# trap_enterprise REGEX: the newest such notification has snmpTrapEnterprise.0 = pzSwitchAgent.
trap_enterprise() {
    grep -E "\\[$SWADDR\\].*$1" "$WORK/trapd.log" | tail -n 1 |
        grep -qF ".1.3.6.1.6.3.1.1.4.3.0 = OID: $PZ.2.1"
}
check "linkDown: snmpTrapEnterprise.0 = sysObjectID $PZ.2.1" trap_enterprise "$LDOWN"
check "linkUp: snmpTrapEnterprise.0 = sysObjectID $PZ.2.1" trap_enterprise "$LUP"

# ifAdminStatus: the read-only user is refused, the admin takes port $OP down and up.
ro_set=$(in_ns snmpset "${RO[@]}" "$SWADDR" "$IFT.7.$OP" i 2 2>&1)
check "ifAdminStatus set refused to the read-only user" \
    grep -qiE "noAccess|notWritable|authorization" <<< "$ro_set"
in_ns snmpset "${RW[@]}" "$SWADDR" "$IFT.7.$OP" i 2 > /dev/null 2>&1
phys() { diag "$SM" smpquery -D portinfo "$DR" "$OP" | awk -F. '/^PhysLinkState/ { print $NF }'; }
check "ifAdminStatus.$OP down: smpquery sees port $OP Disabled" grep -q Disabled <<< "$(phys)"
check_eq "ifAdminStatus.$OP reads down(2)" 2 "$(get "$IFT.7.$OP")"
in_ns snmpset "${RW[@]}" "$SWADDR" "$IFT.7.$OP" i 1 > /dev/null 2>&1
linkup() { grep -q LinkUp <<< "$(phys)"; }
check "ifAdminStatus.$OP up: port $OP comes back (LinkUp)" wait_until 20 linkup

# Bad input over the fabric.
in_ns python3 "$SPI" fuzz "$SWADDR" pzpublic > "$WORK/fuzz.out" 2>&1
note "bad input: $(tr '\n' ' ' < "$WORK/fuzz.out")"
check "after random/truncated/mutated datagrams the next good GET is answered" \
    grep -q '^answer .*ortzero' "$WORK/fuzz.out"
bulk=$(in_ns snmpbulkget "${RO[@]}" -On -Cn0 -Cr10000 "$SWADDR" "$IFT" 2>&1)
check "GETBULK max-repetitions 10000: an answer, as many rows as fit ($(wc -l <<< "$bulk"))" \
    test "$(grep -c "^$IFT\." <<< "$bulk")" -gt 10
# Answers longer than the IP plane's UDP port can send (4064 bytes): a GET of
# 100 x sysDescr.0 (about 5.7 KB of answer) gets tooBig in v1, v2c and v3, not
# silence; 60 of them (3.4 KB, a fragmented datagram) are all answered.
sysdescrs() { printf ' .1.3.6.1.2.1.1.1.0%.0s' $(seq "$1"); }
toobig0=$(get .1.3.6.1.2.1.11.20.0)
# shellcheck disable=SC2046,SC2086 # $v: options; one OID per word
for v in "-v1 -c pzpublic" "-v2c -c pzpublic" "${RO[*]}"; do
    big=$(in_ns snmpget $v -t 3 -r 1 "$SWADDR" $(sysdescrs 100) 2>&1)
    check "GET of 100 x sysDescr.0 (${v%% *}): tooBig" grep -q '(tooBig)' <<< "$big" || head -n 3 <<< "$big"
done
check_eq "snmpOutTooBigs rose by 3" $((toobig0 + 3)) "$(get .1.3.6.1.2.1.11.20.0)"
# shellcheck disable=SC2046
check_eq "GET of 60 x sysDescr.0 (v2c): 60 values" 60 \
    "$(in_ns snmpget -v2c -c pzpublic -t 3 -r 1 -Oqv "$SWADDR" $(sysdescrs 60) 2>&1 | grep -c portzero)"
deep=.1.3.6.1.2.1.1$(printf '.1%.0s' $(seq 121))
deep_out=$(in_ns snmpget "${RO[@]}" "$SWADDR" "$deep" 2>&1)
check "128-sub-identifier OID: No Such Object/Instance" grep -qE "No Such (Object|Instance)" <<< "$deep_out"
check "the agent is alive" kill -0 "${AGENT[$SW]}"
check "v3 GET after the bad input" grep -qi portzero <<< "$(get .1.3.6.1.2.1.1.1.0)"

# engineBoots across a restart (state_dir kept); the restarted agent starts
# after snmptrapd: its coldStart must arrive (once the IP plane is up).
boots=$(get .1.3.6.1.6.3.10.2.1.2.0)
c0=$(traps "$COLD")
stop_pid "${AGENT[$SW]}"
AGENT[$SW]=
check "pzfabric saw the agent go" wait_file "$WORK/fabric.err" 10 "switch $SW lost its agent"
start_agent "$SW"
check "restarted portzerod ready" wait_lines "$WORK/agent/out" 20 '^ready$' 2
check "$SW joins again" wait_until 60 joined "$SW" || cli "$SW" show ip
got_boots() { test "$(get .1.3.6.1.6.3.10.2.1.2.0)" = $((boots + 1)); }
check "engineBoots went up by one ($boots -> $((boots + 1)))" wait_until 30 got_boots
check "snmptrapd: coldStart from the restarted agent" wait_trap 5 "$COLD" $((c0 + 1))
check_eq "exactly one coldStart per start" $((c0 + 1)) "$(traps "$COLD")"
check "coldStart: snmpTrapEnterprise.0 = sysObjectID $PZ.2.1" trap_enterprise "$COLD"
check "the state directory is private (0700)" test "$(stat -c %a "$WORK/state")" = 700

stop_pid "${AGENT[$SW]}"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=
check "no sanitizer report" bash -c "! grep -q Sanitizer '$WORK/agent/err'"
fl_finish
