#!/bin/bash
# test_ibnetdiscover.sh PZFABRIC GEN_FATTREE - ibnetdiscover
# on pzfabric describes exactly the topology file, and prints what it prints
# on ibsim for the same file (after the normalisations below).
#
# Topologies: ibsim's net-examples, ft-2s4l.net, a 3-level tree
# (gen-fattree 3 --radix 4) and the 648-port tree (gen-fattree 2). No subnet
# manager runs: ibnetdiscover walks the fabric by directed route, which
# needs the links up (LinkUp), not configured.
#
# Checks per topology, on pzfabric's output:
#   - the nodes: type (Switch/Ca), number of ports and name of every node of
#     the file, and no other;
#   - the cabling: every "node port - remote port" pair of the file, both
#     directions, and no other;
#   - equal to ibsim's output line by line after normalising (see normalise()).
set -euo pipefail

PZFABRIC=${1:?usage: test_ibnetdiscover.sh PZFABRIC GEN_FATTREE}
GEN=${2:?usage: test_ibnetdiscover.sh PZFABRIC GEN_FATTREE}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN=$(abspath "$GEN")
pzt_require ibnetdiscover ibsim
pzt_init ibnetdiscover

# normalise FILE: ibnetdiscover output without what legitimately differs
# between the two simulators:
#   1. "# Topology file: generated on <date>": the time of the run;
#   2. vendid= / devid=: pzfabric's nodes report a vendor (0x2c9) and device
#      IDs (0x7a70 switch, 0x7a71 CA); ibsim's report 0;
#   3. the link speed of each port line ("4xEDR" vs "4xSDR"): pzfabric's
#      links train at the fastest common speed (EDR), ibsim's are SDR. The
#      width (4x) is the same in both and is kept;
#   4. "lid N" and "lmc N": the LIDs are whatever a subnet manager assigned
#      (0 here, no SM runs; test_lft_diff.sh compares them with an SM).
# Everything else -- GUIDs, names, node types and port counts, the order in
# which the nodes are found, "base/enhanced port 0", the cabling -- must be
# equal.
normalise() {
    sed -E -e '/^# Topology file: generated on /d' \
        -e 's/^(vendid|devid)=.*/\1=<id>/' \
        -e 's/\b([0-9]+x)(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b/\1<speed>/g' \
        -e 's/\blid [0-9]+/lid <lid>/g' -e 's/\blmc [0-9]+/lmc <lmc>/g' "$1"
}

# topology ID NET HOST: the checks on one topology file.
topology() {
    local id=$1 net=$2 host=$3
    if ! start_pzfabric "$id" "$net" || ! start_ibsim "$id.ibsim" "$net"; then
        check "$id: both simulators start" false
        stop "$id.ibsim"
        stop "$id"
        return
    fi
    run_diag "$id" "$host" ibnetdiscover > "$WORK/$id.pz" 2> "$WORK/$id.pz.err" || true
    run_diag "$id.ibsim" "$host" ibnetdiscover > "$WORK/$id.ib" 2> "$WORK/$id.ib.err" || true
    stop "$id.ibsim"
    stop "$id"

    net_nodes "$net" > "$WORK/$id.want.nodes"
    net_nodes "$WORK/$id.pz" > "$WORK/$id.got.nodes"
    check_files "$id: nodes (type, ports, name) as in the file ($(wc -l < "$WORK/$id.want.nodes"))" \
        "$WORK/$id.want.nodes" "$WORK/$id.got.nodes"
    net_links "$net" > "$WORK/$id.want.links"
    net_links "$WORK/$id.pz" > "$WORK/$id.got.links"
    check_files "$id: cabling as in the file ($(($(wc -l < "$WORK/$id.want.links") / 2)) links)" \
        "$WORK/$id.want.links" "$WORK/$id.got.links"
    normalise "$WORK/$id.pz" > "$WORK/$id.pz.norm"
    normalise "$WORK/$id.ib" > "$WORK/$id.ib.norm"
    check "$id: ibsim's output is not empty" grep -q '^Switch' "$WORK/$id.ib.norm"
    check_files "$id: equal to ibsim's output after normalising ($(wc -l < "$WORK/$id.pz") lines)" \
        "$WORK/$id.ib.norm" "$WORK/$id.pz.norm"
}

for f in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
    if [ -f "$PZT_EXAMPLES/$f" ]; then
        topology "$f" "$PZT_EXAMPLES/$f" Hca1
    else
        note "$PZT_EXAMPLES/$f missing, skipped"
    fi
done
topology ft2s4l "$PZT_HERE/ft-2s4l.net" Hca5
"$GEN" 3 --radix 4 > "$WORK/ft3r4.net"
topology ft3r4 "$WORK/ft3r4.net" host-3-2
"$GEN" 2 > "$WORK/ft648.net"
topology ft648 "$WORK/ft648.net" host-1-1

pzt_finish
