#!/bin/bash
# test_dftree_loop.sh - the dFtree loop end to end (issue 23): portzero's
# switches (in-process in pzfabric) find a hot-spot and tell OpenSM, OpenSM
# forwards the vendor notice as a Report to pz-dftree's InformInfo
# subscription, pz-dftree finds the hot-spot's LID and the contributors and
# sends them repath notices, pzfabric's hosts move their flows to the slow
# lane (SL 1, which OpenSM's QoS tables map to VL 1), and the victim
# recovers.  Nothing is mocked: OpenSM 3.3.23 does the subscription, the
# forwarding and the SL-to-VL tables.
#
#   test_dftree_loop.sh MODE PZFABRIC PZFABRIC_CTL GEN_FATTREE PZ_DFTREE
#
# MODE small: the paper's small scenario, steps 1-7 below; oversub: steps
# 1-5 in a 2:1 oversubscribed tree (2 uplinks a leaf), with pz-dftree
# driven by periodic reads alone (--poll 300 --no-notices); two: two
# hot-spots at once (see two_hotspots below).
#
# The paper's small scenario in a 1:1 fat tree (2 spines, 4 leaves of 4
# hosts): host-1-1 is the hot-spot (sinks 25 Gb/s on a 100 Gb/s link);
# host-2-1, host-3-1 and host-4-1 send it 40 Gb/s each (contributors);
# host-2-1 also sends 40 Gb/s to host-1-2 (the victim: it shares host-2-1's
# ingress buffer at leaf-2 with a contributor flow).  pz-dftree runs at
# host-4-3, OpenSM at host-4-4.
#
#   1. Reference, in the same run: the contributors started on SL 1 by hand:
#      the victim's max-min fair share with the contributors out of its VL
#      (REF) and the contributors' rates.
#   2. Without pz-dftree (all on SL 0): the victim is held below REF, to the
#      contributors' pace; the switch's onset notice reaches OpenSM.
#   3. With pz-dftree: the onset comes to it as a Report (OpenSM forwards the
#      vendor notice), it finds host-1-1 and exactly the three contributors,
#      their flows to host-1-1 move to SL 1, the victim gets REF, the
#      contributors lose nothing (their rates as in 2).
#   4. A new flow to the hot-spot, still on, starts on SL 1; a host not
#      told yet that starts sending to it is found by pz-dftree's recheck.
#   5. The clear: the flows to host-1-1 go back to SL 0.
#   6. Bad input moves no flow: a repath for an unknown LID (status 0x1C),
#      a notice from an issuer the hosts do not trust (no answer), a
#      subscription the SA refuses (ERR 4302: pz-dftree exits 1).
#   7. OpenSM restarts: pz-dftree subscribes again and handles the next
#      onset through the new SM's Reports.
set -uo pipefail

MODE=${1:?usage: test_dftree_loop.sh small|oversub|two PZFABRIC PZFABRIC_CTL GEN_FATTREE PZ_DFTREE}
PZFABRIC=${2:?}
CTL=${3:?}
GEN=${4:?}
DFTREE=${5:?}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # PZFABRIC and PZT_LOG are lib.sh's
# shellcheck source=lib.sh
source "$HERE/lib.sh"

IVL=500 # the switches' monitor interval, ms
HOT="host-1-1"
CONTRIBUTORS="host-2-1 host-3-1 host-4-1"
VICTIM_SRC="host-2-1"
VICTIM_DST="host-1-2"
MGR_HOST="host-4-3"
SM_HOST="host-4-4"
VENDOR_RE='Received Vendor Notice type:4 vend:0x0002C9 dev:31344 from LID:'

pzt_init "dftree-loop-$MODE"
pzt_require opensm ibswitches saquery smpquery
case "$MODE" in
small | two) UPLINKS=4 ;;
oversub) UPLINKS=2 ;;
*)
    echo "unknown mode $MODE"
    exit 2
    ;;
esac

"$GEN" 2 --spines 2 --leaves 4 --hosts-per-leaf 4 --uplinks "$UPLINKS" --radix 8 > "$WORK/tree.net" ||
    exit 1
start_pzfabric F "$WORK/tree.net" -v --monitor-interval "$IVL" --repath-issuer "$MGR_HOST" ||
    exit 1
SOCK=${PZT_SOCK[F]}
FLOG=$WORK/F.fabric.err

