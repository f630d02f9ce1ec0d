#!/bin/bash
# test_routecheck.sh PZFABRIC GEN_FATTREE PZ_ROUTECHECK MODE - the
# route check: pz-routecheck (SA tables read through umad2sim, RMPP
# reassembled by libpzumad2sim.so) against OpenSM's live LFTs on pzfabric,
# each result compared with one computed independently by
# routes_from_dumps.py from ibnetdiscover's cabling and `ibroute` of every
# switch.
#
# MODE ftree (acceptance 1 and 2), on a 2-level tree (gen-fattree 2
# --spines 4 --leaves 4 --hosts-per-leaf 4 --radix 8) and a 3-level tree
# (gen-fattree 3 --radix 4: 4 cores, 8 mids, 8 leaves):
#   - bad arguments (numbers out of range, not wrapped into it): status 2;
#   - -R ftree --connect_roots: 0 unrouted switch pairs, no loop, no cycle,
#     exit status 0;
#   - -R ftree: the unrouted pairs pz-routecheck lists are exactly those the
#     dumps give; all root-to-root pairs are among them (and, on the 3-level
#     tree, the mid-to-mid pairs of a pod: they share no core, the
#     same-level pairs of the sFtree paper); exit status 1; --max-unrouted
#     N lists N of them (0: none) and counts all.
# MODE cdg (acceptance 3), on a 3-level tree with several roots
# (gen-fattree 3 --radix 4):
#   - -R minhop: every switch pair routed, but the channel dependency graph
#     (with --all: CA destinations too) has a cycle; the printed cycle is a
#     real one (each channel follows the one before on some route of the
#     dumps, and the last closes it); exit status 1;
#   - -R updn and -R ftree --connect_roots: no cycle (and the dumps agree);
#   - minhop and ftree --connect_roots again on ibsim, the reference simulator.
# MODE agent (the same check run by portzerod, the CLI's route check), on
# the 3-level tree with portzerod serving mid-1-1 (pzfabric --agent) and a
# control socket: pz-cli refuses a bad -t (status 2); before any SM
# `route check` fails with "no subnet
# manager"; with -R minhop, -R ftree and -R updn -l 1, `pz-cli route check
# json` (the agent's own SA client, RMPP answers through its MAD router)
# reports what pz-routecheck reports from a host (pairs, unrouted list,
# dependencies, cycle, LIDs and LMCs), exits 1 on findings, `show route
# check` repeats it, and `route check all` counts the switch-to-CA routes;
# with LMC 1 (-l 1) to both LIDs of every CA port: switches x CA ports x 2,
# the count, the dependencies and the unrouted pairs of the dumps
# (ibnetdiscover's LMCs, ibroute of every switch) with --all.
set -euo pipefail

PZFABRIC=${1:?usage: test_routecheck.sh PZFABRIC GEN_FATTREE PZ_ROUTECHECK ftree|cdg}
GEN=${2:?usage}
ROUTECHECK=${3:?usage}
MODE=${4:?usage}
PORTZEROD=${5:-}
PZ_CLI=${6:-}
source "$(dirname "$0")/lib.sh"
PZFABRIC=$(abspath "$PZFABRIC")
GEN=$(abspath "$GEN")
ROUTECHECK=$(abspath "$ROUTECHECK")
DUMPS_PY=$PZT_HERE/routes_from_dumps.py
pzt_require opensm ibnetdiscover ibroute python3
pzt_require_preload
pzt_init "routecheck-$MODE"

# json_get FILE KEY: a top-level value of pz-routecheck's JSON report.
# ("no-report" when the file holds none).
json_get() {
    python3 -c 'import json,sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print(str(v).lower())' \
        "$1" "$2" 2> /dev/null || echo no-report
}

