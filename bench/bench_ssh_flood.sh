#!/bin/bash
# bench_ssh_flood.sh BINDIR [NETFILE] - what an SSH password flood costs the
# rest of portzerod: SMP and control-socket latency idle and while GUESSERS
# (default 16) paramiko clients (tests/ssh/ssh_pwguess.py) guess admin's
# password (a yescrypt hash, Debian mkpasswd's default) from pz-iphost's
# namespace across pzfabric, measured in the same run.
#
#   smpquery: wall time of `smpquery nodeinfo LID` from Hca1 to portzerod
#         on Leaf2 (LID-routed through OpenSM's tables; a process start and
#         umad2sim attach included), median of RUNS (default 15);
#   smp:  one synchronous directed-route NodeInfo Get (pz-smp-client, window
#         1, 0,1,1,2 from Hca1, 2 s): the mean round trip, us;
#   ctl:  one `show ip` on portzerod's control socket (connect, line, output,
#         close) timed inside one python process, 200 of them 10 ms apart:
#         median and 95th percentile, ms (a request that meets a hash on the
#         loop waits for it: the tail shows it, the median hardly);
#   key login: `ssh -i KEY admin@SWITCH show version` from a second host
#         (its own namespace and address), median of 5.
# The guessers run at nice 19: on a switch they are other machines, here they
# share the machine's cores with portzerod, pzfabric and the measuring tools.
# Each round alternates PAIRS (default 3) idle and flood phases and prints the
# medians over them.  Two rounds, portzerod restarted between them: (1) the defaults (one
# verifier thread, back-off after 5 failures, 1 s doubling to 60 s) and
# (2) ssh_backoff_after = 0, so every guess is hashed: the verifier thread
# alone.  A portzerod without those settings (an older build) runs one round
# as it is.  Prints flood/idle ratios (goal: <= 1.5x for smp and ctl) and
# what the guessers got (attempts, refusals; verdicts and the back-off from
# portzerod's log).  Exit 0 whatever the figures.
set -uo pipefail

