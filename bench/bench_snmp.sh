#!/bin/bash
# bench_snmp.sh BINDIR [NETFILE] - portzerod's SNMP agent over IPoIB against
# Debian's snmpd on loopback, measured in the same run.
#
#   walk:  snmpbulkwalk -v3 authPriv (SHA-256/AES) of ifXTable on a 36-port
#          switch (tests/integration/ft-36port.net, leaf-2: 37 rows) from
#          pz-iphost's namespace across pzfabric, versus snmpd walking its
#          own ifXTable for 37 interfaces (lo + 36 dummies or veths in a namespace)
#          on loopback, same user and tool; median of RUNS (default 9)
#          wall times, one snmpbulkwalk process each (includes its start);
#          the two agents' walks alternate, so both see the same load.
#   gets:  GETs/s of sysUpTime.0 from POLLERS (default 4) parallel pollers (v2c, one request
#          outstanding per poller: tests/agent/snmp_raw.py poll), SECS
#          (default 5) seconds, against both; portzerod's CPU (% of one
#          core over the interval, OpenSM sweeping), its CPU per GET,
#          and RSS.
# PERF_OUT=FILE records portzerod (perf record -g) while the pollers run,
# PERF_WALK_OUT=FILE while the walks run.  STRACE_WALK_DIR=DIR writes
# strace -c summaries of portzerod, pzfabric and pz-iphost during the walks
# (slows them: figures from such a run are for the per-hop system calls only).
# Each hop's CPU per walk (portzerod, pzfabric, pz-iphost, snmpd) is printed.
# NETFILE is ignored (the 36-port file is this bench's). Prints ratios;
# exit 0 whatever the figures.  Without snmpd: says so, skips the ratios.
set -uo pipefail

BIN=$(cd "${1:?usage: bench_snmp.sh BINDIR [NETFILE]}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-9}
SECS=${SECS:-5}
POLLERS=${POLLERS:-4}
for t in opensm ip snmpbulkwalk python3; do
    command -v "$t" > /dev/null || { echo "bench_snmp: $t missing, skipped"; exit 0; }
done
[ -f "${PZ_UMAD2SIM_FIX:-}" ] || { echo "bench_snmp: PZ_UMAD2SIM_FIX unset (run through make bench), skipped"; exit 0; }
[ -x "$BIN/portzerod" ] || { echo "bench_snmp: $BIN/portzerod missing, skipped"; exit 0; }

# shellcheck source=../tests/fabric/fabric_lib.sh
source "$ROOT/tests/fabric/fabric_lib.sh"
fl_init bench-snmp "$BIN/pzfabric" "$BIN/pzfabric-ctl"
NET=$ROOT/tests/integration/ft-36port.net
SPI=$ROOT/tests/agent/snmp_raw.py
NS="pzb-$$-snmp"
NSD="pzb-$$-snmpd"
SW=leaf-2
SWADDR=10.81.0.4
HOSTADDR=10.81.0.100
AGENT=''
HOST_PID=''
SNMPD_PID=''
V3=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 3 -r 2)
IFX=.1.3.6.1.2.1.31.1.1.1

bench_cleanup() {
    local rc=$?
    for p in $SNMPD_PID $HOST_PID $AGENT; do stop_pid "$p"; done
    ip netns delete "$NS" 2> /dev/null
    ip netns delete "$NSD" 2> /dev/null
    (exit "$rc")
    fl_cleanup
}
trap bench_cleanup EXIT

cat > "$WORK/snmp.conf" << EOF
createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"
rouser pzro priv
rocommunity pzpublic 10.81.0.0/24
EOF

# walk_us NS ADDR OUT: wall time (us) of one bulkwalk of ifXTable (its output in OUT).
walk_us() {
    local t0 t1
    t0=$(date +%s%N)
    ip netns exec "$1" snmpbulkwalk "${V3[@]}" -On "$2" "$IFX" > "$3" 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}

# median_ms FILE: the median of the microsecond figures in FILE, in ms.
median_ms() {
    sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f\n", v[int((NR + 1) / 2)] / 1000 }'
}

