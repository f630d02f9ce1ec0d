#!/bin/bash
# test_prometheus_snmp.sh - the NMS pipeline of snmp/prometheus/ (issue 25):
# Debian's prometheus-snmp-exporter (0.21) with the shipped snmp.yml and
# Debian's prometheus, both in the emulated host's namespace, scraping the
# six portzerod switches of agent_ip_lib.sh (ft-2s4l, every switch with its
# SNMP agent on its IPoIB address) with the scrape configuration of
# snmp/README.md ("Prometheus"):
#   - the shipped snmp.yml is what prometheus-snmp-generator writes from the
#     shipped generator.yml and MIBs (the regenerate command of
#     snmp/prometheus/README.md);
#   - one scrape target per switch in job portzero (module portzero_v3,
#     SNMPv3 authPriv), all up; job portzero_v2c (one switch, v2c) up;
#   - ifHCInOctets of every port of every switch (48), as Prometheus stored
#     it, lies between 4 x PortRcvData of `perfquery -x` read before the
#     scrape and read after it (equal on an idle port), with its ifName label
#     IB1/<port>;
#   - the dFtree scenario (three flows into Hca4, which sinks 25 Gb/s, behind
#     Leaf2 port 4): while Leaf2's monitor has port 4 in hot-spot (its log),
#     the PromQL query `pzCongClass == 1` (job portzero_cong, scraped every
#     second) returns exactly Leaf2 port 4; after the flows stop and the
#     monitor logs the clear, it returns nothing while
#     pzCongClass{Leaf2, port 4} is still scraped (value 0).
# Prometheus and the exporter run in the namespace on 127.0.0.1 and are
# stopped by PID (AI_PIDS); their data lives in the work directory. The full
# module is scraped every 5 s here (snmp/README.md: 30-60 s), so that the
# test is short and a slow agent (ThreadSanitizer, a loaded machine) still
# answers within the scrape.
# Usage: test_prometheus_snmp.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd) # before ai_init changes directory
PROMSRC=$SRC/snmp/prometheus
# shellcheck source=agent_ip_lib.sh
source "$(dirname "$0")/agent_ip_lib.sh"
AI_AGENT_FLAGS="-v"
ai_init prom 10.86.0 "$1" "$2" "$3" "$4" "$5"
pzt_require prometheus prometheus-snmp-exporter prometheus-snmp-generator curl perfquery ibnetdiscover
pzt_require_preload
PY=/usr/bin/python3
HOSTADDR=10.86.0.100
HOT=Hca4
HOTSW=Leaf2
HP=4 # Hca4's port on Leaf2
EXPORTER=127.0.0.1:9116
PROM=127.0.0.1:9090

# The switches' SNMP users: those of the shipped snmp.yml (its placeholders).
{
    echo 'createUser pzmon SHA-256 "CHANGE-ME-auth" AES "CHANGE-ME-priv"'
    echo 'rouser pzmon priv'
    echo "rocommunity CHANGE-ME $HOSTADDR/32"
} > "$WORK/snmp.conf"
for s in "${SWITCHES[@]}"; do
    AI_AGENT_EXTRA[$s]="-o snmp_config=$WORK/snmp.conf -o state_dir=$WORK/$s/state"
done

# 1. The shipped snmp.yml is the generator's output.
mkdir -p "$WORK/gen"
cp "$PROMSRC/generator.yml" "$WORK/gen/"
check "prometheus-snmp-generator generate (the shipped generator.yml and MIBs)" bash -c \
    "cd '$WORK/gen' && MIBDIRS='$PROMSRC/mibs:$SRC/snmp/mibs' prometheus-snmp-generator generate \
     --fail-on-parse-errors -o '$WORK/gen/snmp.yml' > '$WORK/gen/out' 2>&1" || tail -n 5 "$WORK/gen/out"
check "the shipped snmp.yml is what it writes" cmp "$PROMSRC/snmp.yml" "$WORK/gen/snmp.yml"

# 2. The fabric, the switches, the host.
ai_start_all || exit 1
ai_start_host "$HOSTADDR/24" Hca3

# 3. The exporter and Prometheus in the namespace, with snmp/README.md's jobs.
targets=$(for s in "${SWITCHES[@]}"; do printf "'%s', " "${ADDR[$s]}"; done)
relabel="
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: $EXPORTER"
cat > "$WORK/prometheus.yml" << EOF
global:
  scrape_interval: 5s
  evaluation_interval: 1s
scrape_configs:
  - job_name: portzero
    scrape_interval: 5s
    scrape_timeout: 5s
    metrics_path: /snmp
    params:
      module: [portzero_v3]
    static_configs:
      - targets: [${targets%, }]
