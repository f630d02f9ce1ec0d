#!/bin/bash
# test_pzfabric.sh PZFABRIC CASE - pzfabric against the real tools.
#
# Starts pzfabric on the topology of CASE (net2sw2path4hca: ibsim's example;
# ft2s4l: a 2-spine/4-leaf fat tree), runs OpenSM -R ftree --connect_roots
# through libumad2sim.so until "SUBNET UP", then checks with the diags:
# ibnetdiscover (node and link counts, names, the same cabling and GUIDs as
# ibsim prints for the same file), smpquery nodedesc/nodeinfo of a switch
# LID, ibroute and ibtracert.  Every client runs in its own temporary
# directory (umad2sim writes ./sys-<pid>), every process started is stopped
# by PID, also on failure (lib.sh).
set -euo pipefail

PZFABRIC=${1:?usage: test_pzfabric.sh PZFABRIC CASE}
CASE=${2:?usage: test_pzfabric.sh PZFABRIC CASE}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")

case "$CASE" in
net2sw2path4hca)
    NET=$PZT_EXAMPLES/net.2sw2path4hca
    SWITCHES=2 CAS=4 LINKS=6 SM_HOST=Hca1 DIAG_HOST=Hca2 SWITCH=Switch1 FTREE=no
    ;;
ft2s4l)
    NET=$PZT_HERE/ft-2s4l.net
    SWITCHES=6 CAS=8 LINKS=16 SM_HOST=Hca1 DIAG_HOST=Hca5 SWITCH=Spine1 FTREE=yes
    ;;
*)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac

pzt_require opensm ibnetdiscover smpquery ibroute ibtracert
if [ ! -f "$NET" ]; then
    echo "SKIP: $NET missing (ibsim-utils)"
    exit 77
fi
pzt_init pzfabric

# links FILE: ibnetdiscover output as sorted "node port remote rport" lines
# (node names as ibnetdiscover makes them from the GUIDs: S-/H-<guid>).
links() {
    awk '/^(Switch|Ca)/ { split($0, q, "\""); node = q[2] }
         /^\[/ { split($0, q, "\""); lp = $0; sub(/^\[/, "", lp); sub(/\].*/, "", lp)
                 rp = q[3]; sub(/^\[/, "", rp); sub(/\].*/, "", rp)
                 print node, lp, q[2], rp }' "$1" | sort
}

# 1. Usage errors exit 2 with a message.
set +e
"$PZFABRIC" > /dev/null 2> usage.err
check "no topology argument: exit 2" test $? = 2
printf 'Switch 8 "a"\n[9] "b"[1]\n' > bad.net
"$PZFABRIC" --sockname "pzt-$$-bad" bad.net > /dev/null 2> bad.err
check "bad topology: exit 2" test $? = 2
set -e
check "bad topology: message names file and line" grep -q 'bad.net:2: ' bad.err

# 2. pzfabric says "ready".
check "pzfabric prints ready" start_pzfabric fab "$NET" -v
check "exactly one line on stdout" test "$(wc -l < fab.fabric.out)" = 1

# 3. OpenSM reaches SUBNET UP.
start_opensm sm fab "$SM_HOST"
check "OpenSM: SUBNET UP" wait_subnet_up sm 30
if [ "$FTREE" = yes ]; then
    check "OpenSM: ftree routed every switch" grep -q 'ftree tables configured on all switches' sm/osm.log
fi
check "OpenSM: no subnet initialization error" \
    bash -c "! grep -q 'Errors during initialization' sm/osm.log"

# 4. ibnetdiscover prints the topology.
run_diag fab "$DIAG_HOST" ibnetdiscover > discover.out 2> discover.err || true
check "ibnetdiscover: $SWITCHES switches" test "$(grep -c '^Switch' discover.out)" = "$SWITCHES"
check "ibnetdiscover: $CAS CAs" test "$(grep -c '^Ca' discover.out)" = "$CAS"
check "ibnetdiscover: $LINKS links" test "$(grep -c '^\[' discover.out)" = "$((2 * LINKS))"
names_ok=yes
for name in $(grep -E '^(Switch|Hca|Ca)' "$NET" | sed 's/^[^"]*"\([^"]*\)".*/\1/'); do
    grep -qE "^(Switch|Ca).*# \"$name\"" discover.out || {
        echo "  missing node $name"
        names_ok=no
    }
done
check "ibnetdiscover: every node by its name" test "$names_ok" = yes

# 5. The same cabling and GUIDs as ibsim shows for the same file.
if command -v ibsim > /dev/null; then
    start_ibsim ibsim "$NET"
    run_diag ibsim "$DIAG_HOST" ibnetdiscover > ibsim_discover.out 2>&1 || true
    stop ibsim
    links discover.out > links.pzfabric
    links ibsim_discover.out > links.ibsim
    check "ibnetdiscover: cabling and GUIDs equal ibsim's" cmp -s links.pzfabric links.ibsim
    check "ibnetdiscover: link list not empty" test -s links.pzfabric
else
    note "skip ibsim comparison (ibsim not installed)"
fi

# 6. smpquery against a switch LID.
LID=$(sed -n "s/^Switch.*# \"$SWITCH\".* lid \([0-9]*\) .*/\1/p" discover.out)
check "switch $SWITCH has a LID" test -n "$LID"
run_diag fab "$DIAG_HOST" smpquery nodedesc "$LID" > nodedesc.out 2>&1 || true
check "smpquery nodedesc $LID: $SWITCH" grep -qE "^Node Description:\.*$SWITCH\$" nodedesc.out
run_diag fab "$DIAG_HOST" smpquery nodeinfo "$LID" > nodeinfo.out 2>&1 || true
check "smpquery nodeinfo: NodeType Switch" grep -qE '^NodeType:\.*Switch$' nodeinfo.out
check "smpquery nodeinfo: NumPorts 8" grep -qE '^NumPorts:\.*8$' nodeinfo.out
check "smpquery nodeinfo: GUID as ibsim assigns" grep -qE '^Guid:\.*0x0000000000200000$' nodeinfo.out

# 7. Routing seen by ibroute and ibtracert (LID-routed through the LFTs).
run_diag fab "$DIAG_HOST" ibroute "$LID" > ibroute.out 2>&1 || true
check "ibroute $LID: $((SWITCHES + CAS)) valid LIDs" \
    grep -q "^$((SWITCHES + CAS)) valid lids dumped" ibroute.out
SM_LID=$(disc_lid discover.out "$SM_HOST")
run_diag fab "$DIAG_HOST" ibtracert "$SM_LID" "$LID" > ibtracert.out 2>&1 || true
check "ibtracert $SM_LID -> $LID reaches $SWITCH" grep -q "^To switch .*\"$SWITCH\"" ibtracert.out

# 8. SIGTERM: pzfabric exits 0.
stop sm
FABRIC=${PZT_PID[fab]}
unset "PZT_PID[fab]"
set +e
kill -TERM "$FABRIC"
wait "$FABRIC"
rc=$?
set -e
check "pzfabric exits 0 on SIGTERM" test "$rc" = 0

pzt_finish
