#!/bin/bash
# test_lft_diff.sh PZFABRIC GEN_FATTREE - differential: for
# the same topology, OpenSM (-R ftree --connect_roots) programs the same
# linear forwarding tables on pzfabric as on ibsim.
#
# So that the LIDs are the same in both runs, both OpenSMs start with the
# same guid2lid file in their (private) OSM_CACHE_DIR: OpenSM restores it at
# start (osm_lid_mgr_init(), unless -r) and keeps those LIDs; --honor_guid2lid
# is given as well. The file is made from the port GUIDs ibnetdiscover -p
# finds on ibsim before any SM runs, with LIDs in descending GUID order from
# 0x20, an order OpenSM would not choose itself, so a seed that is ignored
# shows.
#
# Checks per topology: both SUBNET UP; every port has the seeded LID on both
# simulators; for every switch, `ibroute <lid>` (the whole unicast dump: LFT
# top, every LID's egress port and destination) and `ibroute -M <lid>` are
# the same on both (multicast: the header's MLID range aside, see below),
# and the unicast table has an entry for every LID; and
# ibnetdiscover prints the same on both, LIDs included (only the date, the
# vendor/device IDs and the speed normalised, see test_ibnetdiscover.sh).
set -euo pipefail

PZFABRIC=${1:?usage: test_lft_diff.sh PZFABRIC GEN_FATTREE}
GEN=${2:?usage: test_lft_diff.sh PZFABRIC GEN_FATTREE}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN=$(abspath "$GEN")
pzt_require opensm ibsim ibnetdiscover ibroute
pzt_init lft-diff

# The normalisation of test_ibnetdiscover.sh, but LIDs kept.
normalise() {
    sed -E -e '/^# Topology file: generated on /d' \
        -e 's/^(vendid|devid)=.*/\1=<id>/' \
        -e 's/\b([0-9]+x)(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b/\1<speed>/g' "$1"
}

# mft_norm FILE: ibroute -M output without the MLID range of its header.
mft_norm() { sed -E 's/^Multicast mlids \[[^]]*\]/Multicast mlids [range]/' "$1"; }

# port_lids FILE: "portguid lid" of every port in ibnetdiscover -p output.
port_lids() { awk '{ print $4, $2 + 0 }' "$1" | sort -u; }