# dumps ID NET HOST: ibnetdiscover and ibroute of every switch into
# $ID.swlids, $ID.calids, $ID.links, $ID.lfts, and "lid lmc" of every port
# ibnetdiscover gives an LMC (switch port 0, CA ports) into $ID.lmcs; on
# the simulator ID (or $RC_SIM).
dumps() {
    local id=$1 host=$3 sim=${RC_SIM:-$1} a la try
    for try in 1 2 3; do # the same for ibnetdiscover
        run_diag "$sim" "$host" ibnetdiscover > "$id.disc" 2> /dev/null && break
        note "$id: ibnetdiscover failed: again ($try)"
    done
    disc_switches "$id.disc" | sort > "$id.swlids"
    awk '/^(Switch|Ca)/ { split($0, q, "\""); ca = ($1 == "Ca") ? q[4] : ""; next }
         ca != "" && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print ca, $(i + 1); break } }' \
        "$id.disc" > "$id.calids"
    awk '/^(Switch|\[)/ { for (i = 1; i + 3 <= NF; i++)
                              if ($i == "lid" && $(i + 2) == "lmc") { print $(i + 1), $(i + 3); break } }' \
        "$id.disc" > "$id.lmcs"
    net_links "$id.disc" > "$id.links"
    while read -r a la; do
        echo "$id.lft.$a ibroute $la"
    done < "$id.swlids" > "$id.lftlist"
    run_diag_batch "$sim" "$host" 4 "$id.lftlist"
    # A dump that failed (a MAD timeout on a loaded machine; ibroute killed by
    # SIGSEGV under umad2sim, twice in a row once under ASan + stress-ng) is
    # taken again, alone, up to three times; one that never succeeds is named.
    local rc
    while read -r a la; do
        rc=$(cat "$id.lft.$a.rc" 2> /dev/null || echo none)
        for try in 1 2 3; do
            [ "$rc" = 0 ] && break
            note "$id: ibroute $a (LID $la) exited $rc: again ($try)"
            rc=0
            run_diag "$sim" "$host" ibroute "$la" > "$id.lft.$a" 2>&1 || rc=$?
        done
        [ "$rc" = 0 ] || check "$id: ibroute $a (LID $la) dumps its LFT" false
    done < "$id.swlids"
    while read -r a la; do
        lft_lines "$a" "$id.lft.$a"
    done < "$id.swlids" > "$id.lfts"
}

# routecheck ID HOST [OPTIONS]: pz-routecheck --json into $ID.json, its
# exit status in RC_STATUS, the text report into $ID.txt; on the simulator
# ID (or $RC_SIM).
routecheck() {
    local id=$1 host=$2 sim=${RC_SIM:-$1}
    shift 2
    RC_STATUS=0
    run_diag "$sim" "$host" "$ROUTECHECK" --json "$@" > "$id.json" 2> "$id.err" || RC_STATUS=$?
    run_diag "$sim" "$host" "$ROUTECHECK" "$@" > "$id.txt" 2>&1 || true
}

# start ID NET SM_HOST OPENSM_OPTIONS...: pzfabric (SIM_KIND=ibsim: ibsim) and
# OpenSM up, or a failed check.
start() {
    local id=$1 net=$2 smhost=$3
    shift 3
    if [ "${SIM_KIND:-pzfabric}" = ibsim ]; then
        start_ibsim "$id" "$net" || {
            check "$id: ibsim starts" false
            return 1
        }
    else
        start_pzfabric "$id" "$net" || {
            check "$id: pzfabric starts" false
            return 1
        }
    fi
    start_opensm "$id.sm" "$id" "$smhost" "$@"
    if ! wait_subnet_up "$id.sm" 60; then
        check "$id: SUBNET UP ($*)" false
        stop "$id.sm" "$id"
        return 1
    fi
    # OpenSM sweeps again at once (its own port's trap): the LFTs of that sweep
    wait_log "$id.sm" 5 'SUBNET UP' 2 || true
}

