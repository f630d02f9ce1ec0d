#!/bin/bash
# test_perfquery_flags.sh - every perfquery flag against
# the switches of pzfabric (tests/integration/ft-2s4l.net), values checked.
#
#   test_perfquery_flags.sh PZFABRIC PZFABRIC-CTL NETFILE [PMA_SAMPLE]
#
# PMA_SAMPLE (tests/agent/pma_sample.c) runs PortSamplesControl sessions
# during the flow of part 7; without it those checks are skipped.
#
# OpenSM brings the subnet up and is stopped: the fabric is then quiet, only
# the MADs this test sends cross its ports, so packet counts are exact.  The
# client is Hca2 (Leaf1 port 4).  A MAD to a switch counts at its ingress
# port when it arrives (Rcv) and its answer when it leaves (Xmit); the PMA
# reads the hardware when the request arrives, so a PortCounters Get sees
# its own request and perfquery's ClassPortInfo exchange, not its answer.
#
# Errors come from `pzfabric-ctl link-down` (LinkDowned) and, when pzfabric
# has it, `pzfabric-ctl error-inject`; flow data from `flow-add`/`ca-rate`.
# Without those commands their checks are skipped and the test exits 77
# (CTest: skipped) after running all the others.
#
# Every umad2sim client here runs with libpzumad2sim.so (attach/) preloaded
# after umad2sim, as in every test: umad2sim alone drops the last 32 bytes of each received MAD
# (heap garbage instead), where PortCountersExtended's VL15Dropped,
# PortXmitWait and QP1Dropped are.

# shellcheck disable=SC2153 # LEAF, SPINE and LEAF2 are set by name (fl_switch_lids)
set -uo pipefail

source "$(dirname "$0")/../fabric/fabric_lib.sh"
NET=$(abspath "${3:?usage: test_perfquery_flags.sh PZFABRIC PZFABRIC-CTL NETFILE [PMA_SAMPLE]}")
PMA_SAMPLE=${4:+$(abspath "$4")}
fl_init pqflags "$1" "$2"
pzt_require opensm perfquery smpquery ibnetdiscover
skipped=0
N=7 # MAD exchanges counted per step

# pq OUT ARG...: perfquery ARG... from Hca2 into OUT.
pq() {
    local out=$1
    shift
    diag Hca2 perfquery "$@" > "$out" 2>&1
}

# val FIELD FILE: the first "FIELD:....value" of FILE.
val() { sed -n "s/^$1:\.*\([0-9a-fx]*\)\$/\1/p" "$2" | head -1; }

# pval FILE PORT FIELD: FIELD of port PORT's block in perfquery -l output.
pval() {
    awk -v p="$2" -v f="$3" '/^# / { cur = ($NF == p || $(NF - 2) == p) }
        cur && index($0, f ":") == 1 { sub(/^[^:]*:\.*/, ""); print; exit }' "$1"
}

# want NAME FILE FIELD VALUE: FIELD of FILE is exactly VALUE.
want() { check_eq "$1" "$4" "$(val "$3" "$2")"; }

# fields_zero NAME FILE PREFIX COUNT: COUNT fields PREFIX0.. present, all 0.
fields_zero() {
    local n
    n=$(grep -cE "^$3[0-9]+:\.*0\$" "$2")
    check_eq "$1" "$4" "$n"
}

# smps N LID: N LID-routed NodeInfo Gets from Hca2 (one exchange each).
smps() {
    local i
    for ((i = 0; i < $1; i++)); do diag Hca2 smpquery nodeinfo "$2" > /dev/null 2>&1; done
}

has_ctl() { ctl help 2> /dev/null | grep -q "$1"; }

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1
check "OpenSM: SUBNET UP" fl_wait_up 60
fl_switch_lids Hca2 LEAF=Leaf1 SPINE=Spine1 LEAF2=Leaf2
fl_stop_opensm_quiet # quiet fabric from here on

