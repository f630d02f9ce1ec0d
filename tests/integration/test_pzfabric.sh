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
# by PID, also on failure.
set -euo pipefail

PZFABRIC=${1:?usage: test_pzfabric.sh PZFABRIC CASE}
CASE=${2:?usage: test_pzfabric.sh PZFABRIC CASE}
HERE=$(cd "$(dirname "$0")" && pwd)
PZFABRIC=$(cd "$(dirname "$PZFABRIC")" && pwd)/$(basename "$PZFABRIC")
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
EXAMPLES=/usr/share/doc/ibsim-utils/net-examples

case "$CASE" in
net2sw2path4hca)
    NET=$EXAMPLES/net.2sw2path4hca
    SWITCHES=2 CAS=4 LINKS=6 SM_HOST=Hca1 DIAG_HOST=Hca2 SWITCH=Switch1 FTREE=no
    ;;
ft2s4l)
    NET=$HERE/ft-2s4l.net
    SWITCHES=6 CAS=8 LINKS=16 SM_HOST=Hca1 DIAG_HOST=Hca5 SWITCH=Spine1 FTREE=yes
    ;;
*)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac

for tool in opensm ibnetdiscover smpquery ibroute ibtracert; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed"
        exit 77
    fi
done
if [ ! -f "$UMAD2SIM" ] || [ ! -f "$NET" ]; then
    echo "SKIP: $UMAD2SIM or $NET missing (ibsim-utils)"
    exit 77
fi

WORK=$(mktemp -d /tmp/test_pzfabric.XXXXXX)
PIDS=()
failures=0
passes=0

# Stop everything we started (by PID), show the logs if something failed.
cleanup() {
    local rc=$?
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    done
    if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
        for log in "$WORK"/fabric.err "$WORK"/sm/osm.log "$WORK"/ibsim.out; do
            [ -f "$log" ] && { echo "--- tail of $log"; tail -n 30 "$log"; }
        done
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then
        echo "ok   $name"
        passes=$((passes + 1))
    else
        echo "FAIL $name"
        failures=$((failures + 1))
    fi
}

# wait_for FILE SECONDS REGEX: wait until FILE has a line matching REGEX.
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        grep -qE "$3" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# client DIR HOST SOCKNAME COMMAND...: run a umad2sim client in its own directory.
client() {
    local dir=$WORK/$1 host=$2 sock=$3
    shift 3
    mkdir -p "$dir"
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=$host IBSIM_SOCKNAME=$sock timeout 30 "$@")
}

