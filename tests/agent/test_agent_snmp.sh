#!/bin/bash
# test_agent_snmp.sh - portzerod's SNMP agent on its IPoIB address, reached
# from an emulated host's network namespace (pz-iphost) across pzfabric with
# real OpenSM, by real net-snmp tools:
#   - SNMPv3 authPriv (SHA-256/AES) reads sysDescr, sysLocation, ifNumber,
#     ifName, ifType; a wrong password and an unknown community get nothing;
#   - ifOperStatus of a cabled and an uncabled port; the IPoIB interface row
#     (up, MTU 2044);
#   - ifHCOutOctets of the host's port = 4 x perfquery's PortXmitData, read
#     between two SNMP reads (the counters move: the SNMP answers cross it);
#   - PORTZERO-MIB: the switch's LID and master SM LID as smpquery has them;
#   - snmptrapd in the namespace receives linkDown/linkUp when a cable is
#     pulled and plugged (pzfabric-ctl);
#   - ifAdminStatus down (rwuser) disables the port (smpquery sees
#     PhysLinkState Disabled), up restores it; the read-only user is refused;
#   - portzerod restarts: engineBoots went up by one (state_dir kept).
# Usage: test_agent_snmp.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
# shellcheck source=../fabric/fabric_lib.sh
source "$(dirname "$0")/../fabric/fabric_lib.sh"
fl_init agentsnmp "$1" "$2"
PZIPHOST=$(abspath "$3")
PORTZEROD=$(abspath "$4")
PZCLI=$(abspath "$5")
pzt_require opensm ping ip snmpget snmpwalk snmpset snmptrapd perfquery smpquery
pzt_require_preload
NET=$(abspath "$(dirname "$0")/../integration/ft-2s4l.net")
NS="pzt-$$-snmp"
SW=Leaf2 # Hca3 (the host) hangs at its port 3, Hca4 at port 4
SWADDR=10.81.0.4
HOSTADDR=10.81.0.100
AGENT=
HOST_PID=
TRAPD_PID=
RO=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 3 -r 2)
RW=(-v3 -l authPriv -u pzadmin -a SHA-256 -A adminauthpass1 -x AES -X adminprivpass1 -t 3 -r 2)
IFT=.1.3.6.1.2.1.2.2.1
IFX=.1.3.6.1.2.1.31.1.1.1
PZ=.1.3.6.1.4.1.99999

snmp_cleanup() {
    local rc=$?
    [ -z "$TRAPD_PID" ] || stop_pid "$TRAPD_PID"
    [ -z "$HOST_PID" ] || stop_pid "$HOST_PID"
    [ -z "$AGENT" ] || stop_pid "$AGENT"
    ip netns delete "$NS" 2> /dev/null
    (exit "$rc")
    fl_cleanup
}
trap snmp_cleanup EXIT

{
    echo 'createUser pzadmin SHA-256 "adminauthpass1" AES "adminprivpass1"'
    echo 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"'
    echo 'rwuser pzadmin priv'
    echo 'rouser pzro priv'
    echo 'sysLocation emulated rack 1'
    echo "trap2sink $HOSTADDR:162 pztrap"
} > "$WORK/snmp.conf"

start_agent() {
    mkdir -p "$WORK/agent"
    (cd "$WORK/agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$SW IBSIM_SOCKNAME=$SOCK exec "$PORTZEROD" \
        -o board=sim -o "ip_address=$SWADDR/24" -o "ctl_socket=$WORK/agent/ctl" \
        -o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf" -vv \
        >> "$WORK/agent/out" 2>> "$WORK/agent/err" < /dev/null) &
    AGENT=$!
}
in_ns() { ip netns exec "$NS" "$@"; }
get() { in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" "$@" 2>&1; }
joined() { "$PZCLI" -s "$WORK/agent/ctl" show ip 2> /dev/null | grep -q '^IPoIB state *up'; }

fl_start_fabric --agent "$SW" "$NET" || exit 1
start_agent
check "portzerod ready" wait_file "$WORK/agent/out" 20 '^ready$' "$AGENT"
check "portzerod logs its SNMP agent" grep -q "snmp: agent on UDP 161" "$WORK/agent/err"
fl_start_opensm Hca1
fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; exit 1; }
check "$SW joins the broadcast group" wait_until 30 joined

"$PZIPHOST" --sockname "$SOCK" --ca Hca3 --address "$HOSTADDR/24" --netns "$NS" \
    > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
HOST_PID=$!
check "pz-iphost ready" wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID"
echo "disableAuthorization yes" > "$WORK/trapd.conf"
ip netns exec "$NS" env SNMP_PERSISTENT_DIR="$WORK/trapd" snmptrapd -f -C -c "$WORK/trapd.conf" -m '' \
    -On -Lf "$WORK/trapd.log" -F '%b|%V|%v\n' "udp:$HOSTADDR:162" < /dev/null &
TRAPD_PID=$!
check "ping $SW" wait_until 20 in_ns ping -c 1 -W 1 "$SWADDR"

