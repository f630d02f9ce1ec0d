#!/bin/bash
# test_mkey.sh PZFABRIC SMP_SET SMP_TOOL - M_Key protection of
# portzero's SMA under OpenSM, on ft-2s4l.net.
#
# OpenSM runs with a configuration file made from its own template
# (opensm -c) with m_key set, m_key_protection_level 2 and
# m_key_lease_period 0 (the lease never expires; with a lease the SM's own
# TrapRepresses, which carry the valid key, stop the timer anyway).
#
#   - SUBNET UP: OpenSM sets the key on every port and keeps talking to
#     them with it (no "mis-set mkey" timeouts); its guid2mkey cache holds
#     the key for every port;
#   - a diag still attaches at an M_Key-protected CA (its node's own reads
#     ignore the M_Key, as a driver's local queries do) and that causes no
#     violation there;
#   - for every switch: Get PortInfo WITHOUT -y gets no answer, counts an
#     M_KeyViolation and sends Trap 256 (Method Get) that OpenSM logs; WITH
#     -y it is answered: the LID, the key (-K), ProtectBits 2, the count;
#   - a Set with a wrong key (smp_set: Set NodeDescription, since every diag
#     Gets first) gets no answer, changes nothing, and OpenSM logs Trap 256
#     with Method Set, the attribute and the offending key; with the right
#     key the same Set is answered;
#   - ibportstate query with a wrong key fails, with the key it reads the
#     port and its peer (a combined route, the key again);
#   - 5000 LID-routed Gets with a wrong key to Leaf4 (smp_tool flood): 5000
#     timeouts, MKeyViolations up by exactly 5000, and right after them a
#     Get and a Set with the key are answered, OpenSM still without ERR 3120;
#   - every Trap 256 is repressed (OpenSM logs each TID once);
#   - a second OpenSM configured with m_key_lease_period 3 and
#     sweep_interval 30: it raises the lease to 31 itself (a lease must
#     outlast a sweep; it logs so) and writes 31, which the switches report:
#     MkeyLeasePeriod 31 is OpenSM's doing, not the SMA's.
set -euo pipefail

source "$(dirname "$0")/lib.sh"
pzt_paths "test_mkey.sh PZFABRIC SMP_SET SMP_TOOL" "$@"
pzt_require opensm ibnetdiscover smpquery ibportstate
pzt_init mkey

NET=$PZT_HERE/ft-2s4l.net
HOST=Hca5
KEY=0x00000000c0ffee01
WRONG=0x0000000000001234

# The configuration: OpenSM's own template with the three M_Key options set.
opensm -c "$WORK/template.conf" > /dev/null 2>&1 || true
sed -E -e "s/^m_key .*/m_key $KEY/" -e 's/^m_key_protection_level .*/m_key_protection_level 2/' \
    -e 's/^m_key_lease_period .*/m_key_lease_period 0/' "$WORK/template.conf" > "$WORK/mkey.conf"
check "opensm.conf: m_key, protection level 2, lease 0" \
    test "$(grep -cE "^(m_key $KEY|m_key_protection_level 2|m_key_lease_period 0)$" "$WORK/mkey.conf")" = 3

start_pzfabric fab "$NET"
start_opensm sm fab Hca1 --conf "$WORK/mkey.conf"
if ! wait_subnet_up sm 30; then
    check "OpenSM with M_Key protection level 2: SUBNET UP" false
    exit 1
fi
check "OpenSM with M_Key protection level 2: SUBNET UP" true
diag() { run_diag fab "$HOST" "$@"; }

# Node names and LIDs (the diag itself must attach first: see the next check).
diag smpquery -y "$KEY" -D nodedesc 0 > self 2>&1 || true
check_eq "a diag attaches at M_Key-protected $HOST and reads its own node" "$HOST" "$(field self 'Node Description')"
diag ibnetdiscover -y "$KEY" > disc 2> /dev/null || true
disc_switches disc > switches
check_eq "ibnetdiscover (with the key) finds the 6 switches" 6 "$(wc -l < switches)"
HOST_LID=$(disc_lid disc "$HOST")

sleep 1 # OpenSM writes its caches after the sweep
check_eq "OpenSM's guid2mkey: the key for all 14 ports" 14 \
    "$(grep -c " $KEY\$" "$WORK/sm/cache/guid2mkey" 2> /dev/null || true)"
check "OpenSM: no M_Key timeouts (ERR 3120 'mis-set mkey')" \
    bash -c "! grep -qE 'ERR 3120|mis-set mkey' '$WORK/sm/osm.log'"

# Every switch: no key -> no answer + Trap 256; key -> answer.
bad_nokey='' bad_trap='' bad_key=''
while read -r s l; do
    t0=$(count_log sm "Bad M_Key\" from LID $l, .*Method 0x1, ")
    if diag smpquery -t 200 portinfo "$l" 0 > nokey 2>&1 || grep -q '^Lid:' nokey; then
        bad_nokey+=" $s"
    fi
    wait_log sm 5 "Bad M_Key\" from LID $l, .*Method 0x1, .*M_Key 0x0000000000000000" $((t0 + 1)) ||
        bad_trap+=" $s"
    diag smpquery -K -y "$KEY" portinfo "$l" 0 > key 2>&1 || true
    v=$(field key MkeyViolations)
    got="$(field key Lid) $(field key Mkey) $(field key ProtectBits) $((${v:-0} > 0))"
    [ "$got" = "$l $KEY 2 1" ] || bad_key+=" $s(got '$got')"