# run_ftree ID NET SM_HOST DIAG_HOST
run_ftree() {
    local id=$1 net=$2 smhost=$3 host=$4 top nroot want_same
    levels "$net" > "$id.levels"
    top=$(awk '$2 > m { m = $2 } END { print m }' "$id.levels")

    if start "$id-cr" "$net" "$smhost" -R ftree --connect_roots; then
        check "$id --connect_roots: OpenSM routed with ftree" \
            grep -q 'ftree tables configured on all switches' "$WORK/$id-cr.sm/osm.log"
        routecheck "$id-cr" "$host"
        check_eq "$id --connect_roots: exit status 0 (clean)" 0 "$RC_STATUS"
        check_eq "$id --connect_roots: 0 unrouted pairs" 0 "$(json_get "$id-cr.json" unrouted)"
        check_eq "$id --connect_roots: no loop" 0 "$(json_get "$id-cr.json" loop_routes)"
        check_eq "$id --connect_roots: no cycle" false "$(json_get "$id-cr.json" cycle)"
        check "$id --connect_roots: the text report says clean" grep -q '^result: clean' "$id-cr.txt"
        dumps "$id-cr" "$net" "$host"
        python3 "$DUMPS_PY" "$id-cr.swlids" "$id-cr.calids" "$id-cr.links" "$id-cr.lfts" \
            --report "$id-cr.json" > "$id-cr.indep"
        check_eq "$id --connect_roots: pairs = the dumps' pairs" \
            "$(awk '$1 == "pairs" { print $2 }' "$id-cr.indep")" "$(json_get "$id-cr.json" pairs)"
        check_eq "$id --connect_roots: the dumps find no cycle either" "cycle no" \
            "$(grep '^cycle ' "$id-cr.indep")"
        stop "$id-cr.sm" "$id-cr"
    fi

    if start "$id-ft" "$net" "$smhost" -R ftree; then
        check "$id ftree: OpenSM routed with ftree" \
            grep -q 'ftree tables configured on all switches' "$WORK/$id-ft.sm/osm.log"
        routecheck "$id-ft" "$host"
        check_eq "$id ftree: exit status 1 (findings)" 1 "$RC_STATUS"
        dumps "$id-ft" "$net" "$host"
        python3 "$DUMPS_PY" "$id-ft.swlids" "$id-ft.calids" "$id-ft.links" "$id-ft.lfts" \
            --report "$id-ft.json" > "$id-ft.indep"
        check_eq "$id ftree: unrouted count = the dumps' ($(awk '$1 == "unrouted" && NF == 2 { print $2 }' "$id-ft.indep"))" \
            "$(awk '$1 == "unrouted" && NF == 2 { print $2 }' "$id-ft.indep")" \
            "$(json_get "$id-ft.json" unrouted)"
        check_eq "$id ftree: the unrouted pairs are the dumps' pairs" "report-unrouted same" \
            "$(grep '^report-unrouted' "$id-ft.indep")"
        # every root-to-root pair is unrouted (the sFtree paper's first case)
        awk -v t="$top" '$2 == t { print $1 }' "$id.levels" > "$id.roots"
        nroot=$(wc -l < "$id.roots")
        nroot=$((nroot * (nroot - 1)))
        python3 -c 'import json,sys
roots = set(open(sys.argv[2]).read().split())
rep = json.load(open(sys.argv[1]))
print(sum(1 for u in rep["unrouted_list"] if u["src"]["name"] in roots and u["dst"]["name"] in roots))' \
            "$id-ft.json" "$id.roots" > "$id.rootpairs"
        check_eq "$id ftree: all $nroot root-to-root pairs unrouted" "$nroot" "$(cat "$id.rootpairs")"
        check "$id ftree: ... and there are some" test "$nroot" -gt 0
        if [ "$top" -ge 2 ]; then
            # the mids of one pod share no core: unrouted both ways (same-level pairs)
            python3 -c 'import json,sys,re
rep = json.load(open(sys.argv[1]))
un = {(u["src"]["name"], u["dst"]["name"]) for u in rep["unrouted_list"]}
mids = [l.split()[0] for l in open(sys.argv[2]) if l.split()[1] == "1"]
pod = lambda m: m.split("-")[1]
want = {(a, b) for a in mids for b in mids if a != b and pod(a) == pod(b)}
print(len(want), len(want & un))' "$id-ft.json" "$id.levels" > "$id.midpairs"
            read -r want_same got_same < "$id.midpairs"
            check_eq "$id ftree: all $want_same same-pod mid-to-mid pairs unrouted" "$want_same" "$got_same"
        fi
        check "$id ftree: the text report lists them as 'src (LID a) -> dst (LID b)'" \
            grep -qE '^  [^ ]+ \(LID [0-9]+\) -> [^ ]+ \(LID [0-9]+\): no LFT entry at ' "$id-ft.txt"
        # --max-unrouted N lists at most N (0: none), all are still counted
        for n in 0 2; do
            RC_SIM=$id-ft routecheck "$id-ft-m$n" "$host" --max-unrouted "$n"
            check_eq "$id ftree: --max-unrouted $n lists $n" "$n $(json_get "$id-ft.json" unrouted_total) 1" \
                "$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(len(r["unrouted_list"]), r["unrouted_total"])' \
                    "$id-ft-m$n.json" 2> /dev/null) $RC_STATUS"
        done
        stop "$id-ft.sm" "$id-ft"
    fi
}

