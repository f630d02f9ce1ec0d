#!/bin/bash
# test_conformance.sh PZFABRIC PZFABRIC-CTL UMAD2SIM_FIX - pzfabric against
# ibsim (and against the IBA spec where ibsim is wrong) on one
# ibnetdiscover-format topology with link annotations (annotated-2l.net),
# each simulator with its own OpenSM (-R minhop, PerfMgr on):
#
#   1. SA answers: saquery record counts (PathRecord, MCMemberRecord,
#      ServiceRecord, SMInfoRecord, LFTRecord, PortInfoRecord, NodeRecord)
#      equal ibsim's, PortInfoRecords decode to the same link states (the
#      fabric delivers the length the SA sent, not the whole buffer);
#   2. link annotations: iblinkinfo shows the same width, speed and state
#      on every link ("4xQDR", "4xFDR", "4xDDR", "1xSDR");
#   3. a fresh fabric: LinkDowned 0 on every port (perfquery, ibqueryerrors,
#      PerfMgr), no link went down during OpenSM's sweeps;
#   4. PortState Down set by the SM: the commanded port's LinkDownedCounter
#      stays (the link did not fail), the peer's counts once;
#   5. ports that never trained report 4X at 2.5 Gbps as ibsim's; a link
#      that went down keeps its last width and speed; ibnetdiscover -p
#      prints no "??";
#   6. perfquery -c (PortSamplesControl) on a port that does not exist fails;
#      perfquery of port 0 of a base-port-0 switch is refused (no counters
#      there; ibsim answers);
#   7. VLArbitrationTable modifiers: blocks 1-4 only (0x1C otherwise, as
#      ibsim), no port 0 on a base-port-0 switch and no port 9 of 8 (the
#      spec; ibsim answers those);
#   8. GUID 0 in a topology file: exit 2 with FILE:LINE.
# The tools run with libpzumad2sim.so after libumad2sim.so (MAD bytes
# 224-255 intact, attach/pzumad2sim.c) on both simulators.
set -euo pipefail

PZFABRIC=${1:?usage: test_conformance.sh PZFABRIC PZFABRIC-CTL UMAD2SIM_FIX}
PZCTL=${2:?}
FIX=${3:?}
source "$(dirname "$0")/lib.sh"

# On the reference side (ibsim) a diag that printed nothing runs again, up to
# three times: on a loaded machine an ibsim query now and then comes back
# empty (ibsim's own answers, not the code under test).  The pzfabric side
# ("pz") runs once and must be right the first time.
eval "$(declare -f run_diag | sed '1s/^run_diag/lib_run_diag/')"
run_diag() {
    local out rc try
    if [ "$1" != ib ]; then
        lib_run_diag "$@"
        return
    fi
    out=$(mktemp -p "$WORK")
    for try in 1 2 3; do
        rc=0
        lib_run_diag "$@" > "$out" || rc=$?
        [ -s "$out" ] && break
    done
    cat "$out"
    rm -f "$out"
    return "$rc"
}
PZFABRIC=$(abspath "$PZFABRIC")
PZCTL=$(abspath "$PZCTL")
FIX=$(abspath "$FIX")
NET=$PZT_HERE/annotated-2l.net

pzt_require opensm ibsim saquery iblinkinfo perfquery ibqueryerrors smpquery smpdump ibnetdiscover
pzt_init conformance
HOST=hca-1 # on leaf-0 port 2: DR path 0,1 is leaf-0, 0,1,3 is leaf-1
declare -A lids

fails() { ! "$@"; }

