#!/bin/bash
# test_diags.sh PZFABRIC - infiniband-diags against the
# switches of pzfabric (every one answered by portzero's SMA), on ft-2s4l.net
# (2 spines, 4 leaves, 8 HCAs), OpenSM -R ftree --connect_roots -Q (QoS, so
# that OpenSM programs SL2VL and VLArb tables whose values can be checked).
# Diags run at Hca5 (Leaf3 port 3). Expected values come from the topology
# file (names, port counts, cabling, GUIDs as ibsim assigns them) and from
# what OpenSM set (the LIDs of its guid2lid file, its own LID, LinearFDBTop,
# packet life time, default partition, QoS defaults):
#
#   smpquery nodeinfo, nodedesc, portinfo (port 0 and every port), switchinfo,
#     pkeys, sl2vl, vlarb, guidinfo (the "guids", GUIDInfo) of every switch;
#   smpquery -c: combined routes (LID-routed to a switch, then directed
#     route out of it), every switch-to-switch cable, and a 2-hop DR leg;
#     ibsim cannot do these (it rejects DrSLID != 0xFFFF);
#   ibportstate <lid> <port> query (its peer query is such a combined route);
#   ibportstate disable of Leaf4 port 4 (Hca8): Trap 128 reaches OpenSM, which
#     represses it (it comes once) and re-sweeps (Hca8 removed, its LID gone
#     from Leaf4's LFT), the port reads Disabled; enable: Trap 128 again, the
#     link comes back Active, Hca8 and its route are back;
#   ibroute of every switch: all LIDs, own LID -> port 0, every neighbour's
#     LID -> the port cabled to it; ibroute -M: the header, no groups;
#   ibtracert between every ordered pair of switches (by LID): succeeds, and
#     the hops are exactly those the LFTs (ibroute) and the cabling give.
set -euo pipefail

PZFABRIC=${1:?usage: test_diags.sh PZFABRIC}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
pzt_require opensm ibnetdiscover smpquery ibroute ibtracert ibportstate
pzt_init diags

NET=$PZT_HERE/ft-2s4l.net
HOST=Hca5 # the diags' node: Leaf3 port 3
SM=Hca1

start_pzfabric fab "$NET"
start_opensm sm fab "$SM" -Q
if ! wait_subnet_up sm 30; then
    check "OpenSM: SUBNET UP" false
    exit 1
fi
check "OpenSM: SUBNET UP" true
diag() { run_diag fab "$HOST" "$@"; }

# --- What the topology file says -------------------------------------------
net_links "$NET" > links # node port rnode rport
# name type ports guid: GUIDs as ibsim assigns them (switches from 0x200000
# one each, CAs from 0x100000 num_ports+1 each, in file order); port GUID of
# a switch = node GUID, of CA port p = node GUID + p.
awk 'BEGIN { sw = 2097152; ca = 1048576 }
     /^Switch[ \t]/ { split($0, q, "\""); printf "%s Switch %d 0x%016x\n", q[2], $2, sw; sw++ }
     /^(Hca|Ca)[ \t]/ { split($0, q, "\""); printf "%s Ca %d 0x%016x\n", q[2], $2, ca; ca += $2 + 1 }' \
    "$NET" > nodes
SWITCHES=$(awk '$2 == "Switch" { print $1 }' nodes)

# --- What OpenSM set --------------------------------------------------------
# Its guid2lid (port GUID -> LID) is written at the end of the sweep.
wait_file "$WORK/sm/cache/guid2lid" 10 "^0x" || true
awk "$PZT_AWK_HEX"' NF >= 2 { printf "%s %d\n", $1, hex($2) }' "$WORK/sm/cache/guid2lid" | sort > sm.lids
# name -> LID: switches by their port GUID, CAs by port 1's GUID.
awk "$PZT_AWK_HEX"'
    NR == FNR { lid[$1] = $2; next }
    { g = $4; if ($2 == "Ca") g = sprintf("0x%016x", hex($4) + 1)
      if (g in lid) print $1, lid[g] }' sm.lids nodes > lids