# run_cdg ID NET SM_HOST DIAG_HOST [ENGINE...]
run_cdg() {
    local id=$1 net=$2 smhost=$3 host=$4 engine tag engines=(minhop updn updn-cr ftree-cr)
    [ $# -le 4 ] || engines=("${@:5}")
    for engine in "${engines[@]}"; do
        tag=$id-$engine
        case $engine in
        *-cr) set -- -R "${engine%-cr}" --connect_roots ;;
        *) set -- -R "$engine" ;;
        esac
        start "$tag" "$net" "$smhost" "$@" || continue
        routecheck "$tag" "$host" --all
        dumps "$tag" "$net" "$host"
        python3 "$DUMPS_PY" "$tag.swlids" "$tag.calids" "$tag.links" "$tag.lfts" --all \
            --report "$tag.json" > "$tag.indep"
        check_eq "$tag: the unrouted pairs are the dumps' pairs ($(json_get "$tag.json" unrouted))" \
            "report-unrouted same" "$(grep '^report-unrouted' "$tag.indep")"
        check_eq "$tag: every switch-to-CA route arrives" "$(json_get "$tag.json" ca_pairs)" \
            "$(json_get "$tag.json" ca_routed)"
        check_eq "$tag: the dumps agree on the cycle" "report-cycle same" "$(grep '^report-cycle ' "$tag.indep")"
        case $engine in
        minhop)
            check_eq "$tag: every switch pair routed" 0 "$(json_get "$tag.json" unrouted)"
            check_eq "$tag: a cycle in the channel dependency graph" true "$(json_get "$tag.json" cycle)"
            check_eq "$tag: exit status 1 (findings)" 1 "$RC_STATUS"
            check_eq "$tag: the printed cycle is one of the dumps' routes" "report-cycle-valid yes" \
                "$(grep '^report-cycle-valid' "$tag.indep")"
            check "$tag: the text report lists it" grep -q '^cycle (' "$tag.txt"
            sed -n '/^cycle (/,/^time/p' "$tag.txt" | sed '$d'
            ;;
        updn)
            # up*/down* routes switch pairs only along up/down paths (like ftree)
            check_eq "$tag: no cycle" false "$(json_get "$tag.json" cycle)"
            ;;
        updn-cr)
            # informational: on this tree OpenSM 3.3.23 still leaves pairs
            # unrouted and the CDG has a cycle (the dumps agree, checked above)
            echo "     $tag: unrouted $(json_get "$tag.json" unrouted), cycle $(json_get "$tag.json" cycle)"
            ;;
        ftree-cr)
            check_eq "$tag: every switch pair routed" 0 "$(json_get "$tag.json" unrouted)"
            check_eq "$tag: no cycle" false "$(json_get "$tag.json" cycle)"
            check_eq "$tag: exit status 0 (clean)" 0 "$RC_STATUS"
            ;;
        esac
        stop "$tag.sm" "$tag"
    done
}

# same_report A.json B.json: "same" when both reports agree on the counts,
# the unrouted list and the cycle, else what differs.
same_report() {
    python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ["switches", "endpoints", "pairs", "routed", "unrouted", "channels", "dependencies", "cycle", "ca_pairs", "ca_routed",
        "switch_lids", "ca_lids", "lmc_ports", "max_lmc", "lmc_known"]
diff = [k for k in keys if a[k] != b[k]]
pairs = lambda r: sorted((u["src"]["lid"], u["dst"]["lid"], u["reason"]) for u in r["unrouted_list"])
if pairs(a) != pairs(b):
    diff.append("unrouted_list")
print("same" if not diff else "differs: " + " ".join(diff))' "$1" "$2" 2> /dev/null || echo "no report"
}