# links FILE: iblinkinfo output as sorted "node port width speed state remote" lines.
links() {
    awk '/^(CA|Switch):/ { node = $NF; sub(/:$/, "", node); next }
         /==\(/ { n = split($0, a, "==")
                  match(a[1], /[0-9]+\[/); port = substr(a[1], RSTART, RLENGTH - 1)
                  mid = a[2]; sub(/^\( */, "", mid); sub(/\)$/, "", mid); gsub(/ +/, " ", mid)
                  match($0, /"[^"]*"/); remote = substr($0, RSTART, RLENGTH)
                  print node, port, mid, remote }' "$1" | sort
}

# records SIM ARGS...: how many records saquery ARGS prints on simulator SIM.
records() {
    local sim=$1
    shift
    run_diag "$sim" hca-2 saquery "$@" 2> /dev/null | grep -c 'dump' || true
}

# pi_states FILE: the link fields of every PortInfoRecord, sorted.
pi_states() {
    grep -E '^\s*(LinkWidthActive|LinkSpeedActive|LinkState|PhysLinkState|PortNum)[:.]' "$1" |
        tr -d ' \t' | sort
}

# discovered_lid SIM NAME: the LID of node NAME (description) by ibnetdiscover -p on SIM.
discovered_lid() {
    run_diag "$1" "$HOST" ibnetdiscover -p 2> /dev/null |
        awk -v want="$2" '{ match($0, /\047[^\047]*\047/)
                            if (substr($0, RSTART + 1, RLENGTH - 2) == want) { print $2; exit } }' || true
}

# downed SIM HOST [PERFQUERY ARGS]: LinkDownedCounter of perfquery ARGS run at HOST.
downed() {
    local sim=$1 host=$2
    shift 2
    run_diag "$sim" "$host" perfquery "$@" 2> /dev/null |
        sed -n 's/^LinkDownedCounter:\.*\([0-9]*\)$/\1/p' || true
}

# pi_field SIM PATH PORT FIELD: FIELD of smpquery -D portinfo PATH PORT on SIM.
pi_field() {
    run_diag "$1" "$HOST" smpquery -D portinfo "$2" "$3" 2> /dev/null |
        sed -n "s/^$4:\.*\(.*\)$/\1/p" || true
}

# vlarb_status SIM PATH MOD: the status of a DR VLArbitrationTable Get (without the D bit).
vlarb_status() {
    run_diag "$1" "$HOST" smpdump -D -t 1000 "$2" 0x18 "$3" 2>&1 |
        sed -n 's/^SMP status: 0x[0-9a-f]\{0,2\}\([0-9a-f]\{2\}\)$/0x\1/p' || true
}

# --- 8. GUID 0 is refused like any other topology error.
for bad in "switchguid=0x0" "caguid=0" "sysimgguid=0x0"; do
    printf '%s\nSwitch 8 "a"\n' "$bad" > zero.net
    set +e
    "$PZFABRIC" --sockname "pzt-$$-zero" zero.net > /dev/null 2> zero.err
    rc=$?
    set -e
    check_eq "$bad: exit 2" 2 "$rc"
    check "$bad: the message names zero.net:1" grep -q 'zero.net:1: .*GUID' zero.err
done

check "pzfabric ready" start_pzfabric pz "$NET" -v
check "ibsim ready" start_ibsim ib "$NET"
for s in pz ib; do
    start_opensm "sm$s" "$s" hca-0 -R minhop --perfmgr --perfmgr_sweep_time_s 1
done
check "OpenSM on pzfabric: SUBNET UP" wait_subnet_up smpz 60
check "OpenSM on ibsim: SUBNET UP" wait_subnet_up smib 60
sleep 4 # a few 1-second PerfMgr sweeps

# --- 1. SA record counts.
for q in "-p" "-g" "-s" "SMInfoRecord" "LFTRecord" "PortInfoRecord" "NodeRecord"; do
    # shellcheck disable=SC2086 # the query's words
    check_eq "saquery $q: records as on ibsim" "$(records ib $q)" "$(records pz $q)"
done
for pair in hca-0:hca-3 hca-2:hca-1; do
    for s in pz ib; do
        lids[$s]=$(discovered_lid $s "${pair%:*}"):$(discovered_lid $s "${pair#*:}")
    done
    check_eq "saquery -p --src-to-dst $pair: one PathRecord as on ibsim" "1 1" \
        "$(records ib -p --src-to-dst "${lids[ib]}") $(records pz -p --src-to-dst "${lids[pz]}")"
done
run_diag pz hca-2 saquery PortInfoRecord > pir.pz 2> /dev/null || true
run_diag ib hca-2 saquery PortInfoRecord > pir.ib 2> /dev/null || true
check_eq "PortInfoRecords: every one with an EndPortLid" "$(grep -c 'PortInfoRecord dump' pir.pz)" \
    "$(grep -c 'EndPortLid\.*[1-9]' pir.pz)"
check_eq "PortInfoRecords decode to the link states ibsim's do" "$(pi_states pir.ib)" \
    "$(pi_states pir.pz)"

# --- 2. Link annotations.
run_diag pz hca-2 iblinkinfo > li.pz 2> /dev/null || true
run_diag ib hca-2 iblinkinfo > li.ib 2> /dev/null || true
links li.pz > links.pz
links li.ib > links.ib
check "iblinkinfo: 20 ports listed" test "$(wc -l < links.pz)" = 20
check_files "iblinkinfo: width, speed and state of every port as on ibsim" links.ib links.pz
check "iblinkinfo: the 4xFDR links run at 14.0625 Gbps" \
    test "$(grep -c '4X 14.0625 Gbps' links.pz)" = 4
check "iblinkinfo: hca-3's link is 1X 2.5 Gbps" grep -q '^hca-3 1 1X 2.5 Gbps' links.pz

# --- 3. A fresh fabric has no LinkDowned.
for s in pz ib; do
    bad=
    for h in hca-0 hca-1 hca-2 hca-3; do
        v=$(downed $s $h)
        [ "$v" = 0 ] || bad+=" $h:${v:-none}"
    done
    for sw in leaf-0 leaf-1; do
        lid=$(discovered_lid $s $sw)
        for p in 1 2 3 4; do
            v=$(downed $s $HOST "$lid" $p)
            [ "$v" = 0 ] || bad+=" $sw[$p]:${v:-none}"
        done
    done
    check_eq "$s: perfquery LinkDownedCounter 0 on all 12 cabled ports" "" "$bad"
done
run_diag pz hca-2 ibqueryerrors > qe.pz 2>&1 || true
run_diag ib hca-2 ibqueryerrors > qe.ib 2>&1 || true
check "ibqueryerrors on ibsim: 0 ports with errors" grep -q ' 0 ports have errors' qe.ib
check "ibqueryerrors: 20 ports checked, 0 with errors" \
    grep -q '20 ports checked, 0 ports have errors' qe.pz
check "ibqueryerrors: no LinkDownedCounter" bash -c "! grep -q LinkDowned qe.pz"
check_eq "PerfMgr: no LinkDowned error" 0 "$(count_log smpz 'perfmgr_log_errors.*LinkDowned')"
check_eq "pzfabric: no link went down during the sweeps" 0 "$(grep -c 'went down' pz.fabric.err || true)"
check_eq "OpenSM sent no Link Down for op_vls or mtu" 0 \
    "$(count_log smpz 'Sending Link Down')"

# --- 5. Untrained and down ports keep a width.
for f in LinkWidthActive LinkSpeedActive; do
    check_eq "leaf-0 port 7 (no cable) $f as on ibsim" "$(pi_field ib 0,1 7 $f)" \
        "$(pi_field pz 0,1 7 $f)"
done
check_eq "leaf-0 port 7: 4X" 4X "$(pi_field pz 0,1 7 LinkWidthActive)"
run_diag pz hca-2 ibnetdiscover -p > disc.pz 2>&1 || true
check "ibnetdiscover -p: every port listed" test "$(grep -cE '^(SW|CA) ' disc.pz)" -ge 20
check "ibnetdiscover -p: no '??' width" bash -c "! grep -q '??' disc.pz"
check "ibnetdiscover -p: no 'bad width'" bash -c "! grep -q 'bad width' disc.pz"
"$PZCTL" --sockname "${PZT_SOCK[pz]}" link-down hca-2 1 > /dev/null
check_eq "leaf-1 port 1 after link-down: Down" Down "$(pi_field pz 0,1,3 1 LinkState)"
check_eq "leaf-1 port 1 after link-down: still 4X" 4X "$(pi_field pz 0,1,3 1 LinkWidthActive)"
check_eq "leaf-1 port 1 after link-down: still 5.0 Gbps (DDR)" "5.0 Gbps" \
    "$(pi_field pz 0,1,3 1 LinkSpeedActive)"
"$PZCTL" --sockname "${PZT_SOCK[pz]}" link-up hca-2 1 > /dev/null

# --- 4. PortState Down on command: the commanded port did not fail, its peer saw the link go.
run_diag pz "$HOST" ibportstate -D 0,1,3 2 down > /dev/null 2>&1 || true
check "leaf-1 port 2 (to hca-3) was taken down" wait_file pz.fabric.err 10 'H-0002c90000000401'
sleep 1
check_eq "commanded port: LinkDownedCounter still 0" 0 "$(downed pz "$HOST" "$(discovered_lid pz leaf-1)" 2)"
check_eq "its peer (hca-3): LinkDownedCounter 1" 1 "$(downed pz hca-3)"

# --- 6. perfquery -c on a port that does not exist.
lid=$(discovered_lid pz leaf-0)
check "perfquery -c leaf-0 port 3: answered" run_diag pz "$HOST" perfquery -c "$lid" 3
check "perfquery -c leaf-0 port 9 of 8: refused" fails run_diag pz "$HOST" perfquery -c "$lid" 9
# Port 0 of a base-port-0 switch has no link and no counters: 0x1C, as for
# a port that does not exist (OpenSM's PerfMgr and ibqueryerrors never ask
# it: they start at port 1 unless SwitchInfo says EnhancedPort0). ibsim
# answers it with counters of its own.
check "perfquery leaf-0 (base port 0) port 0: refused (ibsim answers)" \
    fails run_diag pz "$HOST" perfquery "$lid" 0
check "... ibsim answers it" run_diag ib "$HOST" perfquery "$(discovered_lid ib leaf-0)" 0
check "perfquery leaf-0 port 1: answered" run_diag pz "$HOST" perfquery "$lid" 1
lid=$(discovered_lid pz hca-1)
check "perfquery -c hca-1 port 1: answered" run_diag pz "$HOST" perfquery -c "$lid" 1
check "perfquery -c hca-1 port 2 of 1: refused" fails run_diag pz "$HOST" perfquery -c "$lid" 2

# --- 7. VLArbitrationTable modifiers.
for mod in 0x00010001 0x00010005 0x00010006 0x00030008 0x00050001 0x00060001 0x00000001 \
    0x00020001 0x00040001 0xffff0001; do
    check_eq "VLArbitrationTable $mod on a switch: status as on ibsim" \
        "$(vlarb_status ib 0,1 $mod)" "$(vlarb_status pz 0,1 $mod)"
done
check_eq "VLArbitrationTable block 5: 0x1c" 0x1c "$(vlarb_status pz 0,1 0x00050001)"
check_eq "VLArbitrationTable block 6: 0x1c" 0x1c "$(vlarb_status pz 0,1 0x00060001)"
check_eq "VLArbitrationTable port 9 of 8: 0x1c (the spec; ibsim answers)" 0x1c \
    "$(vlarb_status pz 0,1 0x00010009)"
check_eq "VLArbitrationTable base port 0: 0x1c (the spec; ibsim answers)" 0x1c \
    "$(vlarb_status pz 0,1 0x00010000)"
for mod in 0x00010001 0x00030001 0x00050001 0x00060000; do
    check_eq "VLArbitrationTable $mod on a CA: status as on ibsim" \
        "$(vlarb_status ib 0 $mod)" "$(vlarb_status pz 0 $mod)"
done

pzt_finish
