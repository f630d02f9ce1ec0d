#!/bin/bash
# test_snmp_mib.sh - PORTZERO-MIB passes smilint -l 4 without a message,
# a broken copy of it does not (the check can fail), and net-snmp's
# snmptranslate loads it and resolves its names to the OIDs the agent
# serves.  The IETF base modules it imports (SNMPv2-SMI, -TC, -CONF) come
# from tests/snmp/mibs-base: Debian ships them only in non-free packages.
# Usage: test_snmp_mib.sh MIB_DIR
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
MIBDIR=$(abspath "$1")
BASE=$(abspath "$(dirname "$0")/mibs-base")
for tool in smilint snmptranslate; do
    command -v "$tool" > /dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pzt-snmpmib.XXXXXX")
# An EXIT trap's own status is not the script's: exit with the checks' verdict.
trap 'rc=$?; pzt_cleanup_work $rc; checks_finish || rc=1; exit $rc' EXIT

lint() { SMIPATH=$BASE smilint -c /dev/null -l 4 -s "$1" 2>&1; }

check_eq "smilint -l 4: no message" "" "$(lint "$MIBDIR/PORTZERO-MIB.txt")"
sed '/^pzCongSince OBJECT-TYPE/,/::=/{/DESCRIPTION/,/has not changed class/d}' \
    "$MIBDIR/PORTZERO-MIB.txt" > "$WORK/PORTZERO-MIB.txt"
got=$(lint "$WORK/PORTZERO-MIB.txt")
check "smilint finds the missing DESCRIPTION in a broken copy" \
    bash -c "[[ '${got//\'/}' == *'description missing'* ]]"

translate() { MIBS= snmptranslate -M "$BASE:$MIBDIR" -m PORTZERO-MIB -On "$@" 2>&1; }
check_eq "snmptranslate: pzCongClass" .1.3.6.1.4.1.99999.1.3.1.2 "$(translate PORTZERO-MIB::pzCongClass)"
check_eq "snmptranslate: pzHotSpotOnset" .1.3.6.1.4.1.99999.0.1 \
    "$(translate PORTZERO-MIB::pzHotSpotOnset)"
check_eq "snmptranslate: pzIbPortXmitWait" .1.3.6.1.4.1.99999.1.2.1.24 \
    "$(translate PORTZERO-MIB::pzIbPortXmitWait)"
check_eq "snmptranslate: pzSwitchAgent (sysObjectID)" .1.3.6.1.4.1.99999.2.1 \
    "$(translate PORTZERO-MIB::pzSwitchAgent)"
check_eq "snmptranslate: pzReachStatus" .1.3.6.1.4.1.99999.1.5.1.4 \
    "$(translate PORTZERO-MIB::pzReachStatus)"