# run_agent ID NET AGENT_NODE SM_HOST DIAG_HOST
run_agent() {
    local id=$1 net=$2 node=$3 smhost=$4 host=$5 engine tag rc agent
    local sock=$WORK/$id.ctl
    start_pzfabric "$id" "$net" --agent "$node" || {
        check "$id: pzfabric starts" false
        return
    }
    mkdir -p "$WORK/$id.agent"
    (cd "$WORK/$id.agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$node IBSIM_SOCKNAME=${PZT_SOCK[$id]} \
        exec "$PORTZEROD" -o board=sim -o monitor=off -o "ctl_socket=$sock" -vv \
        > "$WORK/$id.agent.out" 2> "$WORK/$id.agent.err" < /dev/null) &
    agent=$!
    PZT_PID[$id.agent]=$agent
    PZT_LOG[$id.agent]=$WORK/$id.agent.err
    check "$id: portzerod ($node) ready" wait_file "$WORK/$id.agent.out" 20 '^ready$' "$agent"
    # pz-cli's -t: a bad time limit is a usage error (2), not "no answer in time" (4)
    for t in abc -1 0 nan inf 1e12 5x ''; do
        rc=0
        "$PZ_CLI" -s "$sock" -t "$t" show version > "$id.t.out" 2> "$id.t.err" || rc=$?
        check_eq "$id: pz-cli -t '$t': usage error (exit 2)" "2 bad -t" \
            "$rc $(grep -o 'bad -t' "$id.t.err")"
    done
    rc=0
    "$PZ_CLI" -s "$sock" -t 2.5 show version > "$id.t.out" 2>&1 || rc=$?
    check_eq "$id: pz-cli -t 2.5 show version" "0 portzero" "$rc $(grep -o '^portzero' "$id.t.out")"
    rc=0
    "$PZ_CLI" -s "$sock" route check > "$id.nosm" 2>&1 || rc=$?
    check_eq "$id: before any SM, route check fails (exit 1)" 1 "$rc"
    check "$id: ... saying there is no subnet manager" grep -q 'no subnet manager' "$id.nosm"
    for engine in minhop ftree updn-lmc; do
        tag=$id-$engine
        case $engine in
        updn-lmc) set -- -R updn -l 1 ;;
        *) set -- -R "$engine" ;;
        esac
        start_opensm "$tag.sm" "$id" "$smhost" "$@"
        if ! wait_subnet_up "$tag.sm" 60; then
            check "$tag: SUBNET UP" false
            stop "$tag.sm"
            continue
        fi
        # the LFTs of the second sweep (SUBNET UP is logged after the first)
        wait_log "$tag.sm" 20 'SUBNET UP' 2 || true
        RC_SIM=$id routecheck "$tag" "$host"
        rc=0
        "$PZ_CLI" -s "$sock" route check json > "$tag.agent.json" 2> "$tag.agent.stderr" || rc=$?
        check_eq "$tag: portzerod's route check = pz-routecheck's" same "$(same_report "$tag.json" "$tag.agent.json")"
        check_eq "$tag: pz-cli exit status 1 (findings)" 1 "$rc"
        "$PZ_CLI" -s "$sock" show route check > "$tag.agent.txt" 2>&1 || true
        check "$tag: show route check repeats it" grep -q "^switch-to-switch pairs: $(json_get "$tag.json" pairs), routed: $(json_get "$tag.json" routed)" "$tag.agent.txt"
        if [ "$engine" = minhop ]; then
            check_eq "$tag: ... with the cycle" true "$(json_get "$tag.agent.json" cycle)"
        elif [ "$engine" = ftree ]; then
            "$PZ_CLI" -s "$sock" route check all json > "$tag.agent.all.json" 2>&1 || true
            check_eq "$tag: route check all: every switch-to-CA route (20 x 16)" 320 \
                "$(json_get "$tag.agent.all.json" ca_pairs)"
            check_eq "$tag: LMC 0 read from the SA" "true 0 16" \
                "$(json_get "$tag.agent.all.json" lmc_known) $(json_get "$tag.agent.all.json" max_lmc) $(json_get "$tag.agent.all.json" ca_lids)"
        else
            run_agent_lmc "$tag" "$id" "$net" "$host" "$sock"
        fi
        stop "$tag.sm"
    done
    stop "$id.agent" "$id"
    check "$id: no sanitizer report in portzerod's log" \
        fails grep -qE 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$WORK/$id.agent.err"
}