# start_snmpd: Debian's snmpd in namespace NSD with 37 interfaces; 0 when it answers.
start_snmpd() {
    local i l snmpd
    command -v snmpd > /dev/null || [ -x /usr/sbin/snmpd ] || return 1
    snmpd=$(command -v snmpd || echo /usr/sbin/snmpd)
    ip netns add "$NSD" && ip -n "$NSD" link set lo up || return 1
    # 36 interfaces besides lo: dummies, or 18 veth pairs where there is no dummy module.
    for i in $(seq 36); do ip -n "$NSD" link add "pzd$i" type dummy 2> /dev/null || break; done
    if [ "$(ip -n "$NSD" -o link | wc -l)" -lt 37 ]; then
        for i in $(seq 36); do ip -n "$NSD" link delete "pzd$i" 2> /dev/null; done
        for i in $(seq 18); do ip -n "$NSD" link add "pzv${i}a" type veth peer name "pzv${i}b"; done
    fi
    for l in $(ip -n "$NSD" -o link | awk -F': ' '{ print $2 }' | cut -d@ -f1); do
        ip -n "$NSD" link set "$l" up
    done
    mkdir -p "$WORK/snmpd"
    printf '%s\n' 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"' 'rouser pzro priv' \
        'rocommunity pzpublic 127.0.0.1' > "$WORK/snmpd/snmpd.conf"
    ip netns exec "$NSD" env SNMP_PERSISTENT_DIR="$WORK/snmpd" MIBS= "$snmpd" -f -Lf "$WORK/snmpd/log" \
        -C -c "$WORK/snmpd/snmpd.conf" udp:127.0.0.1:161 < /dev/null > /dev/null 2>&1 &
    SNMPD_PID=$!
    wait_until 10 ip netns exec "$NSD" snmpget "${V3[@]}" 127.0.0.1 .1.3.6.1.2.1.1.3.0
}

