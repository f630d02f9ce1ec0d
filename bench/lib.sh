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

# median_ms COMMAND...: median wall time (ms, one decimal) of RUNS runs of
# COMMAND (its output is discarded).
median_ms() {
    local i t0 t1
    for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N)
        "$@" > /dev/null 2>&1
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000))
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f\n", v[int((NR + 1) / 2)] / 1000 }'
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