check "v3 authPriv: sysDescr names portzero" grep -qi portzero <<< "$(get .1.3.6.1.2.1.1.1.0)"
check_eq "sysLocation from the config" '"emulated rack 1"' "$(get .1.3.6.1.2.1.1.6.0)"
check_eq "ifNumber: 8 ports + the IPoIB interface" 9 "$(get .1.3.6.1.2.1.2.1.0)"
check_eq "ifName.3" '"IB1/3"' "$(get "$IFX.1.3")"
check_eq "ifType.3 infiniband(199)" 199 "$(get "$IFT.3.3")"
check_eq "ifOperStatus.3 (Hca3's cable) up" 1 "$(get "$IFT.8.3")"
check_eq "ifOperStatus.7 (no cable) down" 2 "$(get "$IFT.8.7")"
check_eq "ifOperStatus.9 (the IPoIB interface) up" 1 "$(get "$IFT.8.9")"
check_eq "ifMtu.9 (the IPoIB interface) 2044" 2044 "$(get "$IFT.4.9")"
bad=$(in_ns snmpget -v3 -l authPriv -u pzro -a SHA-256 -A wrongpassword1 -x AES -X readprivpass1 \
    -t 1 -r 0 -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)
check "a wrong password gets no value" bash -c "! grep -qi portzero <<< '$bad'"
bad=$(in_ns snmpget -v2c -c public -t 1 -r 0 -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)
check "community 'public' (none configured) gets no value" bash -c "! grep -qi portzero <<< '$bad'"

# The octet counters against the PMA as perfquery reads it.
LID=$(diag Hca1 smpquery -D portinfo 0,1,1,2 0 | awk -F. '/^Lid/ { print $NF }')
before=$(get "$IFX.10.3")
xmit=$(diag Hca1 perfquery -x "$LID" 3 | awk -F. '/^PortXmitData/ { print $NF }')
after=$(get "$IFX.10.3")
check "ifHCOutOctets.3 ($before .. $after) brackets 4 x PortXmitData ($((xmit * 4)))" \
    test "$before" -le $((xmit * 4)) -a $((xmit * 4)) -le "$after"
check_eq "PORTZERO-MIB pzSwitchLid = smpquery's LID" "$LID" "$(get "$PZ.1.1.1.0")"
check_eq "PORTZERO-MIB pzMasterSmLid = smpquery's SMLid" \
    "$(diag Hca1 smpquery -D portinfo 0,1,1,2 0 | awk -F. '/^SMLid/ { print $NF }')" \
    "$(get "$PZ.1.1.2.0")"

# Traps: Hca4's cable (port 4) pulled and plugged.
ctl link-down "$SW" 4 > /dev/null
check "snmptrapd: linkDown from $SWADDR" \
    wait_file "$WORK/trapd.log" 15 "$SWADDR.*\.1\.3\.6\.1\.6\.3\.1\.1\.5\.3"
ctl link-up "$SW" 4 > /dev/null
check "snmptrapd: linkUp from $SWADDR" \
    wait_file "$WORK/trapd.log" 30 "$SWADDR.*\.1\.3\.6\.1\.6\.3\.1\.1\.5\.4"

# ifAdminStatus: the read-only user is refused, the admin takes port 4 down and up.
ro_set=$(in_ns snmpset "${RO[@]}" "$SWADDR" "$IFT.7.4" i 2 2>&1)
check "ifAdminStatus set refused to the read-only user" \
    grep -qiE "noAccess|notWritable|authorization" <<< "$ro_set"
in_ns snmpset "${RW[@]}" "$SWADDR" "$IFT.7.4" i 2 > /dev/null 2>&1
phys() { diag Hca1 smpquery -D portinfo 0,1,1,2 4 | awk -F. '/^PhysLinkState/ { print $NF }'; }
check "ifAdminStatus.4 down: smpquery sees port 4 Disabled" grep -q Disabled <<< "$(phys)"
check_eq "ifAdminStatus.4 reads down(2)" 2 "$(get "$IFT.7.4")"
in_ns snmpset "${RW[@]}" "$SWADDR" "$IFT.7.4" i 1 > /dev/null 2>&1
linkup() { grep -q LinkUp <<< "$(phys)"; }
check "ifAdminStatus.4 up: port 4 comes back (LinkUp)" wait_until 20 linkup

# engineBoots across a restart (state_dir kept).
boots=$(get .1.3.6.1.6.3.10.2.1.2.0)
stop_pid "$AGENT"
AGENT=
check "pzfabric saw the agent go" wait_file "$WORK/fabric.err" 10 "switch $SW lost its agent"
start_agent
check "restarted portzerod ready" wait_lines "$WORK/agent/out" 20 '^ready$' 2
check "$SW joins again" wait_until 60 joined || "$PZCLI" -s "$WORK/agent/ctl" show ip
got_boots() { test "$(get .1.3.6.1.6.3.10.2.1.2.0)" = $((boots + 1)); }
check "engineBoots went up by one ($boots -> $((boots + 1)))" wait_until 30 got_boots
check "the state directory is private (0700)" test "$(stat -c %a "$WORK/state")" = 700

stop_pid "$AGENT"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT=
check "no sanitizer report" bash -c "! grep -q Sanitizer '$WORK/agent/err'"
fl_finish
