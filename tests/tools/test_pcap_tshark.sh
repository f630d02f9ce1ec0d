#!/bin/bash
# test_pcap_tshark.sh - fabric/pcap's capture files as tshark decodes them:
# pcap_sample writes DR and LID-routed SMPs, a PMA Get and GetResp and a
# small UD packet; tshark's InfiniBand dissector must find every LRH, BTH,
# DETH and MAD field where we put it, the ICRC and VCRC trailers where it
# shows them, and nothing malformed.
#
# The pcap file's link type is LINKTYPE_INFINIBAND (247).  Wireshark (4.0
# at least) maps no pcap link type to its InfiniBand dissector, so the test
# reads a copy whose link type is USER0 (147) with a user DLT table entry
# that sends USER0 to the "infiniband" dissector.  The same packets written
# as ERF records (pcap_sample --erf) are read by tshark as they are; every
# decoding check runs on both.
set -euo pipefail

SAMPLE=${1:?usage: test_pcap_tshark.sh PCAP_SAMPLE}
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
WORK=$(mktemp -d)
UAT='uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'
failures=0
passes=0

cleanup() {
    local rc=$?
    pzt_cleanup_work 0
    exit "$rc"
}
trap cleanup EXIT

# The 4 little-endian bytes at offset $2 of file $1, as a number.
le32() {
    od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '
}

# tshark on the file under test ($INPUT: user0.pcap with the user DLT
# table, or the ERF file); stderr (the "running as root" note) dropped.
ts() {
    if [ "$INPUT" = erf ]; then
        tshark -r "$WORK/ib.erf" "$@" 2> /dev/null
    else
        tshark -r "$WORK/user0.pcap" -o "$UAT" "$@" 2> /dev/null
    fi
}

# Fields of every packet, comma separated.
fields() {
    local args=()
    for f in "$@"; do
        args+=(-e "$f")
    done
    ts -T fields -E separator=, "${args[@]}"
}

"$SAMPLE" "$WORK/ib.pcap" > "$WORK/trailers.txt"
check "magic: pcap, nanosecond stamps" test "$(le32 "$WORK/ib.pcap" 0)" -eq $((0xa1b23c4d))
check "link type 247 (LINKTYPE_INFINIBAND)" test "$(le32 "$WORK/ib.pcap" 20)" -eq 247
cp "$WORK/ib.pcap" "$WORK/user0.pcap"
printf '\223' | dd of="$WORK/user0.pcap" bs=1 seek=20 conv=notrunc status=none

"$SAMPLE" --erf "$WORK/ib.erf" > "$WORK/trailers-erf.txt"
check "ERF: same trailers" cmp -s "$WORK/trailers.txt" "$WORK/trailers-erf.txt"
check "ERF: no file header, first record type 21" test "$(od -An -tu1 -j 8 -N1 "$WORK/ib.erf" | tr -d ' ')" -eq 21

# What every decoding must show (see pcap_sample.c for the packets).
cat > "$WORK/lrh.want" << 'EOF'
290,0x0f,0,0x02,65535,65535,72
290,0x0f,0,0x02,5,1,72
290,0x00,0,0x02,5,1,72
290,0x00,1,0x02,1,5,72
50,0x00,0,0x02,1,5,12
EOF
cat > "$WORK/bth.want" << 'EOF'
100,0,65535,0x000000,0,0x0000000000000000,0x00000000
100,0,65535,0x000000,0,0x0000000000000000,0x00000000
100,0,65535,0x000001,0,0x0000000080010000,0x00000001
100,0,32767,0x000001,77,0x0000000080010000,0x00000001
100,3,65535,0x000002,0,0x0000000011111111,0x00123456
EOF
cat > "$WORK/mad.want" << 'EOF'
0x81,0x01,0x0011,0x00000000,0x02,
0x01,0x01,0x0015,0x00000003,,
0x04,0x01,0x0012,0x00000000,,0x02
0x04,0x81,0x0012,0x00000000,,0x02
,,,,,
EOF
grep -E '^(1|2|5) ' "$WORK/trailers.txt" > "$WORK/crc.want"

# decode_checks: every decoding check on $INPUT (check names carry its label).
decode_checks() {
    check "$INPUT: tshark reads 5 packets" test "$(ts | wc -l)" -eq 5

    # Time stamps: 1700000000 + i seconds, 1000 * i nanoseconds.
    check "$INPUT: time stamps" test "$(fields frame.time_epoch | tr '\n' ' ')" = \
        "1700000000.000000000 1700000001.000001000 1700000002.000002000 1700000003.000003000 1700000004.000004000 "

    # LRH: length, VL, SL, LNH, DLID, SLID, PktLen (lrh.want).
    fields frame.len infiniband.lrh.vl infiniband.lrh.sl infiniband.lrh.lnh infiniband.lrh.dlid \
        infiniband.lrh.slid infiniband.lrh.pktlen > "$WORK/lrh.txt"
    check "$INPUT: LRH fields" diff -u "$WORK/lrh.want" "$WORK/lrh.txt"

    # BTH and DETH: opcode, pad count, P_Key, dest QP, PSN, Q_Key, source QP (bth.want).
    fields infiniband.bth.opcode infiniband.bth.padcnt infiniband.bth.p_key infiniband.bth.destqp \
        infiniband.bth.psn infiniband.deth.q_key infiniband.deth.srcqp > "$WORK/bth.txt"
    check "$INPUT: BTH and DETH fields" diff -u "$WORK/bth.want" "$WORK/bth.txt"

    # MADs: class, method, attribute, modifier; DR hop count; PMA PortSelect (mad.want).
    fields infiniband.mad.mgmtclass infiniband.mad.method infiniband.mad.attributeid \
        infiniband.mad.attributemodifier infiniband.smpdirected.hopcount \
        infiniband.portcounters.portselect > "$WORK/mad.txt"
    check "$INPUT: MAD fields" diff -u "$WORK/mad.want" "$WORK/mad.txt"
    check "$INPUT: summary: SubnGet(NodeInfo), SubnGet(PortInfo), PERF" \
        test "$(ts | grep -c -e 'SubnGet(NodeInfo)' -e 'SubnGet(PortInfo)' -e 'PERF (PortCounters)')" -eq 4

    # Trailers: tshark shows ICRC and VCRC for the SMPs and the plain UD packet
    # (its PerfMgt decoder leaves them out); they are where the writer put them.
    fields frame.number infiniband.invariant.crc infiniband.variant.crc | tr ',' ' ' |
        awk 'NF == 3' > "$WORK/crc.txt"
    check "$INPUT: ICRC and VCRC at the end of packets 1, 2, 5" diff -u "$WORK/crc.want" "$WORK/crc.txt"

    # Nothing malformed: the InfiniBand dissector flags bad lengths in the
    # summary line, others through _ws.malformed; no expert notes either.
    check "$INPUT: no packet flagged malformed" test "$(ts | grep -ci malformed || true)" -eq 0
    check "$INPUT: no _ws.malformed" test -z "$(ts -Y _ws.malformed)"
    check "$INPUT: no expert info" test -z "$(ts -q -z expert | grep -v '^=*$' || true)"
}

for INPUT in pcap erf; do
    decode_checks
done

checks_finish
