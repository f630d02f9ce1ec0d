#!/bin/bash
# test_ibqueryerrors.sh - OpenSM's PerfMgr with a
# 1-second sweep collects every switch port's counters from pzfabric's PMAs
# without errors, and both PerfMgr and ibqueryerrors report exactly the
# errors injected with `pzfabric-ctl error-inject`, nothing else.
#
#   test_ibqueryerrors.sh PZFABRIC PZFABRIC-CTL NETFILE
#
# 1. OpenSM (PerfMgr configured but disabled, console on a loopback port)
#    brings the subnet up; ibqueryerrors -k clears the link-training
#    LinkDowned counts; ibqueryerrors then reports nothing.
# 2. `pm enable` on the console: after some sweeps `pm print_counters` has
#    all 48 switch ports (and the 8 CA ports), each updated by the last
#    sweeps, and the log has no PerfMgr ERR line.
# 3. Errors injected on switch and CA ports: PerfMgr logs exactly those
#    (perfmgr_log_errors lines) and its counters hold them; ibqueryerrors
#    (OpenSM stopped) lists exactly those ports, counters and values
#    (switches also "port ALL", the AllPortSelect sum); -k clears.
#
# libpzumad2sim.so (attach/) is preloaded after umad2sim into OpenSM and the
# diags, as in every test: umad2sim alone drops MAD bytes 224-255, so
# ibqueryerrors would report heap garbage as PortCountersExtended
# VL15Dropped/PortXmitWait.
set -uo pipefail

source "$(dirname "$0")/../fabric/fabric_lib.sh"
NET=$(abspath "${3:?usage: test_ibqueryerrors.sh PZFABRIC PZFABRIC-CTL NETFILE}")
fl_init iqerr "$1" "$2"
pzt_require opensm ibqueryerrors
CONSOLE_PORT=$((20000 + $$ % 20000))

# console COMMAND: OpenSM console output of COMMAND (loopback telnet port).
console() {
    local out
    exec 3<> "/dev/tcp/127.0.0.1/$CONSOLE_PORT" || return 1
    sleep 0.3
    printf '%s\n' "$1" >&3
    sleep 1
    printf 'quit\n' >&3
    out=$(timeout 5 cat <&3)
    exec 3<&-
    printf '%s\n' "$out" | sed 's/^OpenSM \$ //'
}