$relabel
  - job_name: portzero_cong
    scrape_interval: 1s
    scrape_timeout: 1s
    metrics_path: /snmp
    params:
      module: [portzero_cong_v3]
    static_configs:
      - targets: [${targets%, }]
$relabel
  - job_name: portzero_v2c
    scrape_interval: 5s
    metrics_path: /snmp
    params:
      module: [portzero_v2c]
    static_configs:
      - targets: ['${ADDR[Leaf1]}']
$relabel
EOF
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" prometheus-snmp-exporter --config.file="$PROMSRC/snmp.yml" \
    --web.listen-address="$EXPORTER" > "$WORK/exporter.out" 2>&1 < /dev/null &
AI_PIDS+=($!)
ip netns exec "$NS" prometheus --config.file="$WORK/prometheus.yml" \
    --storage.tsdb.path="$WORK/tsdb" --web.listen-address="$PROM" > "$WORK/prometheus.out" 2>&1 < /dev/null &
AI_PIDS+=($!)
# promq QUERY: the query's result, one "label=value,... value" line per series (sorted
# labels, __name__ and job left out), sorted; "error ..." when Prometheus refuses it.
promq() {
    in_ns curl -sS --max-time 10 --get --data-urlencode "query=$1" "http://$PROM/api/v1/query" 2>&1 |
        "$PY" -c '
import json, sys
try:
    r = json.load(sys.stdin)
except ValueError as e:
    print("error", e); sys.exit(0)
if r.get("status") != "success":
    print("error", r.get("error")); sys.exit(0)
for s in sorted(r["data"]["result"], key=lambda s: sorted(s["metric"].items())):
    m = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items()) if kv[0] not in ("__name__", "job"))
    print(m, s["value"][1])'
}
value() { promq "$1" | awk 'NR == 1 { print $NF }'; } # value QUERY: the first series' value
check "prometheus-snmp-exporter answers" wait_until 30 in_ns curl -sf -o /dev/null "http://$EXPORTER/"
check "prometheus is ready" wait_until 60 in_ns curl -sf -o /dev/null "http://$PROM/-/ready"