# QoS: SL 0 -> VL 0 (the fast lane), SL 1 -> VL 1 (the slow lane), on every port.
cat > "$WORK/qos.conf" << 'CONF'
qos_max_vls 2
qos_high_limit 0
qos_vlarb_high 0:0
qos_vlarb_low 0:64,1:64
qos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0
CONF
start_opensm S F "$SM_HOST" -Q --conf "$WORK/qos.conf"
wait_subnet_up S 90 || exit 1
note "SUBNET UP after ${SUBNET_UP_SECONDS}s"

ctl() { "$CTL" --sockname "$SOCK" "$@"; }
# lid NODE: the LID of NODE's port 1 (SA NodeRecords).
run_diag F "$MGR_HOST" saquery NR > "$WORK/nr.txt" 2>&1
lid() {
    awk -v n="$1" '/^NodeRecord/ { lid = "" } /^[ \t]*lid\./ { lid = $0; sub(/.*\./, "", lid) }
        /NodeDescription\./ { d = $0; sub(/[^.]*\.+/, "", d); if (d == n) print lid }' \
        "$WORK/nr.txt" | head -1
}
HOT_LID=$(lid "$HOT")
VICTIM_SRC_LID=$(lid "$VICTIM_SRC")
check "the SA knows $HOT's LID ($HOT_LID) and $VICTIM_SRC's ($VICTIM_SRC_LID)" \
    test "${HOT_LID:-0}" -gt 0 -a "${VICTIM_SRC_LID:-0}" -gt 0

# The SL-to-VL tables OpenSM wrote: SL 1 to VL 1 at a CA and at a switch port.
run_diag F "$MGR_HOST" smpquery sl2vl "$VICTIM_SRC_LID" 1 > "$WORK/sl2vl.txt" 2>&1
check_eq "OpenSM's QoS: $VICTIM_SRC's SL2VL maps SL 0 and SL 1 to VL 0 and VL 1" "0 1" \
    "$(awk -F'|' '/^ports:/ { gsub(/ /, ""); print $2, $3; exit }' "$WORK/sl2vl.txt")"

# flow_field ID N: field N of flow ID's flow-list line (4 SL, 6 achieved Gb/s, 8 moved=).
flow_field() { ctl flow-list | awk -v id="$1" -v n="$2" '$1 == id { print $n }'; }
# add SRC DST GBPS [--sl SL]: a flow; its id on stdout.
add() { ctl flow-add "$@"; }
# start_flows SL: the contributors on SL and the victim on SL 0; ids in CIDS and VID.
start_flows() {
    local src
    CIDS=()
    for src in $CONTRIBUTORS; do
        CIDS+=("$(add "$src" "$HOT" 40 --sl "$1")")
    done
    VID=$(add "$VICTIM_SRC" "$VICTIM_DST" 40)
}
# stop_flows ID...: flow-del each.
stop_flows() {
    local id
    for id in "$@"; do ctl flow-del "$id" > /dev/null; done
}
# rates: the contributors' rates and the victim's, one line.
rates() {
    local id
    for id in "${CIDS[@]}" "$VID"; do printf '%s ' "$(flow_field "$id" 6)"; done
}
# sls ID...: the SL of each flow, one line.
sls() {
    local id out=()
    for id in "$@"; do out+=("$(flow_field "$id" 4)"); done
    echo "${out[*]}"
}
# lt A B: A < B (decimals).
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# notices N: wait until OpenSM logged N vendor notices.
notices() { wait_log S 20 "$VENDOR_RE" "$1"; }

# start_dftree ID ARGS...: pz-dftree at $MGR_HOST in the background (log $WORK/ID.err).
start_dftree() {
    local id=$1
    shift
    mkdir -p "$WORK/$id"
    (cd "$WORK/$id" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=$MGR_HOST IBSIM_SOCKNAME=$SOCK \
        exec "$DFTREE" "$@" > "$WORK/$id.out" 2> "$WORK/$id.err" < /dev/null) &
    # shellcheck disable=SC2004 # associative arrays: the key is the string $id
    PZT_PID[$id]=$!
    # shellcheck disable=SC2004
    PZT_LOG[$id]=$WORK/$id.err
}
# on_slow ID...: every flow is on SL 1.
on_slow() {
    local want="$*"
    [ "$(sls "$@")" = "$(echo "$want" | tr -s '0-9' '1')" ]
}

