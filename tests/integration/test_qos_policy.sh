#!/bin/bash
# test_qos_policy.sh PZFABRIC - QoS with an explicit policy:
# OpenSM -Q with an options file (-F) whose qos_swe_* (switch external
# ports) and qos_ca_* (CA ports) options set different, non-default SL2VL
# tables, low/high VLArb tables and VLHighLimits, and a QoS policy file (-Y)
# whose qos-levels / qos-match-rules / qos-ulps give PathRecords their SL.
# On ft-2s4l.net (2 spines, 4 leaves, 8 HCAs), with diags at Hca5:
#
#   smpquery sl2vl LID OUT of every switch and every cabled output port:
#     every (in, out) row (in = 0..NumPorts) is qos_swe_sl2vl;
#   smpquery vlarb LID PORT of every cabled switch port: the low and high tables
#     are qos_swe_vlarb_low/high (as many entries as VLArbLow/HighCap,
#     entries the option does not list are 0:0, as OpenSM fills them);
#   smpquery portinfo LID PORT: VLHighLimit = qos_swe_high_limit, OperVLs
#     VL0-7 (so OpenSM's masking of VLs to OperVLs changes nothing: the
#     options use VLs 0-7 and 15 only);
#   the same for port 1 of every HCA against qos_ca_*;
#   saquery -p --src-to-dst: the SL of the match rule (destination port
#     group), of the qos-ulps rule (source port GUID) and of the DEFAULT
#     level, each for a pair that matches only that rule.
#
# OpenSM programs only the ports it found linked, so the switches' unused
# ports 5-8 are not checked.
#
# Every expected value is parsed from the two files this script writes (the
# option strings and the SL numbers), not copied from any output; OpenSM's
# defaults differ from all of them, so tables OpenSM never set fail.
set -euo pipefail

PZFABRIC=${1:?usage: test_qos_policy.sh PZFABRIC}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
pzt_require opensm smpquery saquery
pzt_init qos

NET=$PZT_HERE/ft-2s4l.net
HOST=Hca5 # the diags' node
SM=Hca1

# --- Nodes: name type ports guid (GUIDs as test_diags.sh derives them) ------
awk 'BEGIN { sw = 2097152; ca = 1048576 }
     /^Switch[ \t]/ { split($0, q, "\""); printf "%s Switch %d 0x%016x\n", q[2], $2, sw; sw++ }
     /^(Hca|Ca)[ \t]/ { split($0, q, "\""); printf "%s Ca %d 0x%016x\n", q[2], $2, ca; ca += $2 + 1 }' \
    "$NET" > nodes
SWITCHES=$(awk '$2 == "Switch" { print $1 }' nodes)
net_links "$NET" > links # node port rnode rport
# cabled NODE: the cabled ports of NODE.
cabled() { awk -v n="$1" '$1 == n { print $2 }' links | sort -n; }
CAS=$(awk '$2 == "Ca" { print $1 }' nodes)
# port_guid NAME: a switch's port GUID (= node GUID), a CA's port 1 GUID.
port_guid() {
    awk "$PZT_AWK_HEX"' $1 == n { g = hex($4); if ($2 == "Ca") g++; printf "0x%016x\n", g }' \
        n="$1" nodes
}

# --- The options file and the policy file -------------------------------------
# Switch external ports and CA ports get different tables; none is OpenSM's
# default (SL2VL 0..14,7; low 0:0,1:4,...; high 0:4,1:0,...; high limit 0).
cat > opensm.conf << 'EOF'
qos_swe_high_limit 6
qos_swe_vlarb_high 0:8,1:16,2:24,3:32
qos_swe_vlarb_low 4:40,5:50,6:60,7:70,0:1,1:2,2:3,3:4
qos_swe_sl2vl 7,6,5,4,3,2,1,0,0,1,2,3,4,5,6,15
qos_ca_high_limit 3
qos_ca_vlarb_high 3:200,2:100
qos_ca_vlarb_low 0:9,1:10,2:11,3:12,4:13,5:14,6:15,7:16
qos_ca_sl2vl 1,1,2,2,3,3,4,4,5,5,6,6,7,7,15,0
EOF
SL_DEFAULT=1 SL_TO_HCA2=5 SL_FROM_HCA7=3
cat > qos-policy.conf << EOF
port-groups
    port-group
        name: Hca2
        port-guid: $(port_guid Hca2)
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        sl: $SL_DEFAULT
    end-qos-level
    qos-level
        name: ToHca2
        sl: $SL_TO_HCA2
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        destination: Hca2
        qos-level-name: ToHca2
    end-qos-match-rule
