#!/bin/bash
# test_connect_roots.sh PZFABRIC GEN_FATTREE - with OpenSM's
# --connect_roots every switch reaches every switch; without it the root
# switches have no route to each other (notes §5c: ftree routes switch LIDs
# only along up*/down* paths, fabric_route_roots() adds the rest).
#
# On ft-2s4l.net (roots: 2 spines) and a 3-level tree (gen-fattree 3
# --radix 4: 4 cores, 8 mids, 8 leaves), each on a fresh pzfabric, once
# with -R ftree --connect_roots and once with -R ftree alone:
#   - with --connect_roots: every pair succeeds, with the hops the LFTs
#     (ibroute of every switch) and the cabling give, and every LFT has every
#     LID;
#   - without: a pair is reachable exactly when an up*/down* path exists
#     between the two switches (their sets of switches reachable going up
#     only -- towards the roots -- intersect), e.g. leaf to anything, mid to a
#     mid of another pod, but not the two mids of a pod, which share no core,
#     and never root to root. Reachable pairs: the LFT walk (ibroute of every
#     switch) gets there (ibtracert on them ran in the --connect_roots run);
#     unreachable pairs, all root-to-root pairs among them: ibtracert fails,
#     and an LFT on the way has no entry for the destination.
set -euo pipefail

PZFABRIC=${1:?usage: test_connect_roots.sh PZFABRIC GEN_FATTREE}
GEN=${2:?usage: test_connect_roots.sh PZFABRIC GEN_FATTREE}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN=$(abspath "$GEN")
pzt_require opensm ibnetdiscover ibroute ibtracert
pzt_init connect-roots

# levels NET: "switch level" -- level 0 for leaves (switches with CAs), then
# one more per step away from them; the roots have the highest level.
levels() {
    awk '/^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); node = q[2]; type[node] = $1; next }
         /^\[/ { split($0, q, "\""); nb[node] = nb[node] " " q[2] }
         END {
             n = 0
             for (s in type) if (type[s] == "Switch") {
                 c = split(nb[s], a, " ")
                 for (i = 1; i <= c; i++) if (type[a[i]] != "Switch") { lvl[s] = 0; queue[n++] = s; break }
             }
             for (h = 0; h < n; h++) {
                 s = queue[h]; c = split(nb[s], a, " ")
                 for (i = 1; i <= c; i++)
                     if (type[a[i]] == "Switch" && !(a[i] in lvl)) { lvl[a[i]] = lvl[s] + 1; queue[n++] = a[i] }
             }
             for (s in lvl) print s, lvl[s]
         }' "$1" | sort
}

# up_reach NET LEVELS: "switch reachable-switch" for every switch and every
# switch it reaches going up only (itself included).
up_reach() {
    awk 'FILENAME == ARGV[1] { lvl[$1] = $2; next }
         /^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); node = q[2]; next }
         /^\[/ { split($0, q, "\""); if ((node in lvl) && (q[2] in lvl) && lvl[q[2]] > lvl[node]) up[node] = up[node] " " q[2] }
         END {
             for (s in lvl) {
                 delete seen; n = 0; queue[n++] = s; seen[s] = 1
                 for (h = 0; h < n; h++) {
                     c = split(up[queue[h]], a, " ")
                     for (i = 1; i <= c; i++) if (!(a[i] in seen)) { seen[a[i]] = 1; queue[n++] = a[i] }
                 }
                 for (r in seen) print s, r
             }
         }' "$2" "$1" | sort
}

