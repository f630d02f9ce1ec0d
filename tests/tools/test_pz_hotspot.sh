#!/bin/bash
# test_pz_hotspot.sh - pz-hotspot against pzfabric's in-process switches
# (their congestion monitors, served as the vendor PMA attribute 0xFF30),
# through libumad2sim.so like the diags, with OpenSM assigning the LIDs:
# the summary's values, a port record facing a CA, a Set read back, the
# sampling rate after the Set (counted against the switch's board time), and
# every error path (bad port, bad value,
# bad --set list, a CA without a monitor, a LID nobody has). Uses the
# harness of tests/integration (lib.sh): everything started is stopped by PID.
set -uo pipefail

# shellcheck disable=SC2034 # used by lib.sh's start_pzfabric
PZFABRIC=${1:?usage: test_pz_hotspot.sh PZFABRIC PZ_HOTSPOT}
HOTSPOT=${2:?usage: test_pz_hotspot.sh PZFABRIC PZ_HOTSPOT}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
source "$HERE/../integration/lib.sh"
NET=$HERE/../integration/ft-2s4l.net

pzt_init pz-hotspot
pzt_require opensm ibswitches smpquery
start_pzfabric F "$NET" || exit 1
start_opensm S F Hca1
wait_subnet_up S 60 || exit 1

# hs ARGS...: pz-hotspot from Hca1; stdout to $WORK/hs.out, stderr to $WORK/hs.err, sets RC.
hs() {
    (cd "$WORK" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=${PZT_SOCK[F]} \
        "$HOTSPOT" "$@" > "$WORK/hs.out" 2> "$WORK/hs.err")
    RC=$?
}
# hs_field KEY: the value of KEY= in the first line of $WORK/hs.out.
hs_field() { head -n 1 "$WORK/hs.out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

leaf=$(run_diag F Hca1 ibswitches | sed -n 's/.*"Leaf1".* lid \([0-9]*\) .*/\1/p')
hca=$(run_diag F Hca3 smpquery portinfo -D 0 | sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
check "Leaf1 and Hca3 have LIDs ($leaf, $hca)" test -n "$leaf" -a -n "$hca"

hs -t 3000 "$leaf"
check_eq "summary: exit 0" 0 "$RC"
check_eq "summary: defaults" \
    "lid=$leaf version=1 ports=8 interval_ms=1000 threshold=100000 low_util=50 clear=50 history=16" \
    "$(head -n 1 "$WORK/hs.out" | cut -d' ' -f1-8)"
check_eq "summary: tick 1 us" 1000 "$(hs_field tick_ns)"
check_eq "summary: an idle fabric has no congested port (one line)" 1 "$(wc -l < "$WORK/hs.out")"

hs -t 3000 "$leaf" 3
check_eq "port 3: exit 0" 0 "$RC"
check_eq "port 3: port, class, peer" "3 normal ca" "$(hs_field port) $(hs_field class) $(hs_field peer)"
check_eq "port 3: link up at 4x EDR" "1 100000000000" "$(hs_field link_up) $(hs_field link_bps)"
check_eq "port 3: no congestion" 0 "$(hs_field congestion)"

hs -t 3000 "$leaf" 9
check_eq "port 9: exit 1" 1 "$RC"
check "port 9: status 0x1C" grep -q "MAD status 0x001c" "$WORK/hs.err"

hs -t 3000 --set interval=200,threshold=50000,util=40,clear=60,history=8 "$leaf"
check_eq "set: exit 0" 0 "$RC"
want="interval_ms=200 threshold=50000 low_util=40 clear=60 history=8"
check_eq "set: answer" "$want" "$(head -n 1 "$WORK/hs.out" | cut -d' ' -f4-8)"
hs -t 3000 "$leaf"
check_eq "set: read back" "$want" "$(head -n 1 "$WORK/hs.out" | cut -d' ' -f4-8)"
# The sampling rounds between two summaries, against the switch's own clock:
# port records just before the first and after the second give board times
# (now_ns) around both answers.  Rounds are never early (each is due an
# interval after the one before, or after the round it was due at), so in a
# span of S ms a 200 ms interval allows at most ceil(S / 200) + 1 of them;
# more than a 1000 ms interval allows shows the Set took effect.  A late
# scheduler only delays rounds: neither bound is wall-clock slack.
hs -t 3000 "$leaf" 3
n0=$(hs_field now_ns)
hs -t 3000 "$leaf"
s0=$(hs_field samples)
sleep 2
hs -t 3000 "$leaf"
s1=$(hs_field samples)
hs -t 3000 "$leaf" 3
n1=$(hs_field now_ns)
span=$((n1 - n0))
rounds=$((s1 - s0))
# most IVL_MS: the most rounds an interval of IVL_MS allows in the span.
most() { echo $(((span + $1 * 1000000 - 1) / ($1 * 1000000) + 1)); }
check "set: at most one round per 200 ms ($rounds rounds in $((span / 1000000)) ms of board time)" \
    test "$rounds" -le "$(most 200)"
check "set: more rounds than a 1000 ms interval allows ($rounds > $(most 1000))" \
    test "$rounds" -gt "$(most 1000)"

hs -t 3000 --set interval=50 "$leaf"
check_eq "set interval 50: exit 1" 1 "$RC"
check "set interval 50: status 0x1C" grep -q "MAD status 0x001c" "$WORK/hs.err"
hs -t 3000 "$leaf"
check_eq "set interval 50: nothing changed" "$want" "$(head -n 1 "$WORK/hs.out" | cut -d' ' -f4-8)"

hs -t 3000 --set bogus=1 "$leaf"
check_eq "bad --set list: exit 2" 2 "$RC"

hs -t 3000 "$hca"
check_eq "a CA: exit 1" 1 "$RC"
check "a CA: status 0x0C" grep -q "MAD status 0x000c" "$WORK/hs.err"

hs -t 300 4000
check_eq "nobody at LID 4000: exit 2" 2 "$RC"

hs
check_eq "no LID: usage, exit 2" 2 "$RC"

pzt_finish