end-qos-match-rules
qos-ulps
    any, source-port-guid $(port_guid Hca7) : $SL_FROM_HCA7
end-qos-ulps
EOF

# option NAME: the value of option NAME in opensm.conf.
option() { awk -v n="$1" '$1 == n { print $2 }' opensm.conf; }

# want_sl2vl PREFIX: the 16 VLs of option PREFIX_sl2vl, space-separated.
want_sl2vl() { option "$1_sl2vl" | tr ',' ' '; }

# want_vlarb PREFIX low|high CAP: the first CAP "vl:weight" entries of
# option PREFIX_vlarb_low/high (OpenSM: vl modulo 15; unlisted entries 0:0).
want_vlarb() {
    option "$1_vlarb_$2" | awk -F, -v cap="$3" '{
        for (i = 1; i <= cap; i++) {
            vl = 0; w = 0
            if (i <= NF) { split($i, e, ":"); vl = (e[1] + 0) % 15; w = e[2] + 0 }
            printf "%s%d:%d", (i > 1 ? " " : ""), vl, w
        }
        print "" }'
}

# --- Run OpenSM -----------------------------------------------------------------
start_pzfabric fab "$NET"
start_opensm sm fab "$SM" --conf "$WORK/opensm.conf" -Q -Y "$WORK/qos-policy.conf"
if ! wait_subnet_up sm 30; then
    check "OpenSM: SUBNET UP" false
    exit 1
fi
check "OpenSM: SUBNET UP" true
check "OpenSM loaded the policy file" grep -q "Loading QoS policy file ($WORK/qos-policy.conf)" \
    "$WORK/sm/osm.log"
check "OpenSM reports no policy errors" bash -c "! grep -qE 'ERR AC|syntax error' '$WORK/sm/osm.log'"

wait_file "$WORK/sm/cache/guid2lid" 10 "^0x" || true
awk "$PZT_AWK_HEX"' NF >= 2 { printf "%s %d\n", $1, hex($2) }' "$WORK/sm/cache/guid2lid" > sm.lids
for n in $SWITCHES $CAS; do
    g=$(port_guid "$n")
    echo "$n $(awk -v g="$g" '$1 == g { print $2 }' sm.lids)"
done > lids
lid() { awk -v n="$1" '$1 == n { print $2 }' lids; }
check_eq "OpenSM assigned a LID to every node" "$(wc -l < nodes)" "$(awk 'NF == 2' lids | wc -l)"

# --- Read everything back (4 diags at a time) ----------------------------------
for s in $SWITCHES; do
    l=$(lid "$s")
    for p in $(cabled "$s"); do
        printf 'q.%s.sl%d smpquery sl2vl %s %d\n' "$s" "$p" "$l" "$p"
        printf 'q.%s.va%d smpquery vlarb %s %d\n' "$s" "$p" "$l" "$p"
        printf 'q.%s.pi%d smpquery portinfo %s %d\n' "$s" "$p" "$l" "$p"
    done
done > list
for c in $CAS; do
    l=$(lid "$c")
    printf 'q.%s.sl1 smpquery sl2vl %s 1\nq.%s.va1 smpquery vlarb %s 1\n' "$c" "$l" "$c" "$l"
    printf 'q.%s.pi1 smpquery portinfo %s 1\n' "$c" "$l"
done >> list
run_diag_batch fab "$HOST" 4 list

# field FILE NAME: the value of "NAME:....value" in smpquery output.

# got_sl2vl FILE: "in VL0 ... VL15" for every row of smpquery sl2vl output.
got_sl2vl() {
    awk -F'|' '/^ports: in/ { split($1, a, /[ ,]+/); row = a[3] + 0
                              for (i = 2; i <= 17; i++) row = row " " ($i + 0)
                              print row }' "$1"
}

# got_vlarb FILE low|high: the "vl:weight" entries of one table.
got_vlarb() {
    awk -v want="$2" "$PZT_AWK_HEX"'
        /^# Low/ { t = "low" } /^# High/ { t = "high" }
        t == want && /^VL    :/ { n = split($0, v, "|") }
        t == want && /^WEIGHT:/ { split($0, w, "|")
            for (i = 2; i < n; i++) {
                x = v[i]; y = w[i]; gsub(/ /, "", x); gsub(/ /, "", y)
                printf "%s%d:%d", (i > 2 ? " " : ""), hex(x), hex(y) }
            print ""; exit }' "$1"
}

