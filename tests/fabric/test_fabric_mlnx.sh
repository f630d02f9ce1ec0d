#!/bin/bash
# test_fabric_mlnx.sh - MlnxExtPortInfo (vendor SMP attribute 0xFF90) on a
# fabric of Mellanox devices: a topology whose nodes carry Mellanox VendorID
# and DeviceIDs from OpenSM's FDR10 list (SwitchX 0xc738, ConnectX-3 0x1003),
# so OpenSM (fdr10 on) queries the attribute on every port.
#   1. fdr10 1 (default): SUBNET UP, no ERR 3111 in OpenSM's log (every port
#      answered); smpquery mlnxextportinfo shows FDR10 supported and enabled.
#   2. fdr10 2 (disable): OpenSM Sets StateChangeEnable 1, LinkSpeedEnabled 0
#      on every FDR10 port; smpquery reads exactly that back.
#   3. The same file on ibsim: no ERR 3111 there either (noted).
#
#   test_fabric_mlnx.sh PZFABRIC PZFABRIC-CTL NETFILE
set -uo pipefail

source "$(dirname "$0")/fabric_lib.sh"
SRC=$(abspath "${3:?usage: test_fabric_mlnx.sh PZFABRIC PZFABRIC-CTL NETFILE}")
fl_init mlnx "$1" "$2"
pzt_require opensm smpquery ibnetdiscover

# Every node gets Mellanox's VendorID and a DeviceID OpenSM queries MlnxExtPortInfo on.
awk '/^Switch/ { print "vendid=0x2c9"; print "devid=0xc738" }
     /^(Hca|Ca)/ { print "vendid=0x2c9"; print "devid=0x1003" } { print }' "$SRC" > mlnx.net
NET=$WORK/mlnx.net

# mepi LID PORT FIELD: one field of smpquery mlnxextportinfo.
mepi() {
    diag Hca2 smpquery mlnxextportinfo "$1" "$2" 2> /dev/null |
        sed -n "s/^$3:\.*\(.*\)$/\1/p"
}

# mepi_all FIELD VALUE: FIELD is VALUE on ports 1-4 of every switch; prints the misses.
mepi_all() {
    local lid port v
    for lid in $SWITCHES; do
        for port in 1 2 3 4; do
            v=$(mepi "$lid" "$port" "$1")
            [ "$v" = "$2" ] || echo "$lid:$port=$v"
        done
    done
}

opensm -c "$WORK/defaults.conf" > /dev/null 2>&1
for fdr10 in 1 2; do
    sed "s/^fdr10 .*/fdr10 $fdr10/" "$WORK/defaults.conf" > "$WORK/fdr10-$fdr10.conf"
done

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1 -F "$WORK/fdr10-1.conf"
check "fdr10 1: SUBNET UP" fl_wait_up 60
diag Hca2 ibnetdiscover > disc.txt 2>&1
check "the fabric keeps the file's DeviceIDs" grep -q '^devid=0xc738' disc.txt
SWITCHES=$(sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p' disc.txt)
check_eq "6 switches" 6 "$(echo $SWITCHES | wc -w)"
check_eq "fdr10 1: no ERR 3111 in OpenSM's log" 0 "$(grep -c 'ERR 3111' "$WORK/sm/osm.log")"
lid=$(echo $SWITCHES | awk '{ print $1 }')
check_eq "smpquery mlnxextportinfo: LinkSpeedSupported FDR10" 0x01 "$(mepi "$lid" 1 LinkSpeedSupported)"
check_eq "every switch port: LinkSpeedEnabled FDR10" "" "$(mepi_all LinkSpeedEnabled 0x01)"
check_eq "LinkSpeedActive 0 (links train at IBA speeds)" 0x00 "$(mepi "$lid" 1 LinkSpeedActive)"
fl_stop_opensm
fl_stop_fabric

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1 -F "$WORK/fdr10-2.conf"
check "fdr10 2: SUBNET UP" fl_wait_up 60
check_eq "fdr10 2: no ERR 3111 in OpenSM's log" 0 "$(grep -c 'ERR 3111' "$WORK/sm/osm.log")"
diag Hca2 ibnetdiscover > disc.txt 2>&1
SWITCHES=$(sed -n 's/^Switch.* lid \([0-9]*\) .*/\1/p' disc.txt)
check_eq "OpenSM's Set: LinkSpeedEnabled 0 on every switch port" "" "$(mepi_all LinkSpeedEnabled 0x00)"
check_eq "OpenSM's Set: StateChangeEnable 1 on every switch port" "" \
    "$(mepi_all StateChangeEnable 0x01)"
check_eq "LinkSpeedSupported stays FDR10" 0x01 "$(mepi "$(echo $SWITCHES | awk '{ print $1 }')" 2 \
    LinkSpeedSupported)"
fl_stop_opensm
fl_stop_fabric

# ibsim on the same file, for reference.
if command -v ibsim > /dev/null; then
    IBSIM_SOCKNAME=$SOCK ibsim -s -n "$NET" > ibsim.log 2>&1 < /dev/null &
    IBSIM=$!
    sleep 1
    fl_start_opensm Hca1 -F "$WORK/fdr10-1.conf"
    if fl_wait_up 60; then
        note "ibsim, same file: ERR 3111 lines: $(grep -c 'ERR 3111' "$WORK/sm/osm.log")"
    fi
    fl_stop_opensm
    kill "$IBSIM" 2> /dev/null
    wait "$IBSIM" 2> /dev/null
fi
fl_finish