# two_hotspots: two hot-spots at once.  host-1-1 and host-2-2 each sink 25
# Gb/s; host-2-1, host-3-1, host-4-1 send host-1-1 40 Gb/s each, host-3-2,
# host-4-2, host-1-3 send host-2-2 40 Gb/s each; victims host-2-1 ->
# host-1-2 and host-4-2 -> host-3-3 (40 Gb/s each, each behind a
# contributor's flow).  Reference: the contributors on SL 1 by hand.  With
# pz-dftree both onsets are handled, every contributor flow moves to SL 1
# (a host moves only its flows to the hot-spot a notice names), both
# victims get their reference share, the contributors keep their reference
# rates; after both clear the remaining contributor flows are back on SL 0.
two_hotspots() {
    local hot_b=host-2-2 a b id ref ids_a=() ids_b=() victims=() all
    local lid_b
    lid_b=$(lid "$hot_b")
    check "ca-rate $HOT 25, $hot_b 25" ctl ca-rate "$HOT" 25
    ctl ca-rate "$hot_b" 25 > /dev/null
    # flows SL: every flow of the scenario, contributors on SL; ids in ids_a, ids_b, victims.
    flows() {
        ids_a=() ids_b=() victims=()
        for a in host-2-1 host-3-1 host-4-1; do ids_a+=("$(add "$a" "$HOT" 40 --sl "$1")"); done
        for b in host-3-2 host-4-2 host-1-3; do ids_b+=("$(add "$b" "$hot_b" 40 --sl "$1")"); done
        victims=("$(add host-2-1 host-1-2 40)" "$(add host-4-2 host-3-3 40)")
    }
    # rates_of ID...: their achieved rates, one line.
    rates_of() {
        for id in "$@"; do printf '%s ' "$(flow_field "$id" 6)"; done
    }
    flows 1
    ref=$(rates_of "${ids_a[@]}" "${ids_b[@]}" "${victims[@]}")
    note "reference (contributors on SL 1): A, B, victims: $ref"
    check "reference: both onsets reach OpenSM" notices 2
    stop_flows "${ids_a[@]}" "${ids_b[@]}" "${victims[@]}"
    check "reference: both clears reach OpenSM" notices 4
    start_dftree D --check 1000
    check "pz-dftree ready" wait_file "$WORK/D.out" 20 '^ready$' "${PZT_PID[D]}"
    flows 0
    all=("${ids_a[@]}" "${ids_b[@]}")
    note "without pz-dftree's moves yet: victims $(rates_of "${victims[@]}")"
    check "every contributor flow of both hot-spots moves to SL 1" wait_until 30 on_slow "${all[@]}"
    check "pz-dftree: hot-spot $HOT (LID $HOT_LID) handled" \
        grep -q "hot-spot: LID $HOT_LID ($HOT)" "$WORK/D.err"
    check "pz-dftree: hot-spot $hot_b (LID $lid_b) handled" \
        grep -q "hot-spot: LID $lid_b ($hot_b)" "$WORK/D.err"
    check_eq "the victims stay on SL 0" "0 0" "$(sls "${victims[@]}")"
    check_eq "with pz-dftree: contributors and victims at their reference rates" "$ref" \
        "$(rates_of "${ids_a[@]}" "${ids_b[@]}" "${victims[@]}")"
    # Clear both: one contributor flow less each, the sinks at their link rate.
    stop_flows "${ids_a[2]}" "${ids_b[2]}"
    ctl ca-rate "$HOT" 0 > /dev/null
    ctl ca-rate "$hot_b" 0 > /dev/null
    # shellcheck disable=SC2317 # called through wait_until
    back() { [ "$(sls "${ids_a[0]}" "${ids_a[1]}" "${ids_b[0]}" "${ids_b[1]}")" = "0 0 0 0" ]; }
    check "after both clears the remaining contributor flows are back on SL 0" wait_until 30 back
    check_eq "pz-dftree: two clears handled" 2 \
        "$(grep -c 'clear at switch LID .* (notice): hot-spot LID' "$WORK/D.err")"
}

if [ "$MODE" = two ]; then
    two_hotspots
    stop_pid "${PZT_PID[D]}"
    unset "PZT_PID[D]"
    pzt_finish
    exit
fi

check "ca-rate $HOT 25" ctl ca-rate "$HOT" 25

# --- 1. Reference: the contributors on SL 1 by hand ------------------------------
start_flows 1
REF_RATES=$(rates)
REF=$(flow_field "$VID" 6)
note "reference (contributors on SL 1): contributors and victim: $REF_RATES"
[ "$MODE" = small ] &&
    check_eq "reference: the victim gets its demand (40 Gb/s) with the contributors on VL 1" 40 "$REF"
