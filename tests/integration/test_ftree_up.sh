#!/bin/bash
# test_ftree_up.sh PZFABRIC GEN_FATTREE [short|long] -
# OpenSM -R ftree --connect_roots reaches SUBNET UP on pzfabric.
#
# short: every ibsim net-example, ft-2s4l.net (2 spines, 4 leaves) and a
#        3-level tree (gen-fattree 3 --radix 4: 20 switches, 16 CAs);
# long:  the 648-port tree (gen-fattree 2: 54 switches, 648 CAs), a 3-level
#        tree of 6-port switches (45 switches, 54 CAs) and the full 3-level
#        tree of 36-port switches (gen-fattree 3: 1620 switches, 11664 CAs).
#
# For each topology: SUBNET UP within the time limit; no initialization
# error; the routing engine used (ftree must route the fat trees; on the
# net-examples ftree is not applicable -- two or more roots of rank 0, or no
# compute nodes under a leaf -- and OpenSM falls back to minhop: accepted and
# noted); OpenSM's own picture of the subnet (opensm-subnet.lst in its dump
# directory: every link it found, with both ends' names and port numbers and
# the logical state) is exactly the cabling of the file, every link Active;
# and the ftree node counts it logs match the file.
set -euo pipefail

PZFABRIC=${1:?usage: test_ftree_up.sh PZFABRIC GEN_FATTREE [short|long]}
GEN=${2:?usage: test_ftree_up.sh PZFABRIC GEN_FATTREE [short|long]}
MODE=${3:-short}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN=$(abspath "$GEN")
pzt_require opensm ibnetdiscover
pzt_init ftree-up

# subnet_links LST: opensm-subnet.lst as sorted "node port rnode rport" lines
# (both directions of each link), node names from the {description} fields,
# port numbers from the PN: fields (hexadecimal).
subnet_links() {
    awk 'function hex(s,   v, i) { v = 0
             for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789ABCDEF", toupper(substr(s, i, 1))) - 1
             return v }
         { n = 0
           for (i = 1; i <= NF; i++) {
               if ($i ~ /^\{[^ ]*\}$/) name[++n] = substr($i, 2, length($i) - 2)
               if ($i ~ /^PN:/) pn[n] = hex(substr($i, 4)) # hexadecimal
           }
           if (n == 2) print name[1], pn[1], name[2], pn[2] }' "$1" | sort
}

# One topology: ID NET SM_HOST FTREE(yes: ftree must route it; no: fallback
# accepted) UP_SECONDS.
topology() {
    local id=$1 net=$2 host=$3 ftree=$4 secs=$5 want_links lst
    start_pzfabric "$id" "$net" || {
        check "$id: pzfabric starts" false
        return
    }
    start_opensm "$id.sm" "$id" "$host"
    if wait_subnet_up "$id.sm" "$secs"; then
        check "$id: SUBNET UP (${SUBNET_UP_SECONDS} s)" true
    else
        check "$id: SUBNET UP within $secs s" false
        stop "$id.sm"
        stop "$id"
        return
    fi
    check "$id: no initialization error" \
        bash -c "! grep -qE 'Errors during initialization|SUBNET_UP failed|ERR 3111' '$WORK/$id.sm/osm.log'"
    if grep -q 'ftree tables configured on all switches' "$WORK/$id.sm/osm.log"; then
        check "$id: routed by ftree" true
    elif [ "$ftree" = yes ]; then
        check "$id: routed by ftree" false
        grep -E 'ftree|fall' "$WORK/$id.sm/osm.log" | head -n 3 | sed 's/^/     /'
    else
        check "$id: ftree not applicable, fell back to minhop" \
            grep -q 'minhop tables configured on all switches' "$WORK/$id.sm/osm.log"
        note "$id: ftree: $(grep -m1 -oE 'ERR AB[0-9A-F]+: [^.]*' "$WORK/$id.sm/osm.log" ||
            echo 'cannot build lid matrices')"
    fi
    if [ "$ftree" = yes ]; then
        local sw ca
        sw=$(grep -c '^Switch' "$net")
        ca=$(grep -cE '^(Hca|Ca)' "$net")
        check "$id: ftree counted $sw switches and $ca CAs" \
            grep -qE "Fabric has $ca CAs, $ca CA ports \($ca of them CNs\), $sw switches" \
            "$WORK/$id.sm/osm.log"
    fi
    # OpenSM's subnet dump is written after the sweep; wait for all of it.
    lst=$WORK/$id.sm/dump/opensm-subnet.lst
    net_links "$net" > "$WORK/$id.want"
    want_links=$(wc -l < "$WORK/$id.want")
    local deadline=$((SECONDS + 10))
    while ((SECONDS < deadline)); do
        [ -f "$lst" ] && [ "$(wc -l < "$lst")" -ge "$want_links" ] && break
        sleep 0.1
    done
    subnet_links "$lst" > "$WORK/$id.got" 2> /dev/null || true
    check_files "$id: OpenSM found exactly the cabling of the file ($want_links port pairs)" \
        "$WORK/$id.want" "$WORK/$id.got"
    check_eq "$id: every link logically Active" "$want_links" "$(grep -c 'LOG=ACT' "$lst" || true)"
    stop "$id.sm"
    stop "$id"
}

if [ "$MODE" = long ]; then
    "$GEN" 2 > "$WORK/ft648.net"
    topology ft648 "$WORK/ft648.net" host-1-1 yes 120
    "$GEN" 3 --radix 6 > "$WORK/ft3r6.net"
    topology ft3r6 "$WORK/ft3r6.net" host-1-1 yes 120
    # The full 3-level tree of 36-port switches: OpenSM needs about 45 s and
    # 700 MB, pzfabric 350 MB.
    "$GEN" 3 > "$WORK/ft3full.net"
    topology ft3full "$WORK/ft3full.net" host-1-1 yes 400
else
    for f in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
        if [ -f "$PZT_EXAMPLES/$f" ]; then
            topology "$f" "$PZT_EXAMPLES/$f" Hca1 no 30
        else
            note "$PZT_EXAMPLES/$f missing, skipped"
        fi
    done
    topology ft2s4l "$PZT_HERE/ft-2s4l.net" Hca1 yes 30
    "$GEN" 3 --radix 4 > "$WORK/ft3r4.net"
    topology ft3r4 "$WORK/ft3r4.net" host-1-1 yes 30
fi

pzt_finish
