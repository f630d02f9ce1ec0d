#!/bin/bash
# test_portzerod.sh - portzerod's life cycle against a real ibsim through
# umad2sim: it attaches to a switch's management port, says "ready", serves
# until SIGTERM and exits 0; bad configuration and a missing fabric give a
# clear message and a non-zero exit.  Every process started is stopped by PID.
set -euo pipefail

PORTZEROD=${1:?usage: test_portzerod.sh PORTZEROD}
source "$(dirname "$0")/agent_lib.sh"
NET=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca

cd "$WORK"
export IBSIM_SOCKNAME="pztest$$"

# config_rc FILE: the exit status of --check-config on FILE (stdout out.txt, stderr err.txt).
config_rc() {
    local rc=0
    "$PORTZEROD" -c "$1" --check-config > out.txt 2> err.txt || rc=$?
    echo "$rc"
}

# 1. Configuration errors: exit 2 with the offending line named.
printf 'num_ports = 8\nnum_ports = 999\n' > bad.conf
check "bad config exits 2" test "$(config_rc bad.conf)" -eq 2
check "bad config names line 2" grep -q "line 2: bad value '999' for 'num_ports'" err.txt
"$PORTZEROD" -o node_desc="spine 1" -o num_ports=18 --check-config > out.txt
check "check-config echoes overrides" grep -qx "node_desc = spine 1" out.txt
check "check-config num_ports" grep -qx "num_ports = 18" out.txt
D64=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
"$PORTZEROD" -o node_desc="$D64" --check-config > out.txt
check "check-config: a 64-byte node_desc is accepted whole" grep -qx "node_desc = $D64" out.txt
printf 'num_ports = 8\nnode_desc = a\nnum_ports = 8\n' > dup.conf
check "duplicate key exits 2" test "$(config_rc dup.conf)" -eq 2
check "duplicate key names both lines" \
    grep -q "line 3: duplicate key 'num_ports' (line 1 sets it too)" err.txt
"$PORTZEROD" -o dgram_qkey=0x1234 --check-config > out.txt
check "check-config: dgram auto by default" grep -qx "dgram = auto" out.txt
check "check-config: dgram_qkey" grep -qx "dgram_qkey = 0x00001234" out.txt
# --help's key list and --check-config's printout come from one table: the
# same keys, in the same order; the printout is a configuration file that
# parses back to itself.
"$PORTZEROD" --help > help.txt
sed -n 's/^  \([a-z0-9_]*\) = .*/\1/p' help.txt > help_keys.txt
sed -n 's/^\([a-z0-9_]*\) = .*/\1/p' out.txt > check_keys.txt
check "--help lists 21 or more keys" test "$(wc -l < help_keys.txt)" -ge 21
check "--help's keys are --check-config's" cmp help_keys.txt check_keys.txt
check "--help gives num_ports' range and default" grep -qx "  num_ports = 1..254 (default: 36)" help.txt
"$PORTZEROD" -c out.txt --check-config > out2.txt
check "--check-config's printout parses back to itself" cmp out.txt out2.txt

# 2. No fabric yet: umad2sim waits for its simulator; the daemon must not
#    claim to be ready, and must still stop promptly on SIGTERM (exit 1).
SIM_HOST=Switch1 LD_PRELOAD=$UMAD2SIM "$PORTZEROD" > nofab.out 2> nofab.err &
pz=$!
PIDS+=("$pz")
sleep 1
check "not ready without a fabric" test ! -s nofab.out
PZT_GRACE=5 stop_pid "$pz"
rc=$STOP_RC
check "SIGTERM while starting exits 1" test "$rc" -eq 1
check "start-up termination logged" grep -q "terminated by signal 15 while starting" nofab.err

# 3. Against ibsim: attach, ready, SIGTERM, exit 0.
ibsim -s -n "$NET" > ibsim.log 2>&1 < /dev/null &
PIDS+=($!)
sleep 0.5
SIM_HOST=Switch2 LD_PRELOAD=$UMAD2SIM "$PORTZEROD" -o num_ports=8 -o node_desc=pztest \
    > pz.out 2> pz.err &
pz=$!
PIDS+=("$pz")
check "ready within 10 s" wait_file pz.out 10 '^ready$'
check "startup logged" grep -q 'serving SMPs as "pztest" (8 ports' pz.err
PZT_GRACE=5 stop_pid "$pz"
rc=$STOP_RC
check "SIGTERM exits 0" test "$rc" -eq 0
check "termination logged" grep -q "terminating on signal" pz.err

agent_finish
