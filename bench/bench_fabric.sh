#!/bin/bash
# bench_fabric.sh BINDIR [NETFILE] - MAD rates, SUBNET UP and the
# simulator's cost on fat trees the size of real fabrics, on three
# simulators started side by side in this run:
#   C. ibsim (the reference: every ratio is against it),
#   B. pzfabric, every switch answered in-process,
#   A. pzfabric --agent <spine> with one external portzerod serving it over
#      board/sim, its MADs on the board/sim connection (mad_transport = auto),
#   U. the same with mad_transport = umad: its MADs through umad2sim (the
#      path of hardware and ibsim; before the board transport, A's).
# On the 648-port tree (gen-fattree 2: 18 spines, 36 leaves, 648 CAs), from
# host-1-1 to spine-1 (directed route 0,1,19; LID-routed for the PMA):
#   sync NodeInfo Gets/s (window 1), pipelined PortInfo Gets/s (window 16),
#   PortCountersExtended Gets/s (window 16), LFT block Sets/s (window 4);
#   OpenSM -R ftree --connect_roots start -> SUBNET UP (wall, from OpenSM's
#   log) and the simulator's CPU (utime + stime) and RSS after it;
#   port-0 datagrams/s between spine-1 and spine-2 attached over
#   "<sockname>:dgram" on B (what two external agents do; the ceiling of
#   IPoIB over board/sim).
# BENCH_LARGE=1 adds the 3-level tree of 2,916 CAs (gen-fattree 3 --pods 9,
# core-1 at 0,1,19,19) for the same measurements, and the growth series
# (648 -> 2,916 -> 5,832 CAs; B and C only) of simulator CPU per SUBNET UP
# and RSS per node.  Several minutes.  BENCH_HUGE=1 (with BENCH_LARGE) adds
# the full 3-level tree of 36-port switches (gen-fattree 3: 1,620 switches,
# 11,664 CAs) to the growth series: about 5 minutes more, 1 GiB of OpenSM.
# BENCH_SECONDS (default 2) per rate run, RUNS (default 1) alternating rounds
# (medians).  NETFILE (what `make bench` passes the other scripts) is ignored.
# Goals printed next to the figures, never pass/fail.  Exit status 0 when
# every simulator reached SUBNET UP.
set -uo pipefail

BIN=${1:?usage: bench_fabric.sh BINDIR [NETFILE]}
SECS=${BENCH_SECONDS:-2}
RUNS=${RUNS:-1}
# shellcheck source=sim_lib.sh
source "$(dirname "$0")/sim_lib.sh" # BIN absolute, PZFABRIC, integration/lib.sh, lib.sh
pzt_require opensm ibsim
pzt_init bench-fabric
failed=0