lid() { awk -v n="$1" '$1 == n { print $2 }' lids; }
guid() { awk -v n="$1" '$1 == n { print $4 }' nodes; }
check_eq "OpenSM assigned a LID to every node ($(wc -l < nodes))" "$(wc -l < nodes)" "$(wc -l < lids)"
SM_LID=$(lid "$SM")
MAX_LID=$(awk '$2 > m { m = $2 } END { print m + 0 }' lids)
NLIDS=$(wc -l < lids)

# The LIDs the SMAs report equal OpenSM's.
diag ibnetdiscover -p > ports 2> /dev/null || true
awk '{ print $4, $2 + 0 }' ports | sort -u > sma.lids
check_files "every port's LID (ibnetdiscover -p) is the one OpenSM assigned" sm.lids sma.lids

# --- LFTs and paths -----------------------------------------------------------
for s in $SWITCHES; do echo "lft.$s ibroute $(lid "$s")"; done > list
run_diag_batch fab "$HOST" 4 list
for s in $SWITCHES; do lft_lines "$s" "lft.$s"; done > lfts # switch lid port

# walk FROM_SWITCH DLID: the hops the LFTs and the cabling give.
walk() { lft_walk links lfts lids "$1" "$2"; }

# The switch HOST hangs on, and on which port.
read -r HOST_SW HOST_SW_PORT < <(awk -v h="$HOST" '$1 == h && $2 == 1 { print $3, $4 }' links)

# local_port S: the port an SMP from HOST enters switch S by (NodeInfo/PortInfo LocalPort).
local_port() {
    local last
    last=$(walk "$HOST_SW" "$(lid "$1")" | tail -n 1)
    if [ -z "$last" ]; then echo "$HOST_SW_PORT"; else echo "${last##* }"; fi
}

# field FILE NAME: the value of "NAME:....value" in smpquery output.

# --- smpquery of every switch ------------------------------------------------
# All the queries first, 4 at a time, into q.<switch>.<what>.
for s in $SWITCHES; do
    l=$(lid "$s") nports=$(awk -v n="$s" '$1 == n { print $3 }' nodes)
    printf 'q.%s.ni smpquery nodeinfo %s\nq.%s.nd smpquery nodedesc %s\n' "$s" "$l" "$s" "$l"
    for ((p = 0; p <= nports; p++)); do echo "q.$s.pi$p smpquery portinfo $l $p"; done
    printf 'q.%s.si smpquery switchinfo %s\nq.%s.pk smpquery pkeys %s\n' "$s" "$l" "$s" "$l"
    echo "q.$s.gi smpquery guidinfo $l" # "guids": the op is GUIDInfo (GI)
    printf 'q.%s.sl smpquery sl2vl %s 1\nq.%s.va smpquery vlarb %s 1\n' "$s" "$l" "$s" "$l"
