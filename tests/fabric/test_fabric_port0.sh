#!/bin/bash
# test_fabric_port0.sh - a switch's management port mode (topology setting
# port0=WxSPEED) with OpenSM and smpquery: the switches after "port0=1xSDR"
# report LinkWidthActive 1X and LinkSpeedActive 2.5 Gbps on port 0 (as real
# switches do, and what OpenSM rates their IPoIB joins by), the others the
# default 4X SDR; OpenSM brings the subnet up either way.
# Usage: test_fabric_port0.sh PZFABRIC PZFABRIC_CTL
set -u
# shellcheck source=fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
fl_init port0 "$1" "$2"
pzt_require opensm smpquery
NET="$WORK/port0.net"
{
    echo 'Switch 4 "S1"'
    echo '[1] "H1"[1]'
    echo '[2] "S2"[2]'
    echo 'port0=1xSDR'
    echo 'Switch 4 "S2"'
    echo '[1] "H2"[1]'
    echo '[2] "S1"[2]'
    echo 'Hca 1 "H1"'
    echo '[1] "S1"[1]'
    echo 'Hca 1 "H2"'
    echo '[1] "S2"[1]'
} > "$NET"

fl_start_fabric "$NET" || exit 1
fl_start_opensm H1
check "SUBNET UP" fl_wait_up 60
# mode DRPATH FIELD: a field of port 0 PortInfo of the switch at DRPATH from H1.
mode() { # mode DRPATH FIELD
    diag H1 smpquery -D portinfo "$1" 0 | sed -n "s/^$2:\.*//p"
}
check_eq "S2 (port0=1xSDR): LinkWidthActive" 1X "$(mode 0,1,2 LinkWidthActive)"
check_eq "S2 (port0=1xSDR): LinkSpeedActive" "2.5 Gbps" "$(mode 0,1,2 LinkSpeedActive)"
check_eq "S1 (default): LinkWidthActive" 4X "$(mode 0,1 LinkWidthActive)"
check_eq "S1 (default): LinkSpeedActive" "2.5 Gbps" "$(mode 0,1 LinkSpeedActive)"
fl_finish