# --- 1. Counted MADs, exact: Leaf1 port 4 (client side), Leaf1 port 1 and
# Spine1 port 1 (the path Hca2 -> Leaf1 -> Spine1; Leaf1's only cable to
# Spine1 is its port 1).
pq r.txt -R "$SPINE" 1 # after: Spine1.1 Xmit 1 (the Set's answer)
pq r.txt -R "$LEAF" 1  # Leaf1.1: 0 (MADs to Leaf1 do not cross it)
pq r.txt -R "$LEAF" 4  # Leaf1.4: Xmit 1
smps $N "$SPINE"
pq l4.txt "$LEAF" 4
# Xmit: reset answer + N + ClassPortInfo answer; Rcv: N + CPI + this Get.
want "default: Leaf1.4 PortXmitPkts = N+2" l4.txt PortXmitPkts $((N + 2))
want "default: Leaf1.4 PortRcvPkts = N+2" l4.txt PortRcvPkts $((N + 2))
want "default: Leaf1.4 PortXmitData = 72 words x (N+2)" l4.txt PortXmitData $((72 * (N + 2)))
want "default: Leaf1.4 PortRcvData = 72 words x (N+2)" l4.txt PortRcvData $((72 * (N + 2)))
want "default: PortSelect 4" l4.txt PortSelect 4
want "default: no symbol errors on a quiet port" l4.txt SymbolErrorCounter 0
pq l1.txt "$LEAF" 1
want "default: Leaf1.1 PortXmitPkts = N (requests to Spine1)" l1.txt PortXmitPkts $N
want "default: Leaf1.1 PortRcvPkts = N (answers from Spine1)" l1.txt PortRcvPkts $N
pq s1.txt "$SPINE" 1
want "default: Spine1.1 PortXmitPkts = N+2 (two hops away)" s1.txt PortXmitPkts $((N + 2))
want "default: Spine1.1 PortRcvPkts = N+2" s1.txt PortRcvPkts $((N + 2))
# The Spine1 read crossed Leaf1.1 with 2 requests and 2 answers.  PortCounters'
# reset also cleared the extended data counters.
pq l1x.txt -x "$LEAF" 1
want "-x: Leaf1.1 PortXmitPkts = N+2" l1x.txt PortXmitPkts $((N + 2))
want "-x: Leaf1.1 PortRcvPkts = N+2" l1x.txt PortRcvPkts $((N + 2))
want "-x: Leaf1.1 PortXmitData = 72 x (N+2)" l1x.txt PortXmitData $((72 * (N + 2)))
want "-x: Leaf1.1 PortRcvData = 72 x (N+2)" l1x.txt PortRcvData $((72 * (N + 2)))
want "-x: Leaf1.1 PortMulticastXmitPkts = 0" l1x.txt PortMulticastXmitPkts 0
want "-x: CounterSelect2 echoed" l1x.txt CounterSelect2 0x00000000
want "-x: VL15Dropped 0 (last MAD bytes intact)" l1x.txt VL15Dropped 0
want "-x: PortXmitWait 0 on a quiet port" l1x.txt PortXmitWait 0
want "-x: QP1Dropped 0" l1x.txt QP1Dropped 0
check "-x: CapMask2 0x2 (additional extended counters)" grep -q 'CapMask2: 0x0000002' l1x.txt

# -x -R resets the extended view only: unicast counts restart at 0.
pq r.txt -x -R "$LEAF" 1
smps $N "$SPINE"
pq l1x.txt -x "$LEAF" 1
want "-x -R: Leaf1.1 PortUnicastXmitPkts = N" l1x.txt PortUnicastXmitPkts $N
want "-x -R: Leaf1.1 PortUnicastRcvPkts = N" l1x.txt PortUnicastRcvPkts $N
want "-x -R: Leaf1.1 PortXmitPkts = N" l1x.txt PortXmitPkts $N
pq l1.txt "$LEAF" 1
want "-x -R left PortCounters alone: Leaf1.1 PortXmitPkts = 2N+2" l1.txt PortXmitPkts $((2 * N + 2))

# -r reads, then resets (one more Set; no new ClassPortInfo in between).
pq r.txt -R "$LEAF" 4
smps $N "$LEAF"
pq rr.txt -r "$LEAF" 4
want "-r: shows the count before its reset (Xmit N+2)" rr.txt PortXmitPkts $((N + 2))
want "-r: Rcv N+2" rr.txt PortRcvPkts $((N + 2))
pq l4.txt "$LEAF" 4
# After the reset: the Set's answer, then CPI (1/1) and this Get (Rcv 1).
want "-r: reset took effect (Xmit 2)" l4.txt PortXmitPkts 2
want "-r: reset took effect (Rcv 2)" l4.txt PortRcvPkts 2