# run_agent_lmc TAG SIM NET DIAG_HOST SOCK: OpenSM -l 1 is up on SIM: every CA port owns
# two LIDs, and both checks walk them all (--all: switches x CA ports x 2),
# as the dumps (ibnetdiscover's LMCs, ibroute of every switch) count.
run_agent_lmc() {
    local tag=$1 sim=$2 net=$3 host=$4 sock=$5 nsw nca
    RC_SIM=$sim routecheck "$tag-all" "$host" --all
    "$PZ_CLI" -s "$sock" route check all json > "$tag.agent.all.json" 2>&1 || true
    check_eq "$tag: portzerod's route check all = pz-routecheck --all" same \
        "$(same_report "$tag-all.json" "$tag.agent.all.json")"
    nsw=$(json_get "$tag-all.json" switches)
    nca=$(json_get "$tag-all.json" endpoints)
    check_eq "$tag: LMC 1 read from the SA: 2 LIDs a CA port, 1 a switch (port 0: LMC 0)" \
        "true 1 $nca $((2 * nca)) $nsw" \
        "$(json_get "$tag-all.json" lmc_known) $(json_get "$tag-all.json" max_lmc) $(json_get "$tag-all.json" lmc_ports) $(json_get "$tag-all.json" ca_lids) $(json_get "$tag-all.json" switch_lids)"
    check_eq "$tag: switch-to-CA routes = switches x CA ports x 2^LMC (20 x 16 x 2)" \
        "640 $((nsw * nca * 2))" "$(json_get "$tag-all.json" ca_pairs) $(json_get "$tag.agent.all.json" ca_pairs)"
    check "$tag: the text report gives the LIDs and their LMCs" \
        grep -q "^LIDs: switches 20, CA ports 32 (LMC from PortInfoRecords: 16 ports above 0, at most 1)" "$tag-all.txt"
    RC_SIM=$sim dumps "$tag" "$net" "$host"
    check_eq "$tag: ibnetdiscover: LMC 1 on the 16 CA ports, 0 on the 20 switches' port 0" "16 20" \
        "$(awk '$2 == 1' "$tag.lmcs" | wc -l) $(awk '$2 == 0' "$tag.lmcs" | wc -l)"
    python3 "$DUMPS_PY" "$tag.swlids" "$tag.calids" "$tag.links" "$tag.lfts" --all --lmcs "$tag.lmcs" \
        --report "$tag-all.json" > "$tag.indep"
    check_eq "$tag: the dumps count the same switch-to-CA routes (routed, all)" \
        "$(awk '$1 == "ca_routed" || $1 == "ca_pairs" { printf "%s ", $2 }' "$tag.indep")" \
        "$(json_get "$tag-all.json" ca_pairs) $(json_get "$tag-all.json" ca_routed) "
    check_eq "$tag: ... the same dependencies" "$(awk '$1 == "dependencies" { print $2 }' "$tag.indep")" \
        "$(json_get "$tag-all.json" dependencies)"
    check_eq "$tag: ... the same unrouted pairs and cycle" "report-unrouted same report-cycle same" \
        "$(grep -E '^report-(unrouted|cycle) ' "$tag.indep" | tr '\n' ' ' | sed 's/ $//')"
}

# fails COMMAND...: true when COMMAND fails.
fails() { ! "$@"; }

# run_args: bad arguments are refused with the usage and status 2 before
# any port is opened (numbers out of range, not wrapped into range).
run_args() {
    local a rc
    for a in "-t 0" "-t 4294967297" "-t 2147483648" "-t -5" "-t abc" "-t ''" "-P 255" \
        "-P 4294967297" "-P -1" "-m -1" "-m ''" "-m 1x" "extra"; do
        rc=0
        eval "\"$ROUTECHECK\" $a" > args.out 2> args.err || rc=$?
        check_eq "pz-routecheck $a: usage error (exit 2)" "2 usage" \
            "$rc $(grep -o '^usage' args.err || grep -m1 . args.err)"
    done
    rc=0
    "$ROUTECHECK" --help > args.out 2>&1 || rc=$?
    check_eq "pz-routecheck --help: exit 0 and the usage" "0 usage" "$rc $(grep -o '^usage' args.out)"
}

"$GEN" 3 --radix 4 > ft3r4.net
case $MODE in
ftree)
    run_args
    "$GEN" 2 --spines 4 --leaves 4 --hosts-per-leaf 4 --radix 8 > ft2.net
    run_ftree ft2 ft2.net host-1-1 host-3-2
    run_ftree ft3 ft3r4.net host-1-1 host-5-2
    ;;
cdg)
    run_cdg ft3 ft3r4.net host-1-1 host-5-2
    # the reference simulator too (its umad2sim writes the agent number into
    # the high TID bits of every request, as the kernel does)
    pzt_require ibsim
    SIM_KIND=ibsim run_cdg ibsim-ft3 ft3r4.net host-1-1 host-5-2 minhop ftree-cr
    ;;
agent)
    PORTZEROD=$(abspath "${PORTZEROD:?usage: ... agent PORTZEROD PZ_CLI}")
    PZ_CLI=$(abspath "${PZ_CLI:?usage: ... agent PORTZEROD PZ_CLI}")
    run_agent ag ft3r4.net mid-1-1 host-1-1 host-5-2
    ;;
*)
    echo "unknown mode $MODE" >&2
    exit 2
    ;;
esac

pzt_finish