# links FILE: ibnetdiscover output as sorted "node port remote rport" lines.
links() {
    awk '/^(Switch|Ca)/ { split($0, q, "\""); node = q[2] }
         /^\[/ { split($0, q, "\""); lp = $0; sub(/^\[/, "", lp); sub(/\].*/, "", lp)
                 rp = q[3]; sub(/^\[/, "", rp); sub(/\].*/, "", rp)
                 print node, lp, q[2], rp }' "$1" | sort
}

SOCK=pzftest$$
cd "$WORK"

# 1. Usage errors exit 2 with a message.
set +e
"$PZFABRIC" >/dev/null 2>usage.err
check "no topology argument: exit 2" test $? = 2
printf 'Switch 8 "a"\n[9] "b"[1]\n' > bad.net
"$PZFABRIC" --sockname "$SOCK" bad.net >/dev/null 2>bad.err
check "bad topology: exit 2" test $? = 2
set -e
check "bad topology: message names file and line" grep -q 'bad.net:2: ' bad.err

# 2. pzfabric says "ready".
"$PZFABRIC" --sockname "$SOCK" -v "$NET" > fabric.out 2> fabric.err &
FABRIC=$!
PIDS+=("$FABRIC")
check "pzfabric prints ready" wait_for fabric.out 10 '^ready$'
check "exactly one line on stdout" test "$(wc -l < fabric.out)" = 1

# 3. OpenSM reaches SUBNET UP.
mkdir -p sm/cache sm/tmp sm/dump
(cd sm && LD_PRELOAD=$UMAD2SIM SIM_HOST=$SM_HOST IBSIM_SOCKNAME=$SOCK \
    OSM_CACHE_DIR=$WORK/sm/cache OSM_TMP_DIR=$WORK/sm/tmp \
    exec opensm -d2 -R ftree --connect_roots --dump_files_dir "$WORK/sm/dump" \
    -f "$WORK/sm/osm.log" > "$WORK/sm/opensm.out" 2>&1) &
PIDS+=("$!")
check "OpenSM: SUBNET UP" wait_for sm/osm.log 30 'SUBNET UP'
if [ "$FTREE" = yes ]; then
    check "OpenSM: ftree routed every switch" grep -q 'ftree tables configured on all switches' sm/osm.log
fi
check "OpenSM: no subnet initialization error" \
    bash -c "! grep -q 'Errors during initialization' sm/osm.log"

# 4. ibnetdiscover prints the topology.
client diag "$DIAG_HOST" "$SOCK" ibnetdiscover > discover.out 2> discover.err || true
check "ibnetdiscover: $SWITCHES switches" test "$(grep -c '^Switch' discover.out)" = "$SWITCHES"
check "ibnetdiscover: $CAS CAs" test "$(grep -c '^Ca' discover.out)" = "$CAS"
check "ibnetdiscover: $LINKS links" test "$(grep -c '^\[' discover.out)" = "$((2 * LINKS))"
names_ok=yes
for name in $(grep -E '^(Switch|Hca|Ca)' "$NET" | sed 's/^[^"]*"\([^"]*\)".*/\1/'); do
    grep -qE "^(Switch|Ca).*# \"$name\"" discover.out || { echo "  missing node $name"; names_ok=no; }
done
check "ibnetdiscover: every node by its name" test "$names_ok" = yes

# 5. The same cabling and GUIDs as ibsim shows for the same file.
if command -v ibsim >/dev/null; then
    IBSIM_SOCKNAME=${SOCK}i ibsim -s -n "$NET" > ibsim.out 2>&1 < /dev/null &
    PIDS+=("$!")
    sleep 0.5
    client ibsimdiag "$DIAG_HOST" "${SOCK}i" ibnetdiscover > ibsim_discover.out 2>&1 || true
    links discover.out > links.pzfabric
    links ibsim_discover.out > links.ibsim
    check "ibnetdiscover: cabling and GUIDs equal ibsim's" cmp -s links.pzfabric links.ibsim
    check "ibnetdiscover: link list not empty" test -s links.pzfabric
else
    echo "skip ibsim comparison (ibsim not installed)"
fi

# 6. smpquery against a switch LID.
LID=$(sed -n "s/^Switch.*# \"$SWITCH\".* lid \([0-9]*\) .*/\1/p" discover.out)
check "switch $SWITCH has a LID" test -n "$LID"
client diag "$DIAG_HOST" "$SOCK" smpquery nodedesc "$LID" > nodedesc.out 2>&1 || true
check "smpquery nodedesc $LID: $SWITCH" grep -qE "^Node Description:\.*$SWITCH\$" nodedesc.out
client diag "$DIAG_HOST" "$SOCK" smpquery nodeinfo "$LID" > nodeinfo.out 2>&1 || true
check "smpquery nodeinfo: NodeType Switch" grep -qE '^NodeType:\.*Switch$' nodeinfo.out
check "smpquery nodeinfo: NumPorts 8" grep -qE '^NumPorts:\.*8$' nodeinfo.out
check "smpquery nodeinfo: GUID as ibsim assigns" grep -qE '^Guid:\.*0x0000000000200000$' nodeinfo.out

# 7. Routing seen by ibroute and ibtracert (LID-routed through the LFTs).
client diag "$DIAG_HOST" "$SOCK" ibroute "$LID" > ibroute.out 2>&1 || true
check "ibroute $LID: $((SWITCHES + CAS)) valid LIDs" \
    grep -q "^$((SWITCHES + CAS)) valid lids dumped" ibroute.out
SM_LID=$(awk -v h="$SM_HOST" '/^Ca/ { want = index($0, "# \"" h "\"") > 0; next }
    want && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' discover.out)
client diag "$DIAG_HOST" "$SOCK" ibtracert "$SM_LID" "$LID" > ibtracert.out 2>&1 || true
check "ibtracert $SM_LID -> $LID reaches $SWITCH" grep -q "^To switch .*\"$SWITCH\"" ibtracert.out

# 8. SIGTERM: pzfabric exits 0.
set +e
kill -TERM "$FABRIC"
wait "$FABRIC"
rc=$?
set -e
check "pzfabric exits 0 on SIGTERM" test "$rc" = 0

echo "$passes passed, $failures failed"
test "$failures" = 0