done > list
run_diag_batch fab "$HOST" 4 list
bad_ni='' bad_nd='' bad_pi0='' bad_pi='' bad_si='' bad_pk='' bad_gi='' bad_sl='' bad_va=''
for s in $SWITCHES; do
    l=$(lid "$s") g=$(guid "$s") nports=$(awk -v n="$s" '$1 == n { print $3 }' nodes)
    ni=q.$s.ni nd=q.$s.nd pi=q.$s.pi0 si=q.$s.si pk=q.$s.pk gi=q.$s.gi sl=q.$s.sl va=q.$s.va
    got="$(field "$ni" NodeType) $(field "$ni" NumPorts) $(field "$ni" Guid) $(field "$ni" PortGuid) $(field "$ni" LocalPort)"
    want="Switch $nports $g $g $(local_port "$s")"
    [ "$got" = "$want" ] || bad_ni+=" $s(got '$got' want '$want')"

    [ "$(field "$nd" 'Node Description')" = "$s" ] || bad_nd+=" $s"

    got="$(field "$pi" Lid) $(field "$pi" SMLid) $(field "$pi" LMC) $(field "$pi" LinkState) $(field "$pi" LocalPort)"
    want="$l $SM_LID 0 Active $(local_port "$s")"
    [ "$got" = "$want" ] || bad_pi0+=" $s(got '$got' want '$want')"

    for ((p = 1; p <= nports; p++)); do
        if grep -q "^$s $p " links; then want="Active LinkUp"; else want="Down Polling"; fi
        got="$(field "q.$s.pi$p" LinkState) $(field "q.$s.pi$p" PhysLinkState)"
        [ "$got" = "$want" ] || bad_pi+=" ${s}[$p](got '$got' want '$want')"
    done

    # OpenSM: LinearFDBTop = highest LID; LifeTime = packet_life_time (0x12);
    # PortStateChange cleared.
    got="$(field "$si" LinearFdbTop) $(field "$si" LifeTime) $(field "$si" StateChange)"
    want="$MAX_LID 18 0"
    [ "$got" = "$want" ] || bad_si+=" $s(got '$got' want '$want')"

    # P_Key table of port 0: OpenSM's default partition (full member 0xffff)
    # in entry 0, capacity = NodeInfo.PartitionCap.
    if ! grep -qE '^ +0: 0xffff ' "$pk" || ! grep -q "^$(field "$ni" PartCap) pkeys capacity" "$pk"; then
        bad_pk+=" $s"
    fi

    grep -qE "^ +0: $g " "$gi" || bad_gi+=" $s"

    # QoS (-Q): OpenSM's default SL2VL (0..14,7) masked to the 8 operational
    # VLs, on every input port to output port 1; VLArb of port 1: its default
    # low "0:0,1:4,..." and high "0:4,1:0,..." tables, 8 entries each.
    rows=$(grep -cE '^ports: in +[0-9]+, out +1: \| 0\| 1\| 2\| 3\| 4\| 5\| 6\| 7\| 0\| 1\| 2\| 3\| 4\| 5\| 6\| 7\|$' "$sl" || true)
    [ "$(field "q.$s.pi1" OperVLs)" = VL0-7 ] && [ "$rows" = "$((nports + 1))" ] || bad_sl+=" $s"
    if [ "$(grep -c '^VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |$' "$va")" != 2 ] ||
        ! grep -q '^WEIGHT: |0x0 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |$' "$va" ||
        ! grep -q '^WEIGHT: |0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |$' "$va"; then
        bad_va+=" $s"
    fi
done
nsw=$(echo "$SWITCHES" | wc -w)
check_eq "smpquery nodeinfo: NodeType, NumPorts, GUIDs, LocalPort of all $nsw switches" "" "$bad_ni"
check_eq "smpquery nodedesc: the name of every switch" "" "$bad_nd"
check_eq "smpquery portinfo 0: LID, SMLid ($SM_LID), LMC, Active, LocalPort of every switch" "" "$bad_pi0"
check_eq "smpquery portinfo 1..N: cabled ports Active/LinkUp, the others Down/Polling" "" "$bad_pi"
check_eq "smpquery switchinfo: LinearFdbTop $MAX_LID, LifeTime 18, no PortStateChange" "" "$bad_si"
check_eq "smpquery pkeys: 0xffff, capacity = PartCap" "" "$bad_pk"
check_eq "smpquery guidinfo: GUID 0 = port GUID" "" "$bad_gi"
check_eq "smpquery sl2vl <lid> 1: OpenSM's QoS SL2VL on every input port" "" "$bad_sl"
check_eq "smpquery vlarb <lid> 1: OpenSM's QoS low/high VLArb tables" "" "$bad_va"

# --- Combined routes: LID-routed to a switch, then directed route ------------
# Switch-to-switch cables: "switch port remote remote-port".
awk 'NR == FNR { if ($2 == "Switch") sw[$1] = 1; next } ($1 in sw) && ($3 in sw)' nodes links > swlinks
while read -r s p r rp; do
    echo "c.$s.$p smpquery -c nodedesc $(lid "$s") 0,$p"
    echo "ci.$s.$p smpquery -c nodeinfo $(lid "$s") 0,$p"
