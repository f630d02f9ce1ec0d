#!/bin/bash
# bench_fabric.sh BINDIR [NETFILE] - MAD rates, SUBNET UP and the
# simulator's cost on fat trees the size of real fabrics, on five
# simulators started side by side in this run:
#   C. ibsim (the reference: every ratio is against it),
#   B. pzfabric, every switch answered in-process,
#   A. pzfabric --agent <spine> with one external portzerod serving it over
#      board/sim, its MADs on the board/sim connection (mad_transport = auto),
#   U. the same with mad_transport = umad: its MADs through umad2sim (the
#      path of hardware and ibsim; before the board transport, A's).
#   P. A with busy polling (pzfabric --busy-poll and portzerod busy_poll_us,
#      BUSY_POLL_US, default 200): each keeps polling that long after input
#      instead of sleeping, so an SMP's two extra process hops cost no
#      wake-ups; a core each while MADs flow.
# Every rate is printed for the five, with its ratio to ibsim.
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
BUSY_POLL_US=${BUSY_POLL_US:-200}
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
# start_sim KIND ID NET SPINE: KIND ib, pz, agent, umad or poll (pzfabric --agent
# SPINE + portzerod, its MADs over board/sim or through umad2sim; poll: board/sim
# with both busy polling).
start_sim() {
    local kind=$1 id=$2 net=$3 spine=$4 transport=auto busy=0
    case $kind in
    ib) start_ibsim "$id" "$net" $(ibsim_sizes "$net") ;;
    pz) start_pzfabric "$id" "$net" ;;
    agent | umad | poll)
        [ "$kind" = umad ] && transport=umad
        [ "$kind" = poll ] && busy=$BUSY_POLL_US
        start_pzfabric "$id" "$net" --agent "$spine" --busy-poll "$busy" || return 1
        mkdir -p "$WORK/$id.agent"
        (cd "$WORK/$id.agent" && LD_PRELOAD=$PZT_UMAD2SIM SIM_HOST=$spine IBSIM_SOCKNAME=${PZT_SOCK[$id]} \
            exec "$BIN/portzerod" -o board=sim -o mad_transport=$transport -o busy_poll_us="$busy" \
            > out 2> err < /dev/null) &
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
# row NAME SUFFIX [GOALTEXT]: one table line of LABEL's results SUFFIX: the
# rates of ibsim (the reference), pzfabric, ext.agent, ext.busy and ext.umad,
# each but the first with its ratio to ibsim.
row() {
    local k rates=()
    for k in ib pz agent poll umad; do rates+=("$(rate_of "$label-$k.$2")"); done
    awk -v n="$1" -v g="${3:-}" -v r="${rates[*]}" 'BEGIN {
        split(r, v, " "); line = sprintf("  %-30s %9.0f", n, v[1])
        for (i = 2; i <= 5; i++)
            line = line sprintf("  %9.0f %6s", v[i], v[1] > 0 ? sprintf("%.2fx", v[i] / v[1]) : "-")
        printf "%s  %s\n", line, g }'
}

# bench_tree LABEL NET HOST PATH SPINE: the MAD rates and SUBNET UP on NET.
bench_tree() {
    local label=$1 net=$2 host=$3 path=$4 spine=$5 k id run
    declare -A wall cpu rss lid
    for k in ib pz agent poll umad; do
        id=$label-$k
        start_sim "$k" "$id" "$net" "$spine" || { failed=1; return; }
        subnet_up "$id" "$host" 600
        wall[$k]=${UP_WALL:-0} cpu[$k]=${UP_CPU:-0} rss[$k]=${UP_RSS:-0}
        lid[$k]=$(lid_of "$id" "$host" "$path")
    done
    for ((run = 0; run < RUNS; run++)); do
        for k in ib pz agent poll umad; do
            id=$label-$k
            at "$id" "$host" "$BIN/pz-smp-client" nodeinfo "$path" "$SECS" 1 >> "$id.ni"
            at "$id" "$host" "$BIN/pz-smp-client" portinfo "$path" "$SECS" 16 >> "$id.pi"
            at "$id" "$host" "$BIN/pz-pce-client" "${lid[$k]:-0}" 1 "$SECS" 16 >> "$id.pce"
        done
    done
    "$BIN/pz-dgram-client" "${PZT_SOCK[$label-pz]}" "$spine" "${spine%-1}-2" "$SECS" 64 256 > "$label.dgram"
    # LFT Sets last: they overwrite the spine's routes, which LID-routed PMA Gets need.
    for ((run = 0; run < RUNS; run++)); do
        for k in ib pz agent poll umad; do
            at "$label-$k" "$host" "$BIN/pz-lft-client" "$path" "$SECS" 4 >> "$label-$k.lft"
        done
    done
    for k in umad poll agent pz ib; do
        stop "$label-$k.agent"
        stop "$label-$k"
    done

    echo "$label: host $host -> $spine (DR $path), $SECS s per run, median of $RUNS"
    printf '  %-30s %9s' "" ibsim
    printf '  %9s %6s' pzfabric ratio ext.agent ratio ext.busy ratio ext.umad ratio
    printf '\n'
    row "sync NodeInfo Gets/s" ni "goal: pzfabric, ext.busy >= 1.0x"
    row "pipelined PortInfo Gets/s (16)" pi "goal: pzfabric >= 1.0x"
    row "PortCountersExt Gets/s (16)" pce
    row "LFT block Sets/s (4)" lft "goal: ext. >= 25000/s"
    # SUBNET UP: wall (ratio to ibsim for each), simulator CPU, RSS (ib and pz).
    awk -v w="${wall[ib]} ${wall[pz]} ${wall[agent]} ${wall[poll]} ${wall[umad]}" \
        -v c="${cpu[ib]} ${cpu[pz]} ${cpu[agent]} ${cpu[poll]} ${cpu[umad]}" \
        -v rc="${rss[ib]}" -v rb="${rss[pz]}" 'BEGIN {
        split(w, W, " "); split(c, C, " ")
        line = sprintf("  %-30s %8.3fs", "SUBNET UP wall", W[1])
        for (i = 2; i <= 5; i++)
            line = line sprintf("  %8.3fs %5.2fx", W[i], W[1] > 0 ? W[i] / W[1] : 0)
        print line "  goal: pzfabric <= 1.0x"
        line = sprintf("  %-30s %8.2fs", "simulator CPU during SUBNET UP", C[1])
        for (i = 2; i <= 5; i++)
            line = line sprintf("  %8.2fs %5.2fx", C[i], C[1] > 0 ? C[i] / C[1] : 0)
        print line
        printf "  %-30s %6.1fMiB  %6.1fMiB %5.2fx\n", "simulator RSS after SUBNET UP", rc / 1024, rb / 1024, (rc > 0 ? rb / rc : 0) }'
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