# run ID NET SM_HOST DIAG_HOST CONNECT(yes|no)
run() {
    local id=$1 net=$2 smhost=$3 host=$4 connect=$5 a b top nsw=0 npairs=0
    local bad_full='' bad_ok='' bad_no='' bad_lft='' nroot=0 nroot_ok=0 nok=0 nno=0
    local opts=(-R ftree)
    [ "$connect" = yes ] && opts+=(--connect_roots)
    start_pzfabric "$id" "$net" || {
        check "$id: pzfabric starts" false
        return
    }
    start_opensm "$id.sm" "$id" "$smhost" "${opts[@]}"
    if ! wait_subnet_up "$id.sm" 30; then
        check "$id: SUBNET UP" false
        stop "$id.sm" "$id"
        return
    fi
    check "$id: SUBNET UP, ${opts[*]}" grep -q 'ftree tables configured on all switches' "$WORK/$id.sm/osm.log"
    run_diag "$id" "$host" ibnetdiscover > "$id.disc" 2> /dev/null || true
    disc_switches "$id.disc" | sort > "$id.swlids"
    # A CA's port line: "[1](guid) "S-..."[4] # lid <its LID> lmc 0 "Leaf4" lid <the switch's> 4xEDR".
    awk '/^(Switch|Ca)/ { split($0, q, "\""); ca = ($1 == "Ca") ? q[4] : ""; next }
         ca != "" && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print ca, $(i + 1); break } }' \
        "$id.disc" > "$id.calids"
    cat "$id.swlids" "$id.calids" > "$id.lids"
    top=$(wc -l < "$id.lids")
    net_links "$net" > "$id.links"
    levels "$net" > "$id.levels"
    up_reach "$net" "$id.levels" > "$id.up"
    top_level=$(awk '$2 > m { m = $2 } END { print m }' "$id.levels")

    while read -r a la; do
        run_diag "$id" "$host" ibroute "$la" > "$id.lft.$a" 2>&1 || true
        lft_lines "$a" "$id.lft.$a"
        nsw=$((nsw + 1))
        grep -q "^$top valid lids dumped" "$id.lft.$a" || bad_full+=" $a"
    done < "$id.swlids" > "$id.lfts"

    # Every ordered pair: "a la b lb root-pair want walk", computed in one go.
    awk '{ print $1, $2 }' "$id.swlids" > "$id.sw1"
    awk 'NR == FNR { s[++n] = $1; l[n] = $2; next }
         END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (i != j) print s[i], l[j] }' \
        "$id.sw1" > "$id.pairs" # from-switch dest-lid
    lft_walk_all "$id.links" "$id.lfts" "$id.lids" "$id.pairs" > "$id.walks"
    awk -v t="$top_level" -v connect="$connect" '
        FILENAME == ARGV[1] { lid[$1] = $2; name[$2] = $1; next }
        FILENAME == ARGV[2] { lvl[$1] = $2; next }
        FILENAME == ARGV[3] { up[$1 " " $2] = 1; ups[$1] = ups[$1] " " $2; next }
        { a = $1; b = name[$2]
          root = (lvl[a] == t && lvl[b] == t) ? "yes" : "no"
          want = "yes"
          if (connect == "no") {
              want = "no"; c = split(ups[a], u, " ")
              for (i = 1; i <= c; i++) if ((b " " u[i]) in up) want = "yes"
          }
          print a, lid[a], b, $2, root, want, ($3 == "" ? "-" : $3) }' \
        "$id.swlids" "$id.levels" "$id.up" "$id.walks" > "$id.plan"

    # The ibtracerts, 4 at a time: every pair with --connect_roots, the
    # unreachable ones without.
    awk -v c="$connect" -v id="$id" '
        c == "yes" || $6 == "no" { printf "%s.tr.%s.%s ibtracert %s %s\n", id, $1, $3, $2, $4 }' \
        "$id.plan" > "$id.trlist"
    run_diag_batch "$id" "$host" 4 "$id.trlist"

    while read -r a la b _ root_pair want walk; do
        npairs=$((npairs + 1))
        [ "$root_pair" = no ] || nroot=$((nroot + 1))
        [ "$walk" != - ] || walk=
        if [ "$connect" = no ] && [ "$want" = yes ]; then
            # Reachable without --connect_roots: the LFT walk (ibroute) gets
            # there; ibtracert on such pairs ran in the other mode.
            if [[ $walk == FAIL* ]]; then
                bad_ok+=" $a->$b($walk)"
            else
                nok=$((nok + 1))
            fi
        elif [ "$(cat "$id.tr.$a.$b.rc")" = 0 ]; then
            hops=$(tracert_hops "$id.tr.$a.$b" | tr ' ' _ | paste -sd,)
            if [ "$want" = no ]; then
                bad_no+=" $a->$b"
            elif [ "$hops" != "$walk" ]; then
                bad_ok+=" $a->$b(hops $hops want $walk)"
            else
                nok=$((nok + 1))
                [ "$root_pair" = no ] || nroot_ok=$((nroot_ok + 1))
            fi
        elif [ "$want" = yes ]; then
            bad_ok+=" $a->$b(failed: $(grep -m1 -o 'Bad forwarding.*\|iberror.*' "$id.tr.$a.$b" || true))"
        else
            nno=$((nno + 1))
            # No route: some LFT on the way has no entry for b's LID.
            [[ $walk == FAIL_no_LFT_entry* ]] || bad_lft+=" $a->$b"
        fi
    done < "$id.plan"

    if [ "$connect" = yes ]; then
        check_eq "$id: every LFT has all $top LIDs ($nsw switches)" "" "$bad_full"
        check_eq "$id: ibtracert: all $npairs switch pairs reachable, hops = LFT walk" "" "$bad_ok"
        check "$id: ... among them all $nroot root-to-root pairs" test "$nroot" -gt 0 -a "$nroot_ok" = "$nroot"
    else
        check_eq "$id: the pairs with an up/down path are reachable by the LFTs ($nok)" "" "$bad_ok"
        check_eq "$id: ibtracert: the pairs without one have NO route ($nno)" "" "$bad_no"
        check "$id: ... which include all $nroot root-to-root pairs" \
            test "$nroot" -gt 0 -a "$nno" -ge "$nroot"
        check_eq "$id: ... and their LFTs have no entry for the destination" "" "$bad_lft"
        check_eq "$id: reachable + unreachable = all $npairs pairs" "$npairs" "$((nok + nno))"
    fi
    stop "$id.sm" "$id"
}

"$GEN" 3 --radix 4 > ft3r4.net
for connect in yes no; do
    run "ft2s4l-$connect" "$PZT_HERE/ft-2s4l.net" Hca1 Hca5 "$connect"
    run "ft3r4-$connect" ft3r4.net host-1-1 host-5-2 "$connect"
done

pzt_finish