done < swlinks > list
run_diag_batch fab "$HOST" 4 list
bad_c='' nc=0
while read -r s p r rp; do
    nc=$((nc + 1))
    got="$(field "c.$s.$p" 'Node Description') $(field "ci.$s.$p" Guid) $(field "ci.$s.$p" LocalPort)"
    want="$r $(guid "$r") $rp"
    [ "$got" = "$want" ] || bad_c+=" $s-$p(got '$got' want '$want')"
done < swlinks
check_eq "smpquery -c <switch lid> 0,<port>: the neighbour the file cables there ($nc routes)" "" "$bad_c"
# Two DR hops after the LID-routed leg: Leaf1 -> port 1 (Spine1) -> port 2 (Leaf2).
diag smpquery -c nodedesc "$(lid Leaf1)" 0,1,2 > c 2>&1 || true
check_eq "smpquery -c <Leaf1> 0,1,2: Leaf2" Leaf2 "$(field c 'Node Description')"

# --- ibportstate query (the peer is read by a combined route) ------------------
bad_q=''
L4=$(lid Leaf4)
for p in 1 2 3 4; do
    read -r r rp < <(awk -v p="$p" '$1 == "Leaf4" && $2 == p { print $3, $4 }' links)
    diag ibportstate "$L4" "$p" query > q 2>&1 || true
    # Both blocks (this port, then "Peer PortInfo") say Active and LinkUp.
    if [ "$(grep -c '^LinkState:\.*Active$' q)" != 2 ] || [ "$(grep -c '^PhysLinkState:\.*LinkUp$' q)" != 2 ] ||
        ! grep -q "^# Port info: Lid $L4 DR path slid $(lid "$HOST"); dlid 65535; 0,$p port $rp\$" q; then
        bad_q+=" $p"
    fi
    # A CA peer shows its own LID.
    if [[ $r == Hca* ]] && ! sed -n '/^Peer PortInfo/,$p' q | grep -q "^Lid:\.*$(lid "$r")$"; then
        bad_q+=" $p(peer LID)"
    fi
done
check_eq "ibportstate <Leaf4> 1..4 query: port and peer Active/LinkUp, peer found by combined route" "" "$bad_q"

# --- ibroute: the tables OpenSM programmed -----------------------------------
bad_r='' bad_m=''
for s in $SWITCHES; do
    grep -q "^$NLIDS valid lids dumped" "lft.$s" || bad_r+=" $s(count)"
    [ "$(awk -v s="$s" -v l="$(lid "$s")" '$1 == s && $2 == l { print $3 }' lfts)" = 0 ] || bad_r+=" $s(own LID)"
    while read -r _ p r _; do
        got=$(awk -v s="$s" -v l="$(lid "$r")" '$1 == s && $2 == l { print $3 }' lfts)
        [ "$got" = "$p" ] || bad_r+=" $s->$r(got port '$got' want $p)"
    done < <(grep "^$s " links)
    diag ibroute -M "$(lid "$s")" > mft 2>&1 || true
    grep -qE "^Multicast mlids \[0xc000-0x[0-9a-f]+\] of switch Lid $(lid "$s") guid $(guid "$s") \($s\):$" mft &&
        grep -q '^0 valid mlids dumped' mft || bad_m+=" $s"
done
check_eq "ibroute: every switch has all $NLIDS LIDs, own LID on port 0, neighbours on their cable" "" "$bad_r"
check_eq "ibroute -M: every switch prints its multicast header (no groups)" "" "$bad_m"

# --- ibtracert between every pair of switches ----------------------------------
for a in $SWITCHES; do
    for b in $SWITCHES; do
        [ "$a" = "$b" ] || echo "t.$a.$b ibtracert $(lid "$a") $(lid "$b")"
    done
done > list
run_diag_batch fab "$HOST" 4 list
bad_t='' nt=0
for a in $SWITCHES; do
    for b in $SWITCHES; do
        [ "$a" != "$b" ] || continue
        nt=$((nt + 1))
        if [ "$(cat "t.$a.$b.rc")" != 0 ]; then
            bad_t+=" $a->$b(failed)"
            continue
        fi
        tracert_hops "t.$a.$b" > t.hops
        walk "$a" "$(lid "$b")" > w.hops || true
        if ! cmp -s t.hops w.hops || ! grep -q "^To switch .* \"$b\"$" "t.$a.$b"; then
            bad_t+=" $a->$b(path $(paste -sd, t.hops) want $(paste -sd, w.hops))"
        fi
    done