# proc_cpu PID: utime + stime of PID in seconds.
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' "/proc/$1/stat"; }
# proc_rss PID: resident set of PID in kB.
proc_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# log_seconds LOG: seconds from OpenSM's first log line to its first SUBNET UP.
# median X...: the median of its arguments.
# at SIM HOST COMMAND...: a umad2sim client of simulator SIM at HOST, in its own directory.
at() {
    local sim=$1 host=$2 dir
    shift 2
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=$host IBSIM_SOCKNAME=${PZT_SOCK[$sim]} "$@")
}
# ibsim_sizes NET: ibsim's -N/-S/-P for NET (Debian's defaults stop at 2,048 nodes).
ibsim_sizes() {
    awk '/^Switch/ { s++; p += $2 + 1 } /^Hca/ { c++; p += $2 + 1 }
         END { printf "-N %d -S %d -P %d\n", s + c + 16, s + 16, p + 64 }' "$1"
}
# start_sim KIND ID NET SPINE: KIND ib, pz, agent or umad (pzfabric --agent SPINE +
# portzerod, its MADs over board/sim or through umad2sim).
start_sim() {
    local kind=$1 id=$2 net=$3 spine=$4 transport=auto
    case $kind in
    ib) start_ibsim "$id" "$net" $(ibsim_sizes "$net") ;;
    pz) start_pzfabric "$id" "$net" ;;
    agent | umad)
        [ "$kind" = umad ] && transport=umad
        start_pzfabric "$id" "$net" --agent "$spine" || return 1
        mkdir -p "$WORK/$id.agent"
        (cd "$WORK/$id.agent" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=$spine IBSIM_SOCKNAME=${PZT_SOCK[$id]} \
            exec "$BIN/portzerod" -o board=sim -o mad_transport=$transport > out 2> err < /dev/null) &
        PZT_PID[$id.agent]=$!
        wait_file "$WORK/$id.agent/out" 30 '^ready$' "${PZT_PID[$id.agent]}"
        ;;
    esac
}
# subnet_up ID HOST SECS: OpenSM at HOST until SUBNET UP, then stopped; sets
# UP_WALL (from its log), UP_CPU (simulator CPU during it), UP_RSS (kB after).
subnet_up() {
    local id=$1 host=$2 secs=$3 pid=${PZT_PID[$1]} cpu0
    UP_WALL='' UP_CPU='' UP_RSS=''
    cpu0=$(proc_cpu "$pid")
    start_opensm "$id.sm" "$id" "$host"
    if wait_subnet_up "$id.sm" "$secs"; then
        UP_WALL=$(log_seconds "$WORK/$id.sm/osm.log")
        UP_CPU=$(awk -v a="$cpu0" -v b="$(proc_cpu "$pid")" 'BEGIN { printf "%.2f", b - a }')
        UP_RSS=$(proc_rss "$pid")
    else
        echo "$id: no SUBNET UP within $secs s" >&2
        failed=1
    fi
    sleep 2 # the first sweep's traps and the agent's first polls settle
    stop "$id.sm"
}
# lid_of SIM HOST PATH: the LID of the node at PATH (PortInfo port 0).
lid_of() { at "$1" "$2" smpquery -t 3000 -D portinfo "$3" 0 2> /dev/null | sed -n 's/^Lid:\.*//p'; }
# rate_of FILE: the median rate of the result lines in FILE (0 if none).
rate_of() {
    local r
    mapfile -t r < <(awk '{ print $3 }' "$1" 2> /dev/null)
    [ ${#r[@]} -gt 0 ] && median "${r[@]}" || echo 0
}
# row NAME C B A U [GOALTEXT]: one table line: rates and ratios to C.
row() {
    awk -v n="$1" -v c="$2" -v b="$3" -v a="$4" -v u="$5" -v g="${6:-}" 'BEGIN {
        rb = c > 0 ? sprintf("%.2fx", b / c) : "-"; ra = c > 0 ? sprintf("%.3fx", a / c) : "-"
        ru = c > 0 ? sprintf("%.3fx", u / c) : "-"
        printf "  %-34s %10.0f  %10.0f %6s  %10.0f %7s  %10.0f %7s  %s\n", n, c, b, rb, a, ra, u, ru, g }'
}

# bench_tree LABEL NET HOST PATH SPINE: the MAD rates and SUBNET UP on NET.
bench_tree() {
    local label=$1 net=$2 host=$3 path=$4 spine=$5 k id run
    declare -A wall cpu rss lid
    for k in ib pz agent umad; do
        id=$label-$k
        start_sim "$k" "$id" "$net" "$spine" || { failed=1; return; }
        subnet_up "$id" "$host" 600
        wall[$k]=${UP_WALL:-0} cpu[$k]=${UP_CPU:-0} rss[$k]=${UP_RSS:-0}
        lid[$k]=$(lid_of "$id" "$host" "$path")
    done
    for ((run = 0; run < RUNS; run++)); do
        for k in ib pz agent umad; do
            id=$label-$k
            at "$id" "$host" "$BIN/pz-smp-client" nodeinfo "$path" "$SECS" 1 >> "$id.ni"
            at "$id" "$host" "$BIN/pz-smp-client" portinfo "$path" "$SECS" 16 >> "$id.pi"
            at "$id" "$host" "$BIN/pz-pce-client" "${lid[$k]:-0}" 1 "$SECS" 16 >> "$id.pce"
        done
    done
    "$BIN/pz-dgram-client" "${PZT_SOCK[$label-pz]}" "$spine" "${spine%-1}-2" "$SECS" 64 256 > "$label.dgram"
    # LFT Sets last: they overwrite the spine's routes, which LID-routed PMA Gets need.
    for ((run = 0; run < RUNS; run++)); do
        for k in ib pz agent umad; do
            at "$label-$k" "$host" "$BIN/pz-lft-client" "$path" "$SECS" 4 >> "$label-$k.lft"
        done
    done
    for k in umad agent pz ib; do
        stop "$label-$k.agent"
        stop "$label-$k"
    done

    echo "$label: host $host -> $spine (DR $path), $SECS s per run, median of $RUNS"
    printf '  %-34s %10s  %10s %6s  %10s %7s  %10s %7s\n' "" "ibsim" "pzfabric" "ratio" "ext.agent" "ratio" \
        "ext.umad" "ratio"
    row "sync NodeInfo Gets/s" "$(rate_of "$label-ib.ni")" "$(rate_of "$label-pz.ni")" \
        "$(rate_of "$label-agent.ni")" \
        "$(rate_of "$label-umad.ni")" "goal: both >= 1.0x"
    row "pipelined PortInfo Gets/s (16)" "$(rate_of "$label-ib.pi")" "$(rate_of "$label-pz.pi")" \
        "$(rate_of "$label-agent.pi")" \
        "$(rate_of "$label-umad.pi")" "goal: in-process >= 1.0x"
    row "PortCountersExt Gets/s (16)" "$(rate_of "$label-ib.pce")" "$(rate_of "$label-pz.pce")" \
        "$(rate_of "$label-agent.pce")" \
        "$(rate_of "$label-umad.pce")"
    row "LFT block Sets/s (4)" "$(rate_of "$label-ib.lft")" "$(rate_of "$label-pz.lft")" \
        "$(rate_of "$label-agent.lft")" \
        "$(rate_of "$label-umad.lft")" "goal: ext.agent >= 25000/s"
    awk -v c="${wall[ib]}" -v b="${wall[pz]}" -v a="${wall[agent]}" -v u="${wall[umad]}" \
        -v cc="${cpu[ib]}" -v cb="${cpu[pz]}" -v ca="${cpu[agent]}" -v cu="${cpu[umad]}" \
        -v rc="${rss[ib]}" -v rb="${rss[pz]}" 'BEGIN {
        printf "  %-34s %9.3fs  %9.3fs %5.2fx  %9.3fs          %9.3fs          goal: in-process <= 1.0x ibsim\n", "SUBNET UP wall", c, b, (c > 0 ? b / c : 0), a, u
        printf "  %-34s %9.2fs  %9.2fs %5.2fx  %9.2fs          %9.2fs\n", "simulator CPU during SUBNET UP", cc, cb, (cc > 0 ? cb / cc : 0), ca, cu
        printf "  %-34s %8.1fMiB  %8.1fMiB %5.2fx\n", "simulator RSS after SUBNET UP", rc / 1024, rb / 1024, (rc > 0 ? rb / rc : 0) }'
    read -r n _ r lost < "$label.dgram" || { n=0 r=0 lost=0; }
    printf '  %-34s %10s/s on pzfabric (%s received, %s lost; window 64, 256 B)\n' \
        "port-0 datagrams ${spine} -> ${spine%-1}-2" "$r" "$n" "$lost"
}