# topology ID NET SM_HOST DIAG_HOST [IBROUTE OPTIONS]
topology() {
    local id=$1 net=$2 smhost=$3 host=$4 sw lid nsw=0 same=0 full=0 mcast=0 nlids
    shift 4
    if ! start_ibsim "$id.ib" "$net"; then
        check "$id: ibsim starts" false
        return
    fi
    # The seed: every port GUID ibnetdiscover finds, LIDs 0x20 up in descending GUID order.
    run_diag "$id.ib" "$host" ibnetdiscover -p > "$WORK/$id.ports" 2> /dev/null || true
    awk '{ print $4 }' "$WORK/$id.ports" | sort -u -r |
        awk '{ printf "%s 0x%04x 0x%04x\n\n", $1, NR + 31, NR + 31 }' > "$WORK/$id.guid2lid"
    awk 'NF { printf "%s %d\n", $1, $2 }' "$WORK/$id.guid2lid" | sort > "$WORK/$id.want.lids"
    nlids=$(wc -l < "$WORK/$id.want.lids")
    check "$id: seed guid2lid has every port ($nlids)" test "$nlids" -gt 2

    if ! start_pzfabric "$id.pz" "$net"; then
        check "$id: pzfabric starts" false
        stop "$id.ib"
        return
    fi
    start_opensm "$id.pz.sm" "$id.pz" "$smhost" --guid2lid "$WORK/$id.guid2lid"
    start_opensm "$id.ib.sm" "$id.ib" "$smhost" --guid2lid "$WORK/$id.guid2lid"
    check "$id: pzfabric: SUBNET UP" wait_subnet_up "$id.pz.sm" 60
    check "$id: ibsim: SUBNET UP" wait_subnet_up "$id.ib.sm" 60

    for sim in pz ib; do
        run_diag "$id.$sim" "$host" ibnetdiscover -p > "$WORK/$id.$sim.ports" 2> /dev/null || true
        port_lids "$WORK/$id.$sim.ports" > "$WORK/$id.$sim.lids"
        check_files "$id: $sim: every port has its seeded LID" "$WORK/$id.want.lids" "$WORK/$id.$sim.lids"
        run_diag "$id.$sim" "$host" ibnetdiscover > "$WORK/$id.$sim.disc" 2> /dev/null || true
        normalise "$WORK/$id.$sim.disc" > "$WORK/$id.$sim.disc.norm"
    done
    check_files "$id: ibnetdiscover (LIDs included) equal on both" \
        "$WORK/$id.ib.disc.norm" "$WORK/$id.pz.disc.norm"

    # Every switch's tables, by the LID ibsim's OpenSM gave it (4 diags at a time).
    disc_switches "$WORK/$id.ib.disc" > "$WORK/$id.switches"
    for sim in pz ib; do
        awk -v p="$WORK/$id.$sim" -v o="$*" '{ printf "%s.lft.%s ibroute %s %s\n%s.mft.%s ibroute -M %s\n",
                                                p, $2, o, $2, p, $2, $2 }' \
            "$WORK/$id.switches" > "$WORK/$id.$sim.list"
        run_diag_batch "$id.$sim" "$host" 4 "$WORK/$id.$sim.list"
    done
    while read -r sw lid; do
        nsw=$((nsw + 1))
        if cmp -s "$WORK/$id.ib.lft.$lid" "$WORK/$id.pz.lft.$lid"; then
            same=$((same + 1))
        else
            echo "     LFT of $sw (LID $lid) differs (ibsim <, pzfabric >):"
            diff "$WORK/$id.ib.lft.$lid" "$WORK/$id.pz.lft.$lid" | head -n 10 | sed 's/^/     /' || true
        fi
        grep -q "^$nlids valid lids dumped" "$WORK/$id.pz.lft.$lid" && full=$((full + 1))
        # The MLID range in the header differs: ibsim does not keep
        # SwitchInfo.MulticastFDBTop (ibroute then shows the whole MFT
        # capacity, 0xc000-0xc3ff); pzfabric keeps what OpenSM set (0xbfff:
        # no entries, there are no multicast groups). The entries must agree.
        if cmp -s <(mft_norm "$WORK/$id.ib.mft.$lid") <(mft_norm "$WORK/$id.pz.mft.$lid") &&
            grep -q '^Multicast mlids \[0xc000-0xbfff\]' "$WORK/$id.pz.mft.$lid"; then
            mcast=$((mcast + 1))
        fi
    done < "$WORK/$id.switches"
    check "$id: switches found ($nsw)" test "$nsw" -gt 0
    check_eq "$id: unicast LFT (ibroute) equal on both, every switch" "$nsw" "$same"
    check_eq "$id: every switch's LFT has all $nlids LIDs" "$nsw" "$full"
    check_eq "$id: multicast dump (ibroute -M) equal on both, every switch" "$nsw" "$mcast"
    stop "$id.pz.sm"
    stop "$id.ib.sm"
    stop "$id.pz"
    stop "$id.ib"
}

for f in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
    if [ -f "$PZT_EXAMPLES/$f" ]; then
        topology "$f" "$PZT_EXAMPLES/$f" Hca1 Hca1
    else
        note "$PZT_EXAMPLES/$f missing, skipped"
    fi
done
topology ft2s4l "$PZT_HERE/ft-2s4l.net" Hca1 Hca5
"$GEN" 3 --radix 4 > "$WORK/ft3r4.net"
topology ft3r4 "$WORK/ft3r4.net" host-1-1 host-6-2
"$GEN" 2 > "$WORK/ft648.net"
# ibroute -n: without a NodeInfo and NodeDescription query to every one of
# the 702 LIDs for its name (1400 SMPs a switch), only the LFT blocks.
topology ft648 "$WORK/ft648.net" host-1-1 host-20-5 -n

pzt_finish