rows() { grep -c "^$IFX\.1\." "$1"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

fl_start_fabric --agent "$SW" "$NET" || exit 0
mkdir -p "$WORK/agent"
(cd "$WORK/agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$SW IBSIM_SOCKNAME=$SOCK exec "$BIN/portzerod" \
    -o board=sim -o "ip_address=$SWADDR/24" -o "ctl_socket=$WORK/agent/ctl" \
    -o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf" \
    > "$WORK/agent/out" 2> "$WORK/agent/err" < /dev/null) &
AGENT=$!
wait_file "$WORK/agent/out" 20 '^ready$' "$AGENT" || { echo "bench_snmp: portzerod not ready"; exit 0; }
fl_start_opensm host-1-1 -s 1 # sweeps every second while we measure
fl_wait_up 60 || { echo "bench_snmp: no SUBNET UP"; exit 0; }
"$BIN/pz-iphost" --sockname "$SOCK" --ca host-2-1 --address "$HOSTADDR/24" --netns "$NS" \
    > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
HOST_PID=$!
wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID" || { echo "bench_snmp: pz-iphost not ready"; exit 0; }
wait_until 30 ip netns exec "$NS" ping -c 1 -W 1 "$SWADDR" || { echo "bench_snmp: $SWADDR unreachable"; exit 0; }

have_snmpd=0
if start_snmpd; then
    have_snmpd=1
else
    echo "Debian snmpd not installed or not answering (package snmpd): no reference, ratios skipped"
fi
: > "$WORK/pz.us"
: > "$WORK/d.us"
PERF_PID=''
if [ -n "${PERF_WALK_OUT:-}" ]; then
    perf record -q -g -o "$PERF_WALK_OUT" -p "$AGENT" 2> /dev/null &
    PERF_PID=$!
fi
STRACE_PIDS=()
if [ -n "${STRACE_WALK_DIR:-}" ]; then
    mkdir -p "$STRACE_WALK_DIR"
    for p in "portzerod:$AGENT" "pzfabric:$FABRIC_PID" "pz-iphost:$HOST_PID"; do
        strace ${STRACE_OPTS:--c} -f -o "$STRACE_WALK_DIR/${p%%:*}" -p "${p#*:}" 2> /dev/null &
        STRACE_PIDS+=($!)
    done
    sleep 1
fi
wc0=$(cpu_ticks "$AGENT")
fc0=$(cpu_ticks "$FABRIC_PID")
hc0=$(cpu_ticks "$HOST_PID")
dc0=0
[ $have_snmpd = 1 ] && dc0=$(cpu_ticks "$SNMPD_PID")
for ((i = 0; i < RUNS; i++)); do
    walk_us "$NS" "$SWADDR" "$WORK/pz.walk" >> "$WORK/pz.us"
    [ $have_snmpd = 1 ] && walk_us "$NSD" 127.0.0.1 "$WORK/d.walk" >> "$WORK/d.us"
done
wc1=$(cpu_ticks "$AGENT")
fc1=$(cpu_ticks "$FABRIC_PID")
hc1=$(cpu_ticks "$HOST_PID")
dc1=0
[ $have_snmpd = 1 ] && dc1=$(cpu_ticks "$SNMPD_PID")
if [ -n "$PERF_PID" ]; then
    kill -INT "$PERF_PID"
    wait "$PERF_PID"
fi
for p in "${STRACE_PIDS[@]}"; do
    kill -INT "$p"
    wait "$p"
done
# per_walk_ms TICKS: CPU ticks over RUNS walks as ms per walk.
per_walk_ms() { awk -v c="$1" -v hz="$(getconf CLK_TCK)" -v n="$RUNS" 'BEGIN { printf "%.1f", 1000 * c / hz / n }'; }
pz_walk=$(median_ms "$WORK/pz.us")
pz_rows=$(rows "$WORK/pz.walk")
walk_cpu=$(awk -v c=$((wc1 - wc0)) -v hz="$(getconf CLK_TCK)" -v n="$RUNS" \
    'BEGIN { printf "%.1f", 1000 * c / hz / n }')
PERF_PID=''
if [ -n "${PERF_OUT:-}" ]; then
    perf record -q -g -o "$PERF_OUT" -p "$AGENT" 2> /dev/null &
    PERF_PID=$!
fi
c0=$(cpu_ticks "$AGENT")
t0=$(date +%s.%N)
pz_gets=$(ip netns exec "$NS" python3 "$SPI" poll "$SWADDR" 161 pzpublic "$SECS" "$POLLERS")
t1=$(date +%s.%N)
c1=$(cpu_ticks "$AGENT")
if [ -n "$PERF_PID" ]; then
    kill -INT "$PERF_PID"
    wait "$PERF_PID"
fi
pr=$(sed 's/.* rate \([0-9]*\).*/\1/' <<< "$pz_gets")
cpu=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%.0f", 100 * c / hz / (b - a) }')
per_get=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v a="$t0" -v b="$t1" -v r="$pr" \
    'BEGIN { if (r > 0) printf "%.1f", 1e6 * c / hz / (r * (b - a)); else print "-" }')
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$AGENT/status")
echo "portzerod (IPoIB, across pzfabric):"
echo "  snmpbulkwalk ifXTable v3 authPriv: $pz_walk ms (median of $RUNS, $pz_rows rows), portzerod CPU $walk_cpu ms per walk"
echo "  CPU per walk by hop: portzerod $walk_cpu ms, pzfabric $(per_walk_ms $((fc1 - fc0))) ms, pz-iphost $(per_walk_ms $((hc1 - hc0))) ms"
echo "  $POLLERS pollers: $pz_gets; portzerod CPU ${cpu}% of a core (${per_get} us per GET), RSS ${rss} kB (OpenSM -s 1)"
[ $have_snmpd = 1 ] || exit 0
d_walk=$(median_ms "$WORK/d.us")
d_rows=$(rows "$WORK/d.walk")
d_gets=$(ip netns exec "$NSD" python3 "$SPI" poll 127.0.0.1 161 pzpublic "$SECS" "$POLLERS")
echo "Debian snmpd (loopback, lo + 36 more interfaces; walks alternating with portzerod's):"
echo "  snmpbulkwalk ifXTable v3 authPriv: $d_walk ms (median of $RUNS, $d_rows rows), snmpd CPU $(per_walk_ms $((dc1 - dc0))) ms per walk"
echo "  $POLLERS pollers: $d_gets"
awk -v a="$pz_walk" -v b="$d_walk" 'BEGIN { printf "ratio walk portzerod/snmpd: %.2fx (goal <= 1.0x)\n", a / b }'
dr=$(sed 's/.* rate \([0-9]*\).*/\1/' <<< "$d_gets")
awk -v a="$pr" -v b="$dr" 'BEGIN { if (b > 0) printf "ratio GETs/s portzerod/snmpd: %.2fx\n", a / b }'
exit 0