# --- 2. -a (AllPortSelect) and -l.  Data first, on a quiet fabric; then
# LinkDowned (a cable pulled twice): the sum equals the per-port reads.
# (A pulled cable makes the switches send Trap 128 towards the SM's LID,
# which would add packets; so the data check comes before.)
pq r.txt -x -R -a "$LEAF"
pq r.txt -R -a "$LEAF"
check "-R -a: accepted" test ! -s r.txt
smps $N "$SPINE"
pq all.txt -a "$LEAF"
want "-a: PortSelect 255" all.txt PortSelect 255
# Leaf1.1: N/N; Leaf1.4: reset answer + N + CPI answer / N + CPI + this Get.
want "-a: PortXmitPkts = Leaf1.1 N + Leaf1.4 N+2" all.txt PortXmitPkts $((2 * N + 2))
want "-a: PortRcvPkts = 2N+2" all.txt PortRcvPkts $((2 * N + 2))
want "-a: PortXmitData = 72 x (2N+2)" all.txt PortXmitData $((72 * (2 * N + 2)))
pq loop.txt -l "$LEAF" 1-8
check_eq "-l: eight port blocks" 8 "$(grep -c '^# Port counters: Lid' loop.txt)"
check_eq "-l: port 1 PortXmitPkts N (unchanged by the -a read)" $N "$(pval loop.txt 1 PortXmitPkts)"
check_eq "-l: port 5 (no cable) PortXmitPkts 0" 0 "$(pval loop.txt 5 PortXmitPkts)"
# Only Leaf1 port 3 (Hca1's cable: OpenSM is gone): without an SM a pulled
# cable comes back in Init, and answers to Hca2 may route through any other.
ctl link-down Leaf1 3 > /dev/null && ctl link-up Leaf1 3 > /dev/null
ctl link-down Leaf1 3 > /dev/null && ctl link-up Leaf1 3 > /dev/null
pq all.txt -a "$LEAF"
want "-a: LinkDownedCounter sums the ports (port 3 twice)" all.txt LinkDownedCounter 2
pq loop.txt -l "$LEAF" 1-8
check_eq "-l: port 3 LinkDowned 2" 2 "$(pval loop.txt 3 LinkDownedCounter)"
sum=0
for p in 1 2 3 4 5 6 7 8; do sum=$((sum + $(pval loop.txt $p LinkDownedCounter))); done
check_eq "-l: per-port LinkDowned sum = the -a sum" 2 "$sum"
pq allx.txt -x -a "$LEAF"
want "-x -a: LinkDownedCounter 2 in the extended view" allx.txt LinkDownedCounter 2

# --- 3. Injected errors (pzfabric-ctl error-inject), exact, and their resets.
declare -A EFIELD=([symbol]=SymbolErrorCounter [link-recovery]=LinkErrorRecoveryCounter
    [link-downed]=LinkDownedCounter [rcv-errors]=PortRcvErrors
    [rcv-remote-phys]=PortRcvRemotePhysicalErrors [rcv-switch-relay]=PortRcvSwitchRelayErrors
    [xmit-discards]=PortXmitDiscards [xmit-constraint]=PortXmitConstraintErrors
    [rcv-constraint]=PortRcvConstraintErrors [local-link-integrity]=LocalLinkIntegrityErrors
    [excessive-buffer-overrun]=ExcessiveBufferOverrunErrors [vl15-dropped]=VL15Dropped)
