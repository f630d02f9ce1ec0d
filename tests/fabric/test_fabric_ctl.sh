#!/bin/bash
# test_fabric_ctl.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL - pzfabric-ctl.
#
# On ibsim's net.2sw2path4hca: status before and after OpenSM; clear errors
# (non-zero exit) for unknown nodes and ports, ports without a cable, bad
# numbers, unknown commands, and when no pzfabric runs; malformed requests
# on the socket (pzctl_abuse) do not hurt pzfabric.  Then, with OpenSM
# running: link-down Switch1 2 takes both ends of the Hca3 cable Down /
# Polling, the switch sends Trap 128 (OpenSM logs it), Hca3 is unreachable;
# link-up brings them back to Active through OpenSM's sweep (a second
# Trap 128).  drop-rate 100 makes queries fail and counts losses, a partial
# rate loses some, 0 none.  pzfabric exits 0 on SIGTERM.
set -euo pipefail

# shellcheck source=tests/fabric/fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
PZCTL_ABUSE=$(abspath "${3:?usage: test_fabric_ctl.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL}")
fl_init ctl "$1" "$2"
pzt_require opensm smpquery
fl_example_net net.2sw2path4hca

# port_field LID PORT FIELD: a PortInfo field as smpquery prints it (from Hca2).
port_field() {
    diag Hca2 smpquery portinfo "$1" "$2" | sed -n "s/^$3:\.*//p"
}

# port_state_is LID PORT STATE: whether the port's LinkState is STATE.
port_state_is() { [ "$(port_field "$1" "$2" LinkState)" = "$3" ]; }

# --- without pzfabric ---------------------------------------------------------
rc=0
ctl status > /dev/null 2> "$WORK/ctl.err" || rc=$?
check "no pzfabric: exit status 2" test "$rc" = 2
check "no pzfabric: cannot reach" grep -q "cannot reach pzfabric" "$WORK/ctl.err"
rc=0
"$PZCTL" > /dev/null 2>&1 || rc=$?
check "no command: exit status 2 (usage)" test "$rc" = 2

# --- status and errors before OpenSM -------------------------------------------
fl_start_fabric "$NET"
ctl status > "$WORK/status0.txt"
check_eq "status: nodes switches cas links up down clients" "6 2 4 6 6 0 0" \
    "$(awk '$1 ~ /^(nodes|switches|cas|links|links-up|links-down|clients)$/ { printf "%s%s", s, $2; s = " " }' "$WORK/status0.txt")"
check "status: drop-rate 0%" grep -qx "drop-rate 0%" "$WORK/status0.txt"
check "status: capture off" grep -qx "capture off" "$WORK/status0.txt"
ctl help > "$WORK/help.txt"
check "help lists the commands" grep -qx "link-down NODE PORT" "$WORK/help.txt"

ctl_fails "unknown node" 'no node "NoSuchNode"' link-down NoSuchNode 1
ctl_fails "port out of range" 'Switch1 has no port 9' link-down Switch1 9
ctl_fails "port 0 of a link" 'has no port 0' link-up Switch1 0
ctl_fails "port without a cable" 'Switch1 port 4 has no cable' link-down Switch1 4
ctl_fails "port not a number" 'bad port number "x"' link-down Switch1 x
ctl_fails "port with a sign" 'bad port number' link-down Switch1 +1
ctl_fails "missing argument" 'usage: link-up NODE PORT' link-up Switch1
ctl_fails "drop-rate 101" 'bad percentage "101"' drop-rate 101
ctl_fails "drop-rate -1" 'bad percentage' drop-rate -1
ctl_fails "drop-rate abc" 'bad percentage' drop-rate abc
ctl_fails "drop-rate 5 decimals" 'bad percentage' drop-rate 1.23456
ctl_fails "drop-rate bad seed" 'bad seed' drop-rate 10 zero
ctl_fails "counters of CA port 0" 'Hca1 has no port 0' counters Hca1 0
ctl_fails "unknown command" 'unknown command "frobnicate"' frobnicate
ctl counters Switch1 0 > "$WORK/counters.txt"
check "counters of switch port 0" grep -q "^xmit_pkts [0-9]" "$WORK/counters.txt"

"$PZCTL_ABUSE" "$SOCK" > "$WORK/abuse.txt" 2>&1 || true
check "pzctl_abuse: no check failed" test "$(grep -c FAIL "$WORK/abuse.txt" || true)" = 0
check "pzctl_abuse: status answered at the end" grep -q "^ok   a fresh connection" "$WORK/abuse.txt"
check "pzfabric survived the abuse" kill -0 "$FABRIC_PID"