# iqe_norm FILE: ibqueryerrors output as sorted "NODE PORT COUNTER VALUE" lines.
iqe_norm() {
    awk '/^Errors for / { node = $0; sub(/^[^"]*"/, "", node); sub(/".*/, "", node); next }
        /^   GUID / { port = $4; sub(/:$/, "", port); s = $0
            while (match(s, /\[[A-Za-z0-9]+ == [0-9]+/)) {
                f = substr(s, RSTART + 1, RLENGTH - 1); split(f, a, " == ")
                print node, port, a[1], a[2]; s = substr(s, RSTART + RLENGTH) } }' "$1" | sort
}

# pm_norm: PerfMgr's error reports in the log as sorted "NODE PORT COUNTER VALUE".
pm_norm() {
    sed -n 's/.*perfmgr_log_errors: ERR [0-9A-F]*: \([A-Za-z0-9]*\) : \([0-9]*\) : node "\([^"]*\)" ([^)]*) : port \([0-9]*\).*/\3 \4 \1 \2/p' \
        sm/osm.log | sort
}

# pm_value DUMP NODE PORT FIELD: FIELD of NODE's PORT in `pm print_counters`.
pm_value() {
    awk -v n="\"$2\"" -v p="$3" -v f="$4" '$1 == n && $NF == p { cur = 1; next }
        /^"/ { cur = 0 } cur && $1 == f { print $3; exit }' "$1"
}

opensm -c "$WORK/defaults.conf" > /dev/null 2>&1
sed -e 's/^perfmgr .*/perfmgr FALSE/' -e 's/^perfmgr_sweep_time_s .*/perfmgr_sweep_time_s 1/' \
    -e 's/^console .*/console loopback/' -e "s/^console_port .*/console_port $CONSOLE_PORT/" \
    "$WORK/defaults.conf" > "$WORK/pm.conf"

fl_start_fabric "$NET" || exit 1
fl_start_opensm Hca1 -F "$WORK/pm.conf"
check "OpenSM: SUBNET UP" fl_wait_up 60
check "OpenSM console answers" wait_until 10 console 'pm'

# --- 1. A clean start.
diag Hca2 ibqueryerrors --skip-sl -k > k.txt 2>&1
diag Hca2 ibqueryerrors --skip-sl > q0.txt 2>&1
check "ibqueryerrors: 14 nodes checked, 0 bad" grep -q '14 nodes checked, 0 bad nodes found' q0.txt
check "ibqueryerrors: 56 ports checked, 0 with errors" \
    grep -q '56 ports checked, 0 ports have errors beyond threshold' q0.txt
check "ibqueryerrors: no PMA query failures" fails grep -q 'PMA query failures' q0.txt

# --- 2. PerfMgr sweeps every switch port.
console 'pm enable' > /dev/null
pm_enabled() { console pm | grep -q 'state *: Enabled'; }
check "PerfMgr enabled" wait_until 10 pm_enabled
sleep 4 # a few 1-second sweeps
console 'pm print_counters' > pc1.txt
start=$(date +%s)
ports=0
fresh=0
for sw in Spine1 Spine2 Leaf1 Leaf2 Leaf3 Leaf4; do
    for p in 1 2 3 4 5 6 7 8; do
        grep -q "^\"$sw\" 0x[0-9a-f]* active TRUE port $p\$" pc1.txt && ports=$((ports + 1))
        upd=$(awk -v n="\"$sw\"" -v p="$p" '$1 == n && $NF == p { cur = 1; next }
            /^"/ { cur = 0 } cur && /Last Data Update/ { sub(/.*: /, ""); print; exit }' pc1.txt)
        t=$(date -d "$upd" +%s 2> /dev/null || echo 0)
        ((start - t <= 5)) && fresh=$((fresh + 1))
    done
done
check_eq "PerfMgr: all 48 switch ports in its counters" 48 "$ports"
check_eq "PerfMgr: all 48 updated by the last sweeps (<= 5 s old)" 48 "$fresh"
check_eq "PerfMgr: the 8 CA ports too" 8 "$(grep -c '^"Hca[1-8]" 0x[0-9a-f]* active TRUE port 1$' pc1.txt)"
check_eq "PerfMgr: no ERR line in OpenSM's log" 0 "$(grep -c 'ERR 54' sm/osm.log)"

# --- 3. Injected errors.
if ! ctl help 2> /dev/null | grep -q error-inject; then
    echo "skip error-inject checks: pzfabric-ctl has no error-inject"
    fl_stop_opensm
    fl_stop_fabric
    fl_finish || exit 1
    exit 77
fi
cat > injected.txt << 'EOF'
Leaf1 1 symbol 5 SymbolErrorCounter
Leaf3 3 rcv-errors 7 PortRcvErrors
Spine2 4 xmit-discards 3 PortXmitDiscards
Leaf4 2 link-recovery 2 LinkErrorRecoveryCounter
Spine1 2 rcv-constraint 9 PortRcvConstraintErrors
Hca6 1 excessive-buffer-overrun 4 ExcessiveBufferOverrunErrors
EOF
while read -r node port kind count _; do
    ctl error-inject "$node" "$port" "$kind" "$count" > /dev/null
done < injected.txt
awk '{ print $1, $2, $5, $4 }' injected.txt | sort > want.txt
check "PerfMgr logs the 6 injected errors" fl_wait_log 20 'perfmgr_log_errors' 6
sleep 3 # more sweeps: nothing else may appear
pm_norm > pm.txt
check_eq "PerfMgr reports exactly the injected errors" "$(cat want.txt)" "$(cat pm.txt)"
check_eq "PerfMgr: no other ERR line" 6 "$(grep -c 'ERR 54' sm/osm.log)"
console 'pm print_counters' > pc2.txt
check_eq "PerfMgr counters: Leaf1 port 1 symbol_err_cnt 5" 5 "$(pm_value pc2.txt Leaf1 1 symbol_err_cnt)"
check_eq "PerfMgr counters: Spine1 port 2 rcv_constraint_err 9" 9 "$(pm_value pc2.txt Spine1 2 rcv_constraint_err)"
check_eq "PerfMgr counters: Hca6 port 1 buf_overrun_err 4" 4 "$(pm_value pc2.txt Hca6 1 buf_overrun_err)"
fl_stop_opensm # ibqueryerrors alone on the quiet fabric

diag Hca2 ibqueryerrors --skip-sl > q1.txt 2>&1
iqe_norm q1.txt > iqe.txt
# Switches: the AllPortSelect line ("port ALL") and the port; CAs: the port.
awk '{ print; if ($1 !~ /^Hca/) print $1, "ALL", $3, $4 }' want.txt | sort > want_iqe.txt
check_eq "ibqueryerrors reports exactly the injected errors" "$(cat want_iqe.txt)" "$(cat iqe.txt)"
check "ibqueryerrors: 6 ports with errors" grep -q '56 ports checked, 6 ports have errors beyond threshold' q1.txt
check "ibqueryerrors: 6 bad nodes" grep -q '14 nodes checked, 6 bad nodes found' q1.txt
# Two errors on one switch: the port ALL line sums them.
ctl error-inject Leaf1 4 symbol 6 > /dev/null
diag Hca2 ibqueryerrors --skip-sl > q2.txt 2>&1
check_eq "ibqueryerrors: Leaf1 port ALL sums ports 1 and 4 (5 + 6)" "Leaf1 ALL SymbolErrorCounter 11" \
    "$(iqe_norm q2.txt | grep '^Leaf1 ALL')"
diag Hca2 ibqueryerrors --skip-sl -k > /dev/null 2>&1
diag Hca2 ibqueryerrors --skip-sl > q3.txt 2>&1
check "ibqueryerrors -k cleared them" grep -q '56 ports checked, 0 ports have errors beyond threshold' q3.txt

check "pzfabric still running" kill -0 "$FABRIC_PID"
fl_stop_fabric
check_eq "pzfabric exits 0 on SIGTERM" 0 "$FABRIC_RC"
fl_finish