if has_ctl error-inject; then
    pq r.txt -R "$LEAF" 3
    pq r.txt -x -R "$LEAF" 3
    i=1
    for kind in "${!EFIELD[@]}"; do
        # 4-bit fields (LocalLinkIntegrity, ExcessiveBufferOverrun) hold up to 15.
        count=$(((i % 13) + 2))
        ctl error-inject Leaf1 3 "$kind" "$count" > /dev/null
        expect[i]="$kind $count"
        i=$((i + 1))
    done
    pq e.txt "$LEAF" 3
    pq ex.txt -x "$LEAF" 3
    for e in "${expect[@]}"; do
        read -r kind count <<< "$e"
        want "error-inject $kind $count: ${EFIELD[$kind]}" e.txt "${EFIELD[$kind]}" "$count"
        want "error-inject $kind $count: -x ${EFIELD[$kind]}" ex.txt "${EFIELD[$kind]}" "$count"
    done
    # Only PortCounters' error counters reset: -R 0x0FFF (errors) on port 3.
    pq r.txt -R "$LEAF" 3 0x0fff
    pq e.txt "$LEAF" 3
    want "-R error mask clears SymbolErrorCounter" e.txt SymbolErrorCounter 0
    want "-R error mask clears PortRcvErrors" e.txt PortRcvErrors 0
    pq ex.txt -x "$LEAF" 3
    check "-x keeps its own error counts after the PortCounters reset" \
        test "$(val SymbolErrorCounter ex.txt)" != 0
    pq r.txt -x -R "$LEAF" 3
    pq ex.txt -x "$LEAF" 3
    want "-x -R clears the extended SymbolErrorCounter" ex.txt SymbolErrorCounter 0
    # -r on injected errors: read the value, then zero.
    ctl error-inject Leaf1 3 symbol 5 > /dev/null
    pq rr.txt -r "$LEAF" 3
    want "-r: reads 5 injected symbol errors" rr.txt SymbolErrorCounter 5
    pq e.txt "$LEAF" 3
    want "-r: then they are reset" e.txt SymbolErrorCounter 0
    # -a over errors on two ports.
    pq r.txt -R -a "$LEAF"
    ctl error-inject Leaf1 1 rcv-errors 4 > /dev/null
    ctl error-inject Leaf1 3 rcv-errors 9 > /dev/null
    pq all.txt -a "$LEAF"
    want "-a: PortRcvErrors 4 + 9" all.txt PortRcvErrors 13
    pq loop.txt -l "$LEAF" 1,3
    check_eq "-l: port 1 PortRcvErrors 4" 4 "$(pval loop.txt 1 PortRcvErrors)"
    check_eq "-l: port 3 PortRcvErrors 9" 9 "$(pval loop.txt 3 PortRcvErrors)"
else
    echo "skip error-inject checks: pzfabric-ctl has no error-inject"
    skipped=1
fi