# growth LABEL NET HOST NODES: SUBNET UP on ibsim and pzfabric; CPU per node and
# per cabled port (both ends of every cable), RSS per node.
growth() {
    local label=$1 net=$2 host=$3 nodes=$4 k ports
    ports=$(grep -c '^\[' "$net")
    for k in ib pz; do
        start_sim "$k" "g-$label-$k" "$net" "" || { failed=1; continue; }
        subnet_up "g-$label-$k" "$host" 900
        stop "g-$label-$k"
        awk -v k="$k" -v l="$label" -v n="$nodes" -v p="$ports" -v w="${UP_WALL:-0}" -v c="${UP_CPU:-0}" -v r="${UP_RSS:-0}" 'BEGIN {
            printf "  %-8s %-9s %6d nodes %6d ports  SUBNET UP %8.2fs  CPU %8.2fs (%6.0f us/node, %5.0f us/port)  RSS %8.1fMiB (%5.1f kB/node)\n",
                l, (k == "ib" ? "ibsim" : "pzfabric"), n, p, w, c, c * 1e6 / n, c * 1e6 / p, r / 1024, r / n }'
    done
}

"$BIN/gen-fattree" 2 > ft648.net
bench_tree sftree648 ft648.net host-1-1 0,1,19 spine-1
if [ -n "${BENCH_LARGE:-}" ]; then
    "$BIN/gen-fattree" 3 --pods 9 > ft2916.net
    "$BIN/gen-fattree" 3 --pods 18 > ft5832.net
    bench_tree ft3l-2916 ft2916.net host-1-1 0,1,19,19 core-1
    echo "growth: simulator cost of one OpenSM SUBNET UP as the fabric grows"
    growth 648 ft648.net host-1-1 702
    growth 2916 ft2916.net host-1-1 3564
    growth 5832 ft5832.net host-1-1 7128
    if [ -n "${BENCH_HUGE:-}" ]; then
        "$BIN/gen-fattree" 3 > ft11664.net
        growth 11664 ft11664.net host-1-1 13284
    fi
fi
exit "$failed"
