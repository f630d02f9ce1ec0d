# shellcheck shell=bash
# bench/lib.sh - what the benchmark scripts share (sourced, not run: `make
# bench` runs bench_*.sh only).  Figures and their statistics here; starting
# fabrics, OpenSM and processes is tests/fabric/fabric_lib.sh's and
# tests/integration/lib.sh's.

# median VALUE...: the median of the numbers (the mean of the middle two for
# an even count).
median() {
    printf '%s\n' "$@" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# median_max_ms COMMAND...: "MEDIAN MAX", the median and the longest wall
# time (ms, one decimal) of RUNS runs of COMMAND (its output is discarded).
median_max_ms() {
    local i t0 t1
    for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N)
        "$@" > /dev/null 2>&1
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000))
    done | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

# log_seconds OSM_LOG: seconds from OpenSM's first log line to SUBNET UP.
log_seconds() {
    awk 'function t(line,   f) { split(line, f, " "); split(f[3], c, ":")
             return c[1] * 3600 + c[2] * 60 + c[3] + f[4] / 1e6 }
         NR == 1 { t0 = t($0) }
         /SUBNET UP/ { d = t($0) - t0; if (d < 0) d += 86400; printf "%.3f\n", d; exit }' "$1"
}

# bench_need NAME TOOL...: whether the IP-plane benchmark NAME can run: the
# tools, PZ_UMAD2SIM_FIX (set by make bench) and $BIN/portzerod.  Says what
# is missing and returns 1 if anything is (the caller exits 0: skipped).
bench_need() {
    local name=$1 t
    shift
    for t in "$@"; do
        command -v "$t" > /dev/null || { echo "$name: $t missing, skipped"; return 1; }
    done
    [ -f "${PZ_UMAD2SIM_FIX:-}" ] || { echo "$name: PZ_UMAD2SIM_FIX unset (run through make bench), skipped"; return 1; }
    [ -x "$BIN/portzerod" ] || { echo "$name: $BIN/portzerod missing, skipped"; return 1; }
}

# The SNMPv3 user the IP benches poll as (authPriv, SHA-256/AES): the
# snmpcmd options (V3), its agent configuration lines (bench_snmp_user), and
# the table they walk (ifXTable).
# shellcheck disable=SC2034 # used by the scripts that source this file
V3=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 3 -r 2)
# shellcheck disable=SC2034
IFX=.1.3.6.1.2.1.31.1.1.1
bench_snmp_user() {
    echo 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"'
    echo 'rouser pzro priv'
}

# bench_start_ip_switch NAME SM_CA [OPENSM_OPTION...] -- [PORTZEROD_OPTION...]:
# after fl_start_fabric --agent "$SW": portzerod on $SW with the IP plane at
# $SWADDR/24 (ctl socket, state dir and output in $WORK/agent; AGENT is its
# PID), then OpenSM on SM_CA with the options, until SUBNET UP.  Returns 1
# with a message naming NAME if either does not come up.
bench_start_ip_switch() {
    local name=$1 sm_ca=$2 sm_opts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sm_opts+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    mkdir -p "$WORK/agent"
    (cd "$WORK/agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$SW IBSIM_SOCKNAME=$SOCK exec "$BIN/portzerod" \
        -o board=sim -o "ip_address=$SWADDR/24" -o "ctl_socket=$WORK/agent/ctl" \
        -o "state_dir=$WORK/state" "$@" > "$WORK/agent/out" 2> "$WORK/agent/err" < /dev/null) &
    AGENT=$!
    wait_file "$WORK/agent/out" 20 '^ready$' "$AGENT" || { echo "$name: portzerod not ready"; return 1; }
    fl_start_opensm "$sm_ca" "${sm_opts[@]}"
    fl_wait_up 60 || { echo "$name: no SUBNET UP"; return 1; }
}

# bench_start_iphost NAME CA: pz-iphost on CA at $HOSTADDR/24 in namespace
# $NS (HOST_PID), until it pings $SWADDR.  Returns 1 with a message if not.
bench_start_iphost() {
    "$BIN/pz-iphost" --sockname "$SOCK" --ca "$2" --address "$HOSTADDR/24" --netns "$NS" \
        > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
    HOST_PID=$!
    wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID" || { echo "$1: pz-iphost not ready"; return 1; }
    wait_until 30 ip netns exec "$NS" ping -c 1 -W 1 "$SWADDR" || { echo "$1: $SWADDR unreachable"; return 1; }
}

# --- The end-to-end MAD benches (bench_lft_e2e.sh, bench_pce.sh): their own
# processes in PIDS, their files in WORK, clients on Hca1 through umad2sim.

UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

# bench_stop_all: the EXIT trap: SIGKILL every PID in PIDS, remove WORK.
bench_stop_all() {
    local pid
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done
    rm -rf "$WORK"
}

# wait_for FILE SECONDS REGEX: 0 once a line of FILE matches, 1 after SECONDS.
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do grep -qE "$3" "$1" 2> /dev/null && return 0; sleep 0.1; done
    return 1
}

# at_hca1 SOCK COMMAND...: run COMMAND as a umad2sim client on Hca1 of the
# simulator at SOCK, in a directory of its own.
at_hca1() {
    local sock=$1 dir
    shift
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca1 IBSIM_SOCKNAME=$sock "$@")
}

# bench_three_sims A B C: in WORK, the three simulators compared, on $NET
# (Spine1 the switch measured), at sockets A, B, C: A pzfabric with Spine1
# served by an external portzerod (board/sim), B pzfabric (in-process SMA
# and PMA), C ibsim (the reference).  Returns 1 with a message if A or B
# does not start.
bench_three_sims() {
    "$BIN/pzfabric" --sockname "$1" --agent Spine1 "$NET" > a.out 2> a.err &
    PIDS+=($!)
    wait_for a.out 10 '^ready$' || { echo "pzfabric did not start"; return 1; }
    mkdir agent
    (cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME="$1" \
        exec "$BIN/portzerod" -o board=sim > ../agent.out 2> ../agent.err) &
    PIDS+=($!)
    wait_for agent.out 10 '^ready$' || { echo "portzerod did not start"; return 1; }
    "$BIN/pzfabric" --sockname "$2" "$NET" > b.out 2> b.err &
    PIDS+=($!)
    wait_for b.out 10 '^ready$' || { echo "pzfabric did not start"; return 1; }
    IBSIM_SOCKNAME="$3" ibsim -s -n "$NET" > c.out 2>&1 < /dev/null &
    PIDS+=($!)
    sleep 0.5
}

# bench_three_rates WHAT A_RATE A_N A_ERR B_RATE B_N B_ERR C_RATE C_N C_ERR:
# the rates of bench_three_sims' A, B and C (WHAT: the in-process agent, SMA
# or PMA) and their ratios.
bench_three_rates() {
    printf '  A. external portzerod (board/sim)   %8s/s  (%s answered, %s errors)\n' "${2:-0}" "${3:-0}" "${4:-?}"
    printf '  B. pzfabric in-process %-13s%8s/s  (%s answered, %s errors)\n' "$1" "${5:-0}" "${6:-0}" "${7:-?}"
    printf '  C. ibsim (reference)                %8s/s  (%s answered, %s errors)\n' "${8:-0}" "${9:-0}" "${10:-?}"
    awk -v a="${2:-0}" -v b="${5:-0}" -v c="${8:-0}" 'BEGIN {
        if (c > 0) printf "  ratio A/C %.2f   B/C %.2f\n", a / c, b / c;
        if (b > 0) printf "  ratio A/B %.2f  (cost of the external agent)\n", a / b;
    }'
}