check "reference: the hot-spot's onset notice reaches OpenSM" notices 1
stop_flows "${CIDS[@]}" "$VID"
check "reference: the clear notice reaches OpenSM" notices 2

# --- 2. Without pz-dftree -------------------------------------------------------------
start_flows 0
HELD_RATES=$(rates)
HELD=$(flow_field "$VID" 6)
note "without pz-dftree: contributors and victim: $HELD_RATES"
check "without pz-dftree: the victim is held below its share ($HELD < $REF)" lt "$HELD" "$REF"
check_eq "without pz-dftree: the victim runs at the contributors' pace" "$(flow_field "${CIDS[0]}" 6)" \
    "$HELD"
check "without pz-dftree: onset notice" notices 3
stop_flows "${CIDS[@]}" "$VID"
check "without pz-dftree: clear notice" notices 4

# --- 3. With pz-dftree -------------------------------------------------------------------
# small: from OpenSM's Reports; oversub: from periodic reads alone (--poll, no subscription).
if [ "$MODE" = small ]; then
    VIA=notice
    start_dftree D --check 1000
else
    VIA=poll
    start_dftree D --poll 300 --no-notices
fi
check "pz-dftree ready" wait_file "$WORK/D.out" 20 '^ready$' "${PZT_PID[D]}"
if [ "$VIA" = notice ]; then
    check "pz-dftree subscribed" grep -q 'subscribed at the SA' "$WORK/D.err"
else
    check "pz-dftree --no-notices: no subscription" grep -q 'no subscription (--no-notices)' "$WORK/D.err"
fi
start_flows 0
check "the contributors' flows move to SL 1" wait_until 30 on_slow "${CIDS[@]}"
check "pz-dftree: the onset came by $VIA (notice: OpenSM forwarded the vendor notice as a Report)" \
    grep -q "onset at switch LID .* ($VIA)" "$WORK/D.err"
check "pz-dftree: the hot-spot is $HOT (LID $HOT_LID)" \
    grep -q "hot-spot: LID $HOT_LID ($HOT)" "$WORK/D.err"
check_eq "pz-dftree: exactly the three contributors" \
    "$(for s in $CONTRIBUTORS; do echo "$s"; done | sort | tr '\n' ' ')" \
    "$(sed -n 's/.*LID [0-9]* (\([a-z0-9-]*\)): congestion .*: CONTRIBUTOR$/\1/p' "$WORK/D.err" |
        sort -u | tr '\n' ' ')"
check_eq "pz-dftree: three repath notices answered with status 0" 3 \
    "$(grep -c "repath notice for hot-spot LID $HOT_LID to LID .*answered, status 0x0000" \
        "$WORK/D.err")"
check_eq "the victim stays on SL 0, never moved" "0 moved=-" "$(flow_field "$VID" 4) $(flow_field "$VID" 8)"
GOT_RATES=$(rates)
note "with pz-dftree: contributors and victim: $GOT_RATES"
check_eq "with pz-dftree: the victim gets the reference share" "$REF" "$(flow_field "$VID" 6)"
check_eq "with pz-dftree: the contributors lose nothing" \
    "$(echo "$HELD_RATES" | cut -d' ' -f1-3)" "$(echo "$GOT_RATES" | cut -d' ' -f1-3)"
check "pzfabric logged each move" test "$(grep -c 'lane: flow .* SL 0 -> 1 (slow lane, hot-spot LID' "$FLOG")" -ge 3
check "flow-list: a contributor's flow says when it moved" \
    grep -q 'moved=[0-9]*\.[0-9]' <(ctl flow-list | awk -v id="${CIDS[0]}" '$1 == id')

# --- 4. A new flow to the hot-spot, still on, starts on the slow lane -------------------
NEW=$(add host-3-1 "$HOT" 5)
check_eq "a new flow from a contributor to the hot-spot starts on SL 1" 1 "$(flow_field "$NEW" 4)"
check "pzfabric logged it" grep -q "lane: flow $NEW .*new flow to a hot-spot" "$FLOG"
# A host not told yet (host-3-2) starts sending to the hot-spot: the recheck finds it.
LATE=$(add host-3-2 "$HOT" 40)
check_eq "a flow from a host not told starts on SL 0" 0 "$(flow_field "$LATE" 4)"
late_slow() { [ "$(flow_field "$LATE" 4)" = 1 ]; }
check "pz-dftree's recheck repaths host-3-2: its flow moves to SL 1" wait_until 30 late_slow
check "pz-dftree logged the new contributor" \
    grep -q "recheck of hot-spot LID $HOT_LID ($HOT): 1 new contributor" "$WORK/D.err"