# --- 4. Detail attributes (-E, -D): every field present; exact values.
pq E.txt -E "$LEAF" 3
check "-E: PortRcvErrorDetails answered" grep -q '^# PortRcvErrorDetails counters: Lid' E.txt
check_eq "-E: six detail fields" 6 "$(grep -cE '^Port(LocalPhysical|MalformedPkt|BufferOverrun|DLIDMapping|VLMapping|Looping)Errors:' E.txt)"
pq D.txt -D "$LEAF" 3
check "-D: PortXmitDiscardDetails answered" grep -q '^# PortXmitDiscardDetails counters: Lid' D.txt
check_eq "-D: four detail fields" 4 "$(grep -cE '^Port(Inactive|NeighborMTU|SwLifetimeLimit|SwHOQLifetimeLimit)Discards:' D.txt)"
if has_ctl error-inject; then
    # A detail kind counts in its detail counter and in the aggregate.
    pq r.txt -E -R "$LEAF" 3
    pq r.txt -D -R "$LEAF" 3
    pq r.txt -R "$LEAF" 3
    i=2
    for kind in local-phy malformed buffer-overrun dlid-mapping vl-mapping looping; do
        ctl error-inject Leaf1 3 "$kind" $i > /dev/null
        i=$((i + 1))
    done
    i=3
    for kind in inactive-discard neighbor-mtu-discard sw-lifetime-discard hoq-discard; do
        ctl error-inject Leaf1 3 "$kind" $i > /dev/null
        i=$((i + 1))
    done
    pq E.txt -E "$LEAF" 3
    pq D.txt -D "$LEAF" 3
    pq e.txt "$LEAF" 3
    want "-E: PortLocalPhysicalErrors 2" E.txt PortLocalPhysicalErrors 2
    want "-E: PortMalformedPktErrors 3" E.txt PortMalformedPktErrors 3
    want "-E: PortBufferOverrunErrors 4" E.txt PortBufferOverrunErrors 4
    want "-E: PortDLIDMappingErrors 5" E.txt PortDLIDMappingErrors 5
    want "-E: PortVLMappingErrors 6" E.txt PortVLMappingErrors 6
    want "-E: PortLoopingErrors 7" E.txt PortLoopingErrors 7
    want "-D: PortInactiveDiscards 3" D.txt PortInactiveDiscards 3
    want "-D: PortNeighborMTUDiscards 4" D.txt PortNeighborMTUDiscards 4
    want "-D: PortSwLifetimeLimitDiscards 5" D.txt PortSwLifetimeLimitDiscards 5
    want "-D: PortSwHOQLifetimeLimitDiscards 6" D.txt PortSwHOQLifetimeLimitDiscards 6
    want "details add up: PortRcvErrors 2+3+4+5+6+7" e.txt PortRcvErrors 27
    want "details add up: PortXmitDiscards 3+4+5+6" e.txt PortXmitDiscards 18
    pq r.txt -E -R "$LEAF" 3
    pq E.txt -E "$LEAF" 3
    want "-E -R: PortMalformedPktErrors reset" E.txt PortMalformedPktErrors 0
    pq rr.txt -D -r "$LEAF" 3
    want "-D -r: reads PortNeighborMTUDiscards 4" rr.txt PortNeighborMTUDiscards 4
    pq D.txt -D "$LEAF" 3
    want "-D -r: then resets it" D.txt PortNeighborMTUDiscards 0
    # QP1Dropped: PortCountersExtended (perfquery's PortCounters QP1Dropped is
    # libibmad's misplaced field, bytes 22-23 = VL15Dropped).
    pq r.txt -x -R "$LEAF" 3
    ctl error-inject Leaf1 3 qp1-dropped 11 > /dev/null
    pq ex.txt -x "$LEAF" 3
    want "-x: QP1Dropped 11 injected" ex.txt QP1Dropped 11
else
    want "-E: PortMalformedPktErrors 0 (nothing malformed crossed)" E.txt PortMalformedPktErrors 0
    want "-D: PortInactiveDiscards 0" D.txt PortInactiveDiscards 0
fi

# --- 5. -c: PortSamplesControl at power-on (pma/README.md).
pq c.txt -c "$LEAF" 4
want "-c: Tick 0xf9 (1 us)" c.txt Tick 0xf9
want "-c: CounterWidth 4 (32 bits)" c.txt CounterWidth 4
want "-c: SampleStatus 0 (done)" c.txt SampleStatus 0
want "-c: all 15 counters can sample (masks 1-9)" c.txt CounterMasks1to9 0x01249249
want "-c: CounterSelect0 PortXmitData" c.txt CounterSelect0 0x0001
want "-c: CounterSelect4 PortXmitWait" c.txt CounterSelect4 0x0005

# --- 6. Congestion attributes: answered, every field present; the fabric
# marks no FECN/BECN and models no congestion time, so all zero.
pq a.txt --swportvlcong "$LEAF" 4
check "--swportvlcong answered" grep -q '^# SwPortVLCongestion counters: Lid' a.txt
fields_zero "--swportvlcong: 16 VLs, all 0" a.txt SWPortVLCongestion 16
pq a.txt --rcvcc "$LEAF" 4
want "--rcvcc: PortPktRcvFECN 0" a.txt PortPktRcvFECN 0
want "--rcvcc: PortPktRcvBECN 0" a.txt PortPktRcvBECN 0
pq a.txt --slrcvfecn "$LEAF" 4
fields_zero "--slrcvfecn: 16 SLs, all 0" a.txt PortSLRcvFECN 16
pq a.txt --xmitcc "$LEAF" 4
want "--xmitcc: PortXmitTimeCong 0" a.txt PortXmitTimeCong 0
pq a.txt --vlxmittimecc "$LEAF" 4
fields_zero "--vlxmittimecc: 15 VLs, all 0" a.txt PortVLXmitTimeCong 15
pq a.txt --vlxmitcounters "$LEAF" 4
fields_zero "--vlxmitcounters: 16 VLs, all 0 on a quiet fabric" a.txt PortVLXmitWait 16
pq a.txt -X "$LEAF" 4
check_eq "-X: 16 XmtDataSL fields" 16 "$(grep -cE '^XmtDataSL[0-9]+:' a.txt)"
pq a.txt -S "$LEAF" 4
check_eq "-S: 16 RcvDataSL fields" 16 "$(grep -cE '^RcvDataSL[0-9]+:' a.txt)"
pq bad.txt --rcvcc "$LEAF" 9
check "--rcvcc on port 9 of 8 is refused" fails grep -q '^# PortRcvConCtrl' bad.txt