# 4. One target per switch, all up.
up6() { [ "$(value 'count(up{job="portzero"} == 1)')" = 6 ]; }
check "6 targets of job portzero up" wait_until 60 up6
in_ns curl -sS "http://$PROM/api/v1/targets?state=active" > "$WORK/targets.json"
got=$("$PY" -c '
import json, sys
t = json.load(open(sys.argv[1]))["data"]["activeTargets"]
print(" ".join(sorted("%s:%s" % (x["labels"]["instance"], x["health"]) for x in t if x["labels"]["job"] == "portzero")))' \
    "$WORK/targets.json")
want=$(for s in "${SWITCHES[@]}"; do echo "${ADDR[$s]}:up"; done | sort | tr '\n' ' ')
check_eq "job portzero: one target per switch, each up" "${want% }" "$got"
v2c_up() { [ "$(value "up{job=\"portzero_v2c\",instance=\"${ADDR[Leaf1]}\"}")" = 1 ]; }
check "job portzero_v2c (${ADDR[Leaf1]}, SNMPv2c) up" wait_until 30 v2c_up
check_eq "v2c: ifHCInOctets of Leaf1's 8 ports and the IPoIB row" 9 \
    "$(value "count(ifHCInOctets{job=\"portzero_v2c\"})")"
check_eq "ifName label of Leaf2 port 3" "IB1/3" \
    "$(promq "ifHCInOctets{job=\"portzero\",instance=\"${ADDR[Leaf2]}\",ifIndex=\"3\"}" |
        sed -n 's/.*ifName=\([^, ]*\).*/\1/p')"

# 5. ifHCInOctets against perfquery -x: 4 x PortRcvData read before the scrape
#    (A) <= the stored sample <= 4 x PortRcvData read after it (B). The sample's
#    scrape starts after A + 50 ms (an agent's counter read serves requests for
#    50 ms, snmp/README.md); a newer sample read by the query only moves it closer
#    to B.
rcv() { # rcv LID PORT: 4 x PortRcvData of perfquery -x
    diag Hca1 perfquery -x "$1" "$2" 2> /dev/null | awk -F. '/^PortRcvData/ { print $NF * 4 }'
}
declare -A A B V
for s in "${SWITCHES[@]}"; do
    for p in 1 2 3 4 5 6 7 8; do A[$s.$p]=$(rcv "$(lid_of "$s")" "$p"); done
done
tA=$(date +%s.%N)
newer() { # newer: every switch has an ifHCInOctets sample scraped after tA + 0.05 s
    local n
    n=$(value "count(timestamp(ifHCInOctets{job=\"portzero\",ifIndex=\"1\"}) > $tA + 0.05)")
    [ "$n" = 6 ]
}
check "a scrape of every switch after the perfquery reads" wait_until 60 newer
promq 'ifHCInOctets{job="portzero"}' > "$WORK/ifhcin.txt"
for s in "${SWITCHES[@]}"; do
    for p in 1 2 3 4 5 6 7 8; do B[$s.$p]=$(rcv "$(lid_of "$s")" "$p"); done
done
bad=
exact=0
for s in "${SWITCHES[@]}"; do
    for p in 1 2 3 4 5 6 7 8; do
        v=$(awk -v i="ifIndex=$p," -v a="instance=${ADDR[$s]}," '
            index($1 ",", i) && index($1 ",", a) { printf "%.0f", $2 }' "$WORK/ifhcin.txt")
        V[$s.$p]=$v
        a=${A[$s.$p]:-x} b=${B[$s.$p]:-x}
        if [ -z "$v" ] || [ "$a" = x ] || [ "$b" = x ] || [ "$a" -gt "$v" ] || [ "$v" -gt "$b" ]; then
            bad+="$s/$p: $a <= ${v:-none} <= $b; "
        elif [ "$a" = "$b" ]; then
            exact=$((exact + 1))
        fi
    done
done
check "ifHCInOctets of all 48 ports within perfquery -x's before/after${bad:+: $bad}" test -z "$bad"
note "ifHCInOctets: $exact of 48 ports idle during the check and equal to perfquery -x"
check "Leaf2 port 3 (the host's link) has traffic: ${V[Leaf2.3]:-none} octets" test "${V[Leaf2.3]:-0}" -gt 0

# 6. The hot spot: while the monitor has Leaf2 port 4 in hot-spot, pzCongClass == 1
#    is exactly that port; after the clear, nothing.
HOTQ='pzCongClass{job="portzero_cong"} == 1'
WANT="instance=${ADDR[$HOTSW]},pzCongPortNum=$HP 1"
check_eq "before the flows: no hot spot" "" "$(promq "$HOTQ")"
check "ca-rate $HOT 25" ctl ca-rate "$HOT" 25
FLOWS=()
for src in Hca1 Hca2 Hca3; do
    id=$(ctl flow-add "$src" "$HOT" 40) && FLOWS+=("$id")
done
check_eq "three flows into $HOT" 3 "${#FLOWS[@]}"
check "$HOTSW's monitor: port $HP normal -> hot-spot" \
    wait_lines "$WORK/$HOTSW/err" 30 "monitor: port $HP normal -> hot-spot"
hot() { [ -n "$(promq "$HOTQ")" ]; }
check "PromQL $HOTQ: a result" wait_until 60 hot
# Five queries a second apart: each names exactly that port, or (a scrape that
# timed out on a loaded machine leaves the series stale for that second)
# nothing; at least three name it.
n=0 others=
for i in 1 2 3 4 5; do
    r=$(promq "$HOTQ")
    if [ "$r" = "$WANT" ]; then n=$((n + 1)); elif [ -n "$r" ]; then others+="[$r] "; fi
    sleep 1
done
still_hot=$(grep -c "monitor: port $HP hot-spot -> " "$WORK/$HOTSW/err")
check_eq "the monitor still had port $HP in hot-spot meanwhile" 0 "$still_hot"
check "PromQL $HOTQ: exactly $HOTSW port $HP in 5 queries a second apart ($n)${others:+, other results: $others}" \
    test "$n" -ge 3 -a -z "$others"
for id in "${FLOWS[@]}"; do ctl flow-del "$id" > /dev/null; done
check "$HOTSW's monitor: port $HP hot-spot -> normal" \
    wait_lines "$WORK/$HOTSW/err" 30 "monitor: port $HP hot-spot -> normal"
cleared() { [ -z "$(promq "$HOTQ")" ]; }
check "PromQL $HOTQ: nothing after the clear" wait_until 30 cleared
sleep 3
check_eq "... still nothing 3 s (3 scrapes) later" "" "$(promq "$HOTQ")"
check_eq "pzCongClass of $HOTSW port $HP is still scraped: normal (0)" 0 \
    "$(value "pzCongClass{job=\"portzero_cong\",instance=\"${ADDR[$HOTSW]}\",pzCongPortNum=\"$HP\"}")"

ai_stop_agents
fl_finish