# check_port NAME PORT PREFIX IN_PORTS: compare one port's readback with the
# PREFIX (qos_swe / qos_ca) options; IN_PORTS: the input ports expected in
# smpquery sl2vl's rows. Appends to the bad_* lists.
bad_sl='' bad_va='' bad_hl='' bad_ovl=''
check_port() {
    local n=$1 p=$2 pre=$3 ins=$4 f=q.$1 in want got cap
    want=''
    for in in $ins; do want+="$in $(want_sl2vl "$pre")"$'\n'; done
    got=$(got_sl2vl "$f.sl$p")
    [ "$got" = "${want%$'\n'}" ] || bad_sl+=" ${n}[$p]"
    for t in low high; do
        if [ "$t" = low ]; then cap=$(field "$f.pi$p" VLArbLowCap); else cap=$(field "$f.pi$p" VLArbHighCap); fi
        want=$(want_vlarb "$pre" "$t" "${cap:-0}")
        got=$(got_vlarb "$f.va$p" "$t")
        [ -n "$cap" ] && [ "$cap" -gt 0 ] && [ "$got" = "$want" ] ||
            bad_va+=" ${n}[$p]$t(got '$got' want '$want')"
    done
    got=$(field "$f.pi$p" VLHighLimit)
    [ "$got" = "$(option "${pre}_high_limit")" ] || bad_hl+=" ${n}[$p](got '$got')"
    [ "$(field "$f.pi$p" OperVLs)" = VL0-7 ] || bad_ovl+=" ${n}[$p]"
}

nports=0
for s in $SWITCHES; do
    np=$(awk -v n="$s" '$1 == n { print $3 }' nodes)
    for p in $(cabled "$s"); do
        check_port "$s" "$p" qos_swe "$(seq -s ' ' 0 "$np")"
        nports=$((nports + 1))
    done
done
check_eq "smpquery sl2vl: every (in, out) of the $nports cabled switch ports = qos_swe_sl2vl" "" "$bad_sl"
check_eq "smpquery vlarb: low/high tables of every cabled switch port = qos_swe_vlarb_low/high" "" "$bad_va"
check_eq "smpquery portinfo: VLHighLimit of every cabled switch port = qos_swe_high_limit" "" "$bad_hl"
check_eq "smpquery portinfo: OperVLs VL0-7 on every cabled switch port" "" "$bad_ovl"

bad_sl='' bad_va='' bad_hl='' bad_ovl=''
for c in $CAS; do check_port "$c" 1 qos_ca 0; done
check_eq "smpquery sl2vl: every HCA port = qos_ca_sl2vl" "" "$bad_sl"
check_eq "smpquery vlarb: low/high tables of every HCA port = qos_ca_vlarb_low/high" "" "$bad_va"
check_eq "smpquery portinfo: VLHighLimit of every HCA port = qos_ca_high_limit" "" "$bad_hl"
check_eq "smpquery portinfo: OperVLs VL0-7 on every HCA port" "" "$bad_ovl"

# --- PathRecords: the SL the policy gives ---------------------------------------
# path_sl SRC DST: the SL of the (first) PathRecord SRC -> DST, in decimal.
path_sl() {
    run_diag fab "$HOST" saquery -p --src-to-dst "$(lid "$1"):$(lid "$2")" |
        awk "$PZT_AWK_HEX"' $1 ~ /^sl\.+/ { sub(/^sl\.+/, "", $1); print hex($1); exit }'
}
check_eq "saquery -p Hca5 -> Hca2: SL of the match rule (destination group Hca2)" \
    "$SL_TO_HCA2" "$(path_sl Hca5 Hca2)"
check_eq "saquery -p Hca7 -> Hca3: SL of the qos-ulps rule (source-port-guid of Hca7)" \
    "$SL_FROM_HCA7" "$(path_sl Hca7 Hca3)"
check_eq "saquery -p Hca5 -> Hca4: SL of the DEFAULT level" "$SL_DEFAULT" "$(path_sl Hca5 Hca4)"
check_eq "saquery -p Hca7 -> Hca2: the match rule wins over qos-ulps" "$SL_TO_HCA2" \
    "$(path_sl Hca7 Hca2)"

pzt_finish