check_eq "the victim at the reference share again" "$REF" "$(flow_field "$VID" 6)"

# --- 5. The clear: back to the fast lane ---------------------------------------------------
# Only host-2-1's contributor flow stays, and host-1-1 sinks at its link rate: no wait.
stop_flows "${CIDS[1]}" "${CIDS[2]}" "$NEW" "$LATE"
check "ca-rate $HOT 0" ctl ca-rate "$HOT" 0
on_fast() { [ "$(flow_field "${CIDS[0]}" 4)" = 0 ]; }
check "after the clear host-2-1's flow to $HOT is back on SL 0" wait_until 30 on_fast
check "pz-dftree: the clear came by $VIA" grep -q "clear at switch LID .* ($VIA)" "$WORK/D.err"
check "pz-dftree: fast-lane notice answered" \
    grep -q "fast-lane notice for hot-spot LID $HOT_LID to LID $VICTIM_SRC_LID .*status 0x0000" \
    "$WORK/D.err"
stop_flows "${CIDS[0]}" "$VID"

if [ "$MODE" = oversub ]; then
    stop_pid "${PZT_PID[D]}"
    unset "PZT_PID[D]"
    pzt_finish
    exit
fi

# --- 6. Bad input moves no flow --------------------------------------------------------------
check "ca-rate $HOT 25 again" ctl ca-rate "$HOT" 25
BAD=$(add "$VICTIM_SRC" "$HOT" 10)
before=$(ctl flow-list)
answer=$(run_diag F "$MGR_HOST" "$DFTREE" --send repath --hot 999 --to "$VICTIM_SRC_LID" 2> "$WORK/send1.err")
check_eq "repath for an unknown LID: refused with status 0x1C" "status=0x001c" "$answer"
check "pzfabric logged the refusal" grep -q "refuses a repath notice for LID 999" "$FLOG"
answer=$(run_diag F host-3-3 "$DFTREE" -t 100 --send repath --hot "$HOT_LID" --to "$VICTIM_SRC_LID" \
    2> "$WORK/send2.err")
check_eq "a notice from an untrusted issuer (host-3-3): no answer" "no answer" "$answer"
check "pzfabric logged the unknown issuer" grep -q "drops a repath notice .* unknown issuer" "$FLOG"
check_eq "no flow moved" "$before" "$(ctl flow-list)"
run_diag F host-3-3 "$DFTREE" --issuers 60000 > "$WORK/refused.out" 2> "$WORK/refused.err"
rc=$?
check_eq "a subscription the SA refuses: pz-dftree exits 1" 1 "$rc"
check "... and says so" grep -q 'the SA refused the subscription: status 0x' "$WORK/refused.err"
check "OpenSM refused it (ERR 4302)" wait_log S 10 'ERR 4302'
check_eq "still no flow moved" "$before" "$(ctl flow-list)"
stop_flows "$BAD"

# --- 7. OpenSM restarts: pz-dftree subscribes again ---------------------------------------------
stop S
start_opensm S2 F "$SM_HOST" -Q --conf "$WORK/qos.conf"
wait_subnet_up S2 90 || exit 1
check "pz-dftree notices the lost subscription and subscribes again" \
    wait_file "$WORK/D.err" 30 'holds no subscription of ours' "${PZT_PID[D]}"
check "pz-dftree: subscribed twice" wait_until 20 \
    test "$(grep -c 'subscribed at the SA' "$WORK/D.err")" -ge 2
start_flows 0
check "after the SM restart the contributors move to SL 1 again" wait_until 30 on_slow "${CIDS[@]}"
check "that onset came through the new SM's Report" \
    test "$(grep -c 'onset at switch LID .* (notice)' "$WORK/D.err")" -ge 2
check_eq "the victim gets the reference share again" "$REF" "$(flow_field "$VID" 6)"

stop_pid "${PZT_PID[D]}"
unset "PZT_PID[D]"
check "pz-dftree stops on SIGTERM, leaving the flows where they are" \
    grep -q 'stopping on signal 15: .* their flows stay on the slow lane' "$WORK/D.err"
check_eq "the flows stayed on SL 1" "1 1 1" "$(sls "${CIDS[@]}")"
pzt_finish