BIN=$(cd "${1:?usage: bench_ssh_flood.sh BINDIR [NETFILE]}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-15}
PAIRS=${PAIRS:-3}
GUESSERS=${GUESSERS:-16}
# shellcheck source=lib.sh
source "$ROOT/bench/lib.sh"
bench_need bench_ssh_flood opensm ip ssh ssh-keygen smpquery mkpasswd || exit 0
/usr/bin/python3 -c 'import paramiko' 2> /dev/null ||
    { echo "bench_ssh_flood: python3-paramiko missing, skipped"; exit 0; }

# shellcheck source=../tests/fabric/fabric_lib.sh
source "$ROOT/tests/fabric/fabric_lib.sh"
fl_init bench-sshflood "$BIN/pzfabric" "$BIN/pzfabric-ctl"
NET=$ROOT/tests/integration/ft-2s4l.net
GUESS=$ROOT/tests/ssh/ssh_pwguess.py
NS="pzb-$$-sshf"
NS2="pzb-$$-sshf2"
SW=Leaf2
SWADDR=10.85.0.4
HOSTADDR=10.85.0.100
OPADDR=10.85.0.101
AGENT=''
HOST_PID=''
OP_PID=''
FLOOD=''
trap 'fl_cleanup_ns $? "$NS $NS2" "$FLOOD" "$OP_PID" "$HOST_PID" "$AGENT"' EXIT

ssh-keygen -q -t ed25519 -N '' -f "$WORK/key"
cp "$WORK/key.pub" "$WORK/authorized_keys"
HASH=$(mkpasswd -m yescrypt 'not-guessed-by-anyone')
SSHOPT=(-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
    -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=30 -i "$WORK/key")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
NEW=0
"$BIN/portzerod" --help 2>&1 | grep -q ssh_backoff_after && NEW=1

# start_agent OPTION...: portzerod on $SW with the admin key and hash (AGENT).
start_agent() {
    mkdir -p "$WORK/agent"
    (cd "$WORK/agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$SW IBSIM_SOCKNAME=$SOCK exec "$BIN/portzerod" \
        -o board=sim -o "ip_address=$SWADDR/24" -o "ctl_socket=$WORK/agent/ctl" \
        -o "state_dir=$WORK/state" -o "ssh_authorized_keys=$WORK/authorized_keys" \
        -o "ssh_password_hash=$HASH" "$@" > "$WORK/agent/out" 2> "$WORK/agent/err" < /dev/null) &
    AGENT=$!
    wait_file "$WORK/agent/out" 20 '^ready$' "$AGENT"
}
ip_up() { "$BIN/pz-cli" -s "$WORK/agent/ctl" show ip 2> /dev/null | grep -q '^IPoIB state *up'; }
smp() { pzt_diag "$SOCK" Hca1 3000 30 smpquery nodeinfo "$LID" | grep -q '^Guid:'; }
# smp_us: the mean round trip (us) of synchronous DR NodeInfo Gets for 2 s.
smp_us() {
    pzt_diag "$SOCK" Hca1 3000 30 "$BIN/pz-smp-client" nodeinfo 0,1,1,2 2 1 |
        awk '$3 > 0 { printf "%.0f\n", 1e6 / $3 }'
}
# ctl_ms: the median and 95th percentile (ms) of 200 `show ip` round trips on the
# control socket.
ctl_ms() {
    /usr/bin/python3 - "$WORK/agent/ctl" << 'EOF'
import socket, sys, time
t = []
for _ in range(200):
    t0 = time.monotonic()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.sendall(b"show ip\n")
    while s.recv(65536):
        pass
    s.close()
    t.append(time.monotonic() - t0)
    time.sleep(0.01)
t.sort()
print("%.2f %.2f" % (t[len(t) // 2] * 1000, t[len(t) * 95 // 100] * 1000))
EOF
}
key_login() { ip netns exec "$NS2" ssh "${SSHOPT[@]}" "admin@$SWADDR" show version | grep -q '^portzero '; }

# measure LABEL: one phase's figures into Q, SMP, CTL, CTL95, KEY, and one line.
measure() {
    Q=$(median_ms smp)
    SMP=$(smp_us)
    read -r CTL CTL95 < <(ctl_ms)
    KEY=$(RUNS=5 median_ms key_login)
    echo "    $1: smpquery $Q ms, SMP round trip $SMP us, ctl show ip $CTL ms (p95 $CTL95 ms)," \
        "key login $KEY ms"
}

# round NAME [OPTION...]: with options, restart portzerod with them; PAIRS times an idle
# phase then a flood phase (alternating, so the machine's other load hits both); print
# the medians over the phases, their ratios and what the guessers got.
round() {
    local name=$1 seconds k
    local iq=() ismp=() ictl=() ictl95=() ikey=() fq=() fsmp=() fctl=() fctl95=() fkey=()
    shift
    if [ $# -gt 0 ]; then
        stop_pid "$AGENT"
        start_agent -v "$@" || { echo "bench_ssh_flood: portzerod not ready"; return 1; }
    fi
    wait_until 90 ip_up || { echo "bench_ssh_flood: $SW did not join"; return 1; }
    wait_until 30 key_login || { echo "bench_ssh_flood: no key login"; return 1; }
    echo "round $name"
    : > "$WORK/flood.all"
    # Long enough for the measurements under the flood (about 8 s after a 3 s ramp-up).
    seconds=13
    for ((k = 1; k <= PAIRS; k++)); do
        measure idle
        iq+=("$Q") ismp+=("$SMP") ictl+=("$CTL") ictl95+=("$CTL95") ikey+=("$KEY")
        ip netns exec "$NS" nice -n 19 /usr/bin/python3 "$GUESS" flood - "$SWADDR" 22 admin \
            "$seconds" "$GUESSERS" > "$WORK/flood.out" 2> "$WORK/flood.err" &
        FLOOD=$!
        sleep 3
        measure flood
        fq+=("$Q") fsmp+=("$SMP") fctl+=("$CTL") fctl95+=("$CTL95") fkey+=("$KEY")
        wait "$FLOOD"
        FLOOD=''
        cat "$WORK/flood.out" >> "$WORK/flood.all"
    done
    local M_idle_q M_idle_smp M_idle_ctl M_idle_ctl95 M_idle_key
    local M_flood_q M_flood_smp M_flood_ctl M_flood_ctl95 M_flood_key
    M_idle_q=$(median "${iq[@]}") M_idle_smp=$(median "${ismp[@]}")
    M_idle_ctl=$(median "${ictl[@]}") M_idle_ctl95=$(median "${ictl95[@]}")
    M_idle_key=$(median "${ikey[@]}")
    M_flood_q=$(median "${fq[@]}") M_flood_smp=$(median "${fsmp[@]}")
    M_flood_ctl=$(median "${fctl[@]}") M_flood_ctl95=$(median "${fctl95[@]}")
    M_flood_key=$(median "${fkey[@]}")
    echo "  medians of $PAIRS: idle smpquery $M_idle_q ms, SMP $M_idle_smp us, ctl $M_idle_ctl ms" \
        "(p95 $M_idle_ctl95), key login $M_idle_key ms"
    echo "              flood smpquery $M_flood_q ms, SMP $M_flood_smp us, ctl $M_flood_ctl ms" \
        "(p95 $M_flood_ctl95), key login $M_flood_key ms"
    echo "  ratio flood/idle: smpquery $(ratio "$M_flood_q" "$M_idle_q")x," \
        "SMP $(ratio "$M_flood_smp" "$M_idle_smp")x, ctl $(ratio "$M_flood_ctl" "$M_idle_ctl")x," \
        "ctl p95 $(ratio "$M_flood_ctl95" "$M_idle_ctl95")x (goal <= 1.5x)," \
        "key login $(ratio "$M_flood_key" "$M_idle_key")x"
    echo "  guessers, $PAIRS x $seconds s:" \
        "$(awk '{ for (i = 1; i < NF; i += 2) n[$i] += $(i + 1) }
                END { printf "attempts %d refused %d ok %d errors %d", n["attempts"], n["refused"], n["ok"], n["errors"] }' "$WORK/flood.all");" \
        "portzerod: verdicts $(grep -c 'password for admin from' "$WORK/agent/err")," \
        "held for back-off $(grep -c 'waits [0-9]* ms (back-off' "$WORK/agent/err")," \
        "refused busy $(grep -c 'password verifier busy' "$WORK/agent/err")," \
        "back-off started $(grep -c 'back-off for' "$WORK/agent/err")x"
}

fl_start_fabric --agent "$SW" "$NET" || exit 0
start_agent -v || { echo "bench_ssh_flood: portzerod not ready"; exit 0; }
fl_start_opensm Hca1
fl_wait_up 60 || { echo "bench_ssh_flood: no SUBNET UP"; exit 0; }
bench_start_iphost bench_ssh_flood Hca3 || exit 0
"$BIN/pz-iphost" --sockname "$SOCK" --ca Hca5 --address "$OPADDR/24" --netns "$NS2" \
    > "$WORK/op.out" 2> "$WORK/op.err" < /dev/null &
OP_PID=$!
wait_file "$WORK/op.out" 30 '^ready$' "$OP_PID" || { echo "bench_ssh_flood: second pz-iphost not ready"; exit 0; }
LID=$(pzt_diag "$SOCK" Hca1 3000 30 smpquery -D portinfo 0,1,1,2 0 | awk -F. '/^Lid/ { print $NF }')
[ -n "$LID" ] || { echo "bench_ssh_flood: no LID for $SW"; exit 0; }
echo "portzerod on $SW (LID $LID), admin's hash yescrypt, $GUESSERS guessers from $HOSTADDR," \
    "operator at $OPADDR; $PAIRS idle and flood phases alternating"
if [ "$NEW" = 1 ]; then
    round "1: defaults (1 verifier thread, back-off after 5 failures)"
    round "2: ssh_backoff_after = 0 (every guess hashed by the verifier)" -o ssh_backoff_after=0
else
    round "1: this portzerod has no verifier settings (hash on the agent loop)"
fi