# --- OpenSM ---------------------------------------------------------------------
fl_start_opensm Hca1
check "OpenSM: SUBNET UP" fl_wait_up 60
check_eq "status: 1 client (OpenSM)" 1 "$(status_value clients)"
SW1=$(diag Hca1 smpquery -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
HCA3=$(diag Hca3 smpquery -D portinfo 0 1 | sed -n 's/^Lid:\.*//p')
check "Switch1 and Hca3 have LIDs" test -n "$SW1" -a -n "$HCA3" -a "${SW1:-0}" != 0
check_eq "Switch1 port 2: Active before" Active "$(port_field "$SW1" 2 LinkState)"
traps0=$(grep -c 'num:128' "$WORK/sm/osm.log" || true)
downed0=$(counter Hca3 1 link_downed)

# --- link-down --------------------------------------------------------------------
check_eq "link-down Switch1 2" "link Switch1[2] - Hca3[1] down" "$(ctl link-down Switch1 2)"
check "OpenSM gets Trap 128 from Switch1" fl_wait_log 10 "num:128 .*from LID:$SW1 " $((traps0 + 1))
ctl status > "$WORK/status1.txt"
check_eq "status: links-down 1" 1 "$(awk '$1 == "links-down" { print $2 }' "$WORK/status1.txt")"
check "status lists the pulled cable" grep -qx "link-not-up Switch1\[2\] Hca3\[1\] unplugged" "$WORK/status1.txt"
check_eq "Switch1 port 2: Down" Down "$(port_field "$SW1" 2 LinkState)"
check_eq "Switch1 port 2: Polling" Polling "$(port_field "$SW1" 2 PhysLinkState)"
check_eq "Hca3 port 1: Down (its own view)" Down \
    "$(diag Hca3 smpquery -D portinfo 0 1 | sed -n 's/^LinkState:\.*//p')"
check_eq "Hca3 port 1: LinkDowned counted once" $((downed0 + 1)) "$(counter Hca3 1 link_downed)"
check "smpquery to Hca3's LID fails" fails diag Hca2 smpquery nodedesc "$HCA3"
check_eq "link-down again: already down" "link Hca3[1] - Switch1[2] already down" \
    "$(ctl link-down Hca3 1)"

# --- link-up ----------------------------------------------------------------------
check_eq "link-up Hca3 1" "link Hca3[1] - Switch1[2] up" "$(ctl link-up Hca3 1)"
check "OpenSM gets a second Trap 128" fl_wait_log 10 "num:128 .*from LID:$SW1 " $((traps0 + 2))
check "Switch1 port 2 back to Active (OpenSM's sweep)" wait_until 30 port_state_is "$SW1" 2 Active
check_eq "status: links-down 0" 0 "$(status_value links-down)"
check "smpquery to Hca3's LID works again" diag Hca2 smpquery nodedesc "$HCA3"

# --- drop rate --------------------------------------------------------------------
# Without OpenSM: random losses would also hit its sweeps, and a re-sweep
# with errors reprograms the subnet under the queries.  The LFTs it wrote
# stay in the switches, so LID-routed queries still work.
fl_stop_opensm
lost0=$(status_value lost)
check_eq "drop-rate 100" "drop-rate 100%" "$(ctl drop-rate 100)"
check "drop-rate 100: smpquery fails" fails diag Hca2 smpquery nodedesc "$SW1"
check "drop-rate 100: losses counted" test "$(status_value lost)" -gt "$lost0"
check_eq "drop-rate 12.5 with a seed" "drop-rate 12.5%" "$(ctl drop-rate 12.5% 7)"
check_eq "status: drop-rate 12.5%" "12.5%" "$(status_value drop-rate)"
ok=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    diag Hca2 smpquery nodedesc "$SW1" > /dev/null 2>&1 && ok=$((ok + 1))
done
check "drop-rate 12.5: most queries still work (libibmad retries)" test "$ok" -ge 5
ctl drop-rate 0 > /dev/null
lost1=$(status_value lost)
check "drop-rate 0: smpquery works" diag Hca2 smpquery nodedesc "$SW1"
check_eq "drop-rate 0: nothing more lost" "$lost1" "$(status_value lost)"

fl_stop_opensm
fl_stop_fabric
check_eq "pzfabric exits 0 on SIGTERM" 0 "$FABRIC_RC"
check "pzfabric logged the ctl commands" grep -q "pzctl: link-down Switch1 2: ok" "$WORK/fabric.err"
fl_finish