done
check_eq "ibtracert: all $nt switch pairs reachable, hops = the LFT walk" "" "$bad_t"

# --- Disable / enable a port: Trap 128, re-sweep ------------------------------
HCA8_LID=$(lid Hca8)
HCA8_PG=$(printf '0x%016x' $(($(guid Hca8) + 1)))
traps0=$(count_log sm "num:128 .*from LID:$L4 ")
ups0=$(count_log sm 'SUBNET UP')
diag ibportstate "$L4" 4 disable > dis 2>&1 || true
check "ibportstate <Leaf4> 4 disable: the Set answers PhysLinkState Disabled" \
    bash -c "sed -n '/^After PortInfo set/,\$p' dis | grep -q '^PhysLinkState:\.*Disabled$'"
check "Trap 128 from Leaf4 (LID $L4) reaches OpenSM" wait_log sm 10 "num:128 .*from LID:$L4 " $((traps0 + 1))
check "OpenSM re-sweeps: removes Hca8's port" \
    wait_log sm 10 "Removed port with GUID:$HCA8_PG"
check "OpenSM re-sweeps: SUBNET UP again" wait_log sm 10 'SUBNET UP' $((ups0 + 1))
diag smpquery portinfo "$L4" 4 > pi 2>&1 || true
check_eq "smpquery portinfo <Leaf4> 4: Down, Disabled" "Down Disabled" "$(field pi LinkState) $(field pi PhysLinkState)"
diag ibroute "$L4" > lft4 2>&1 || true
check "ibroute <Leaf4>: $((NLIDS - 1)) LIDs, none for Hca8 (LID $HCA8_LID)" \
    bash -c "grep -q '^$((NLIDS - 1)) valid lids dumped' lft4 && ! grep -q \"^\$(printf '0x%04x' $HCA8_LID) \" lft4"
# The trap is repressed: the SMA does not resend it (it would every
# 4.096 us * 2^SubnetTimeOut = 1.07 s). umad2sim overwrote the TrapRepress's
# TID before pzfabric repaired it (fabric_client.c).
sleep 2.5
tid=$(grep "num:128 .*from LID:$L4 " "$WORK/sm/osm.log" | tail -n 1 | sed 's/.*TID:\(0x[0-9a-f]*\).*/\1/')
check_eq "Trap 128 (TID $tid) repressed: OpenSM got it once" 1 "$(grep -c "num:128 .*TID:$tid\$" "$WORK/sm/osm.log")"

traps1=$(count_log sm "num:128 .*from LID:$L4 ")
ups1=$(count_log sm 'SUBNET UP')
diag ibportstate "$L4" 4 enable > en 2>&1 || true
check "enable: Trap 128 from Leaf4 again" wait_log sm 10 "num:128 .*from LID:$L4 " $((traps1 + 1))
check "enable: OpenSM re-sweeps, Hca8's port is back" \
    wait_log sm 10 "Discovered new port with GUID:$HCA8_PG"
check "enable: SUBNET UP again" wait_log sm 10 'SUBNET UP' $((ups1 + 1))
state=''
for _ in $(seq 50); do
    diag smpquery portinfo "$L4" 4 > pi 2>&1 || true
    state="$(field pi LinkState) $(field pi PhysLinkState)"
    [ "$state" = "Active LinkUp" ] && break
    sleep 0.2
done
check_eq "smpquery portinfo <Leaf4> 4: Active, LinkUp again" "Active LinkUp" "$state"
diag ibroute "$L4" > lft4 2>&1 || true
check "ibroute <Leaf4>: $NLIDS LIDs, Hca8 (LID $HCA8_LID) on port 4 again" \
    bash -c "grep -q '^$NLIDS valid lids dumped' lft4 && grep -q \"^\$(printf '0x%04x' $HCA8_LID) 004 \" lft4"

pzt_finish
