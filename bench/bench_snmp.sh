#!/bin/bash
# bench_snmp.sh BINDIR [NETFILE] - portzerod's SNMP agent over IPoIB against
# Debian's snmpd on loopback, measured in the same run.
#
#   walk:  snmpbulkwalk -v3 authPriv (SHA-256/AES) of ifXTable on a 36-port
#          switch (tests/integration/ft-36port.net, leaf-2: 37 rows) from
#          pz-iphost's namespace across pzfabric, versus snmpd walking its
#          own ifXTable for 37 interfaces (lo + 36 dummies or veths in a namespace)
#          on loopback, same user and tool; median of RUNS (default 9)
#          wall times, one snmpbulkwalk process each (includes its start).
#   gets:  GETs/s of sysUpTime.0 from 4 parallel pollers (v2c, one request
#          outstanding per poller: tests/agent/snmp_raw.py poll), SECS
#          (default 5) seconds, against both; portzerod's CPU (% of one
#          core over the interval, OpenSM sweeping) and RSS.
# NETFILE is ignored (the 36-port file is this bench's). Prints ratios;
# exit 0 whatever the figures.  Without snmpd: says so, skips the ratios.
set -uo pipefail

BIN=$(cd "${1:?usage: bench_snmp.sh BINDIR [NETFILE]}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-9}
SECS=${SECS:-5}
# shellcheck source=lib.sh
source "$ROOT/bench/lib.sh"
bench_need bench_snmp opensm ip snmpbulkwalk python3 || exit 0

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
trap 'rc=$?; ip netns delete "$NSD" 2> /dev/null; fl_cleanup_ns $rc "$NS" "$SNMPD_PID" "$HOST_PID" "$AGENT"' EXIT

{ bench_snmp_user; echo "rocommunity pzpublic 10.81.0.0/24"; } > "$WORK/snmp.conf"

# walk NS ADDR: one bulkwalk of ifXTable into walk.out.
walk() { ip netns exec "$1" snmpbulkwalk "${V3[@]}" -On "$2" "$IFX" > "$WORK/walk.out" 2>&1; }

rows() { grep -c "^$IFX\.1\." "$WORK/walk.out"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

fl_start_fabric --agent "$SW" "$NET" || exit 0
# OpenSM sweeps every second while we measure.
bench_start_ip_switch bench_snmp host-1-1 -s 1 -- -o "snmp_config=$WORK/snmp.conf" || exit 0
bench_start_iphost bench_snmp host-2-1 || exit 0

pz_walk=$(median_ms walk "$NS" "$SWADDR")
pz_rows=$(rows)
c0=$(cpu_ticks "$AGENT")
t0=$(date +%s.%N)
pz_gets=$(ip netns exec "$NS" python3 "$SPI" poll "$SWADDR" 161 pzpublic "$SECS" 4)
t1=$(date +%s.%N)
c1=$(cpu_ticks "$AGENT")
cpu=$(awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%.0f", 100 * c / hz / (b - a) }')
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$AGENT/status")
echo "portzerod (IPoIB, across pzfabric):"
echo "  snmpbulkwalk ifXTable v3 authPriv: $pz_walk ms (median of $RUNS, $pz_rows rows)"
echo "  4 pollers: $pz_gets; portzerod CPU ${cpu}% of a core, RSS ${rss} kB (OpenSM -s 1)"

if ! command -v snmpd > /dev/null && [ ! -x /usr/sbin/snmpd ]; then
    echo "Debian snmpd not installed (package snmpd): no reference, ratios skipped"
    exit 0
fi
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)
ip netns add "$NSD" && ip -n "$NSD" link set lo up
# 36 interfaces besides lo: dummies, or 18 veth pairs where there is no dummy module.
for i in $(seq 36); do ip -n "$NSD" link add "pzd$i" type dummy 2> /dev/null || break; done
if [ "$(ip -n "$NSD" -o link | wc -l)" -lt 37 ]; then
    for i in $(seq 36); do ip -n "$NSD" link delete "pzd$i" 2> /dev/null; done
    for i in $(seq 18); do ip -n "$NSD" link add "pzv${i}a" type veth peer name "pzv${i}b"; done
fi
for l in $(ip -n "$NSD" -o link | awk -F': ' '{ print $2 }' | cut -d@ -f1); do ip -n "$NSD" link set "$l" up; done
mkdir -p "$WORK/snmpd"
{ bench_snmp_user; echo "rocommunity pzpublic 127.0.0.1"; } > "$WORK/snmpd/snmpd.conf"
ip netns exec "$NSD" env SNMP_PERSISTENT_DIR="$WORK/snmpd" MIBS= "$SNMPD" -f -Lf "$WORK/snmpd/log" -C \
    -c "$WORK/snmpd/snmpd.conf" udp:127.0.0.1:161 < /dev/null > /dev/null 2>&1 &
SNMPD_PID=$!
wait_until 10 ip netns exec "$NSD" snmpget "${V3[@]}" 127.0.0.1 .1.3.6.1.2.1.1.3.0 ||
    { echo "snmpd did not answer: ratios skipped"; exit 0; }
d_walk=$(median_ms walk "$NSD" 127.0.0.1)
d_rows=$(rows)
d_gets=$(ip netns exec "$NSD" python3 "$SPI" poll 127.0.0.1 161 pzpublic "$SECS" 4)
echo "Debian snmpd (loopback, lo + 36 more interfaces):"
echo "  snmpbulkwalk ifXTable v3 authPriv: $d_walk ms (median of $RUNS, $d_rows rows; goal: 17.5 ms)"
echo "  4 pollers: $d_gets"
awk -v a="$pz_walk" -v b="$d_walk" 'BEGIN { printf "ratio walk portzerod/snmpd: %.2fx (goal <= 1.0x)\n", a / b }'
pr=$(sed 's/.* rate \([0-9]*\).*/\1/' <<< "$pz_gets")
dr=$(sed 's/.* rate \([0-9]*\).*/\1/' <<< "$d_gets")
awk -v a="$pr" -v b="$dr" 'BEGIN { if (b > 0) printf "ratio GETs/s portzerod/snmpd: %.2fx\n", a / b }'
exit 0