# --- 7. Flow data (pzfabric-ctl flow-add): Hca5 (Leaf3 port 3) -> Hca3
# (Leaf2 port 3) on SL 2.  Rates are checked over ~2 s between two reads,
# timed by their answers (two_reads).  Leaf2 port 3 and Leaf3 port 3 carry
# no MADs.  Flow rates are wire bytes (LRH..VCRC); PortXmitData counts LRH..ICRC,
# 2 bytes a packet less (0.1% at MTU 2048), well inside the 2%.
GBPS=${PZT_FLOW_GBPS:-2}
SL=2
if has_ctl flow-add; then
    # within_pct PCT NAME GOT WANT: GOT within PCT% of WANT (both numbers).
    within_pct() {
        local verdict
        verdict=$(awk -v p="$1" -v g="$3" -v w="$4" 'BEGIN { d = (g - w) / w; if (d < 0) d = -d;
            printf "%s %.4f", (d <= p / 100) ? "ok" : "off", d }')
        echo "     $2: got $3, want $4, deviation ${verdict#* }"
        check "$2 (within $1%)" test "${verdict%% *}" = ok
    }
    # within2 NAME GOT WANT: GOT within 2% of WANT.
    within2() { within_pct 2 "$@"; }
    # two_reads A B FIELD ARG...: perfquery ARG... twice, 2 s apart, into A
    # and B; prints "delta-of-FIELD seconds".  The time of each read is when
    # its answer arrived (libpzumad2sim.so's PZ_UMAD2SIM_MAD_LOG: the last MAD a
    # perfquery receives is the counters' answer; the PMA read them one
    # round trip earlier, the same for both reads).
    two_reads() {
        local a=$1 b=$2 f=$3 t1 t2
        shift 3
        rm -f "$WORK/madlog.a" "$WORK/madlog.b"
        export PZ_UMAD2SIM_MAD_LOG=$WORK/madlog.a
        pq "$a" "$@"
        sleep 2
        export PZ_UMAD2SIM_MAD_LOG=$WORK/madlog.b
        pq "$b" "$@"
        unset PZ_UMAD2SIM_MAD_LOG
        t1=$(tail -n 1 "$WORK/madlog.a")
        t2=$(tail -n 1 "$WORK/madlog.b")
        echo "$(($(val "$f" "$b") - $(val "$f" "$a"))) $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.6f", b - a }')"
    }
    # one_vl FILE PREFIX: the VLs (0..15) whose PREFIXn is not 0.
    one_vl() {
        local v out=
        for v in $(seq 0 15); do
            [ "$(val "$2$v" "$1")" = 0 ] || [ -z "$(val "$2$v" "$1")" ] || out="$out $v"
        done
        echo "${out# }"
    }
    BYTES_S=$(awk -v g="$GBPS" 'BEGIN { print g * 1e9 / 8 }')
    LEAF3=$(fl_switch_lid Leaf3 disc.txt)
    id=$(ctl flow-add Hca5 Hca3 "$GBPS" --sl $SL | tail -1)
    check "flow-add printed an id" test -n "$id"
    check_eq "flow-list: routed at its demand" "$id Hca5 Hca3 $SL $GBPS $GBPS routed" \
        "$(ctl flow-list | awk -v id="$id" '$1 == id { print $1, $2, $3, $4, $5, $6, $7 }')"
    read -r dx dt < <(two_reads x1.txt x2.txt PortXmitData -x "$LEAF2" 3)
    within2 "-x: Leaf2.3 PortXmitData x 4 = rate x time" $((dx * 4)) "$(awk -v r="$BYTES_S" -v t="$dt" 'BEGIN { printf "%.0f", r * t }')"
    want "-x: no error counted by the flow" x2.txt PortXmitDiscards 0
    # PortSamplesControl sessions of 50 ms on Leaf2 port 3 sample 50 ms of
    # the flow: pzfabric ends them on time, not at its next 50 ms tick
    # (which made a session 0-50 ms too long).  A session starts at the Set
    # and never ends early, so every session has at least 90% of 50 ms of the
    # flow.  It ends when pzfabric's loop runs at its deadline, which a
    # loaded machine delays (ASan under stress-ng --cpu 2: +50% once) and
    # which the PMA does not report: the 10% upper bound (5 ms) is met by the
    # shortest of up to three sessions (the old tick, 0-50 ms late at random,
    # still fails about three runs in four).
    if [ -n "$PMA_SAMPLE" ]; then
        PS_WANT=$(awk -v r="$BYTES_S" 'BEGIN { printf "%.0f", r * 0.05 }')
        best=
        for i in 1 2 3; do
            diag Hca2 "$PMA_SAMPLE" "$LEAF2" 3 50000 > ps.txt 2>&1
            check "PortSamplesResult $i: done, with the session's tag" grep -q '^status 0 tag 0x5a17 ' ps.txt
            got=$(($(sed -n 's/.* xmit_data \([0-9]*\) .*/\1/p' ps.txt) * 4))
            check "PortSamplesResult $i: Leaf2.3 PortXmitData x 4 >= 90% of rate x 50 ms ($got, $PS_WANT)" \
                test "$((got * 10))" -ge "$((PS_WANT * 9))"
            if [ -z "$best" ] || ((got < best)); then best=$got; fi
            ((i >= 2 && best * 10 <= PS_WANT * 11)) && break
        done
        within_pct 10 "PortSamplesResult: the shortest of $i sessions: Leaf2.3 PortXmitData x 4 = rate x 50 ms" \
            "$best" "$PS_WANT"
    else
        echo "skip PortSamplesControl session checks: no pma_sample"
        skipped=1
    fi
    read -r dr dt < <(two_reads x1.txt x2.txt PortRcvData -x "$LEAF3" 3)
    within2 "-x: Leaf3.3 PortRcvData (flow ingress) x 4 = rate x time" $((dr * 4)) "$(awk -v r="$BYTES_S" -v t="$dt" 'BEGIN { printf "%.0f", r * t }')"
    pq r.txt -X -R "$LEAF2" 3
    read -r dsl dt < <(two_reads s1.txt s2.txt XmtDataSL$SL -X "$LEAF2" 3)
    within2 "-X: Leaf2.3 XmtDataSL$SL x 4 = rate x time" $((dsl * 4)) "$(awk -v r="$BYTES_S" -v t="$dt" 'BEGIN { printf "%.0f", r * t }')"
    check_eq "-X: only SL $SL carries data" "$SL" "$(one_vl s2.txt XmtDataSL)"
    pq r.txt -S -R "$LEAF3" 3
    read -r dsl dt < <(two_reads s1.txt s2.txt RcvDataSL$SL -S "$LEAF3" 3)
    within2 "-S: Leaf3.3 RcvDataSL$SL x 4 = rate x time" $((dsl * 4)) "$(awk -v r="$BYTES_S" -v t="$dt" 'BEGIN { printf "%.0f", r * t }')"
    check_eq "-S: only SL $SL carries data" "$SL" "$(one_vl s2.txt RcvDataSL)"
    # Per VL: received data and packets at the flow's ingress, Leaf3 port 3.
    pq r.txt --vlopdata -R "$LEAF3" 3
    pq r.txt --vloppackets -R "$LEAF3" 3
    pq v1.txt --vlopdata "$LEAF3" 3
    VL=$(one_vl v1.txt PortVLOpData)
    check "--vlopdata: the flow's data on one VL ($VL)" test -n "$VL" -a "${VL// /}" = "$VL"
    read -r dv dt < <(two_reads v1.txt v2.txt "PortVLOpData$VL" --vlopdata "$LEAF3" 3)
    within2 "--vlopdata: VL $VL data x 4 = rate x time" $((dv * 4)) "$(awk -v r="$BYTES_S" -v t="$dt" 'BEGIN { printf "%.0f", r * t }')"
    pq p.txt --vloppackets "$LEAF3" 3
    check_eq "--vloppackets: packets on VL $VL only" "$VL" "$(one_vl p.txt PortVLOpPackets)"
    # XmitWait: Hca3 sinks at half the flow's rate, so Leaf2 port 3 sends
    # GBPS/2 on its link and waits (1 - sent/capacity) x 1e6 ticks/s.
    pi=$(diag Hca2 smpquery portinfo "$LEAF2" 3)
    lanes=$(sed -n 's/^LinkWidthActive:\.*\([0-9]*\)X$/\1/p' <<< "$pi")
    ext=$(sed -n 's/^LinkSpeedExtActive:\.*\([0-9.]*\) Gbps$/\1/p' <<< "$pi")
    sdr=$(sed -n 's/^LinkSpeedActive:\.*\([0-9.]*\) Gbps$/\1/p' <<< "$pi")
    CAP=$(awk -v l="$lanes" -v e="$ext" -v s="$sdr" 'BEGIN {
        printf "%.6f", (e > 0) ? l * e * 64 / 66 : l * s * 8 / 10 }')
    echo "     Leaf2.3 link: ${lanes}X, data rate $CAP Gb/s"
    HALF=$(awk -v g="$GBPS" 'BEGIN { print g / 2 }')
    ctl ca-rate Hca3 "$HALF" > /dev/null
    check_eq "ca-rate: the flow drops to half" "$HALF" "$(ctl flow-list | awk -v id="$id" '$1 == id { print $6 }')"
    read -r dw dt < <(two_reads w1.txt w2.txt PortXmitWait -x "$LEAF2" 3)
    within2 "ca-rate: -x Leaf2.3 PortXmitWait ticks = (1 - sent/capacity) x 1e6 x time" "$dw" \
        "$(awk -v h="$HALF" -v c="$CAP" -v t="$dt" 'BEGIN { printf "%.0f", (1 - h / c) * 1e6 * t }')"
    pq r.txt -R "$LEAF2" 3
    pq w.txt "$LEAF2" 3
    check "ca-rate: PortCounters PortXmitWait counts too" test "$(val PortXmitWait w.txt)" -gt 0
    pq r.txt --vlxmitcounters -R "$LEAF2" 3
    pq wv.txt --vlxmitcounters "$LEAF2" 3
    WVL=$(one_vl wv.txt PortVLXmitWait)
    check "--vlxmitcounters: one VL waits ($WVL)" test -n "$WVL" -a "${WVL// /}" = "$WVL"
    check "--vlxmitcounters: 16-bit, at most 65535" test "$(val "PortVLXmitWait$WVL" wv.txt)" -le 65535
    ctl flow-del "$id" > /dev/null
    check "flow-del" test $? = 0
    # Units: Leaf2 port 3 carried only the flow's packets, each NeighborMTU +
    # 24 bytes from LRH to ICRC; PortXmitData leaves out the 2-byte VCRC
    # (IBA), so data x 4 = packets x (MTU + 24), up to one packet in flight.
    mtu=$(sed -n 's/^NeighborMTU:\.*\([0-9]*\)$/\1/p' <<< "$pi")
    pq u.txt -x "$LEAF2" 3
    check "-x: Leaf2.3 PortXmitData x 4 = PortXmitPkts x (MTU $mtu + 24), no VCRC" \
        awk -v d="$(val PortXmitData u.txt)" -v p="$(val PortXmitPkts u.txt)" -v m="$mtu" \
        'BEGIN { e = d * 4 - p * (m + 24); exit !(m > 0 && p > 1000 && e >= -(m + 24) && e <= m + 24) }'
    ctl ca-rate Hca3 0 > /dev/null
else
    echo "skip flow checks: pzfabric-ctl has no flow-add"
    skipped=1
fi

check "pzfabric still running" kill -0 "$FABRIC_PID"
fl_stop_fabric
check_eq "pzfabric exits 0 on SIGTERM" 0 "$FABRIC_RC"
fl_finish || exit 1
[ "$skipped" = 0 ] || exit 77