done < switches
[ -s switches ] || bad_nokey=" (no switches found)" bad_trap=" (none)" bad_key=" (none)"
check_eq "Get PortInfo without -y: no answer from any switch" "" "$bad_nokey"
check_eq "... each sends Trap 256 (Get, M_Key 0) that OpenSM logs" "" "$bad_trap"
check_eq "Get PortInfo with -y: every switch answers (LID, Mkey, ProtectBits 2, violations counted)" "" "$bad_key"

# A Set with a wrong key, on Leaf4.
L4=$(awk '$1 == "Leaf4" { print $2 }' switches)
t0=$(count_log sm "Bad M_Key\" from LID $L4, .*Method 0x2, Attribute 0x10, .*M_Key $WRONG")
set +e
diag "$SMP_SET" -y "$WRONG" -t 200 "$L4" pzt-bad-mkey > set.out 2>&1
rc=$?
set -e
check_eq "Set NodeDescription with a wrong M_Key: no answer" 1 "$rc"
check "... OpenSM logs Trap 256 from Leaf4: Method 0x2 (Set), Attribute 0x10, the wrong key" \
    wait_log sm 5 "Bad M_Key\" from LID $L4, .*Method 0x2, Attribute 0x10, AttrMod 0x0, M_Key $WRONG" $((t0 + 1))
diag smpquery -y "$KEY" nodedesc "$L4" > nd 2>&1 || true
check_eq "... and nothing changed: NodeDescription still Leaf4" Leaf4 "$(field nd 'Node Description')"
diag "$SMP_SET" -y "$KEY" -t 1000 "$L4" Leaf4 > set.out 2>&1 || true
check_eq "the same Set with the right key is answered" Leaf4 "$(cat set.out)"

# ibportstate (Get of the port, then of its peer by a combined route).
set +e
diag ibportstate -y "$WRONG" -t 200 "$L4" 1 query > q.bad 2>&1
rc=$?
set -e
check "ibportstate -y <wrong> query: fails" test "$rc" != 0
diag ibportstate -y "$KEY" "$L4" 1 query > q 2>&1 || true
check_eq "ibportstate -y <key> query: port and peer read, both Active" 2 "$(grep -c '^LinkState:\.*Active$' q)"

# A flood of wrong keys: counted one by one, and the SM keeps the switch.
diag smpquery -y "$KEY" portinfo "$L4" 0 > v0 2>&1 || true
diag "$SMP_TOOL" -y "$WRONG" -t 1000 flood "$L4" 5000 > flood.out 2>&1 || true
check_eq "5000 Gets with a wrong key to Leaf4: 5000 timeouts" "answered 0 timeouts 5000 other 0" \
    "$(cat flood.out)"
diag smpquery -y "$KEY" portinfo "$L4" 0 > v1 2>&1 || true
v0=$(field v0 MkeyViolations) v1=$(field v1 MkeyViolations)
check_eq "... then a Get with the key is answered: MKeyViolations up by exactly 5000" 5000 \
    $((${v1:-0} - ${v0:-0}))
diag "$SMP_SET" -y "$KEY" -t 1000 "$L4" Leaf4 > set.out 2>&1 || true
check_eq "... and a Set with the key" Leaf4 "$(cat set.out)"
check "OpenSM kept the switch: no ERR 3120 'mis-set mkey'" \
    bash -c "! grep -qE 'ERR 3120|mis-set mkey' '$WORK/sm/osm.log'"

# Traps are repressed: every Trap 256 TID from a switch once in OpenSM's log
# (a TrapRepress carries the key; a lost one makes the SMA resend the trap
# every 1.07 s with the same TID).
sleep 2.5
dups=$(grep -oE 'num:256 .*Producer:2 .*TID:0x[0-9a-f]+' "$WORK/sm/osm.log" | sed 's/.*TID://' | sort | uniq -d | paste -sd, -)
check_eq "every Trap 256 of a switch repressed (no TID twice)" "" "$dups"

check "no violation at $HOST from its own reads (no Trap 256 from LID $HOST_LID)" \
    bash -c "! grep -q 'Bad M_Key\" from LID $HOST_LID,' '$WORK/sm/osm.log'"
diag smpquery -y "$KEY" portinfo "$HOST_LID" 1 > hpi 2>&1 || true
check_eq "... its MkeyViolations is 0" 0 "$(field hpi MkeyViolations)"

# OpenSM with a lease of 3 s and a sweep every 30 s.
stop sm
sed -E -e 's/^m_key_lease_period .*/m_key_lease_period 3/' -e 's/^sweep_interval .*/sweep_interval 30/' \
    "$WORK/mkey.conf" > "$WORK/lease.conf"
start_opensm sm2 fab Hca1 --conf "$WORK/lease.conf"
if wait_subnet_up sm2 30; then
    check "OpenSM raises the lease itself: 'Setting lease period to 31'" \
        grep -q 'Sweep interval 30 >= mkey lease period 3. Setting lease period to 31' "$WORK/sm2/osm.log" "$WORK/sm2/opensm.out"
    diag smpquery -y "$KEY" portinfo "$L4" 0 > lease 2>&1 || true
    check_eq "Leaf4 reports the lease OpenSM wrote: MkeyLeasePeriod 31" 31 "$(field lease MkeyLeasePeriod)"
else
    check "OpenSM (lease 3, sweep 30): SUBNET UP" false
fi

pzt_finish
