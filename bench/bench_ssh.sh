#!/bin/bash
# bench_ssh.sh BINDIR [NETFILE] - portzerod's SSH CLI over IPoIB against
# Debian's OpenSSH sshd on loopback, measured in the same run.
#
#   login: wall time of `ssh -i KEY admin@SWITCH show version` (connect, key
#          exchange, publickey login, exec, exit) from pz-iphost's namespace
#          across pzfabric to portzerod on leaf-1 (tests/integration/ft-2s4l.net
#          Leaf2), versus `ssh -i KEY -p PORT root@127.0.0.1 true` against a
#          private sshd (its own host key, config and port, no PAM) on the
#          host's loopback; same client, same ed25519 key, default algorithms
#          (curve25519-sha256, ssh-ed25519, chacha20-poly1305 both); median
#          and longest of RUNS (default 15).  Goal: median <= 1.2x sshd.
#   bulk:  CLI output through the channel: one shell session fed LINES
#          (default 20000) `show interfaces ib json` lines (about 19 MB out),
#          MB/s, versus sshd streaming a file of the same size (`cat`) on
#          loopback; both from the first output byte to the last (login
#          and key exchange excluded: bench_stream.py).  (A `show lft` of a 49152-entry table would need
#          LinearFDBTop raised past the LIDs OpenSM assigns; OpenSM owns it.)
# Prints ratios; exit 0 whatever the figures.  Without sshd: says so, skips
# the reference.
set -uo pipefail

BIN=$(cd "${1:?usage: bench_ssh.sh BINDIR [NETFILE]}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-15}
LINES=${LINES:-20000}
# shellcheck source=lib.sh
source "$ROOT/bench/lib.sh"
bench_need bench_ssh opensm ip ssh ssh-keygen python3 || exit 0

# shellcheck source=../tests/fabric/fabric_lib.sh
source "$ROOT/tests/fabric/fabric_lib.sh"
fl_init bench-ssh "$BIN/pzfabric" "$BIN/pzfabric-ctl"
NET=$ROOT/tests/integration/ft-2s4l.net
NS="pzb-$$-ssh"
SW=Leaf2
SWADDR=10.84.0.4
HOSTADDR=10.84.0.100
AGENT=''
HOST_PID=''
SSHD_PID=''
trap 'fl_cleanup_ns $? "$NS" "$SSHD_PID" "$HOST_PID" "$AGENT"' EXIT

ssh-keygen -q -t ed25519 -N '' -f "$WORK/key"
cp "$WORK/key.pub" "$WORK/authorized_keys"
SSHOPT=(-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
    -o BatchMode=yes -o IdentitiesOnly=yes -i "$WORK/key")

STREAM=$ROOT/bench/bench_stream.py
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

fl_start_fabric --agent "$SW" "$NET" || exit 0
bench_start_ip_switch bench_ssh Hca1 -- -o "ssh_authorized_keys=$WORK/authorized_keys" || exit 0
bench_start_iphost bench_ssh Hca3 || exit 0

pz_login() { ip netns exec "$NS" ssh "${SSHOPT[@]}" "admin@$SWADDR" show version; }
pz_login > "$WORK/version.txt" 2>&1
grep -q '^portzero ' "$WORK/version.txt" || { echo "bench_ssh: login failed: $(cat "$WORK/version.txt")"; exit 0; }
read -r pz_ms pz_max < <(median_max_ms pz_login)

yes 'show interfaces ib json' | head -n "$LINES" > "$WORK/many.in"
read -r pz_bytes pz_secs pz_mbps < <(python3 "$STREAM" "$WORK/many.in" "$WORK/many.out" \
    ip netns exec "$NS" ssh "${SSHOPT[@]}" "admin@$SWADDR")
echo "portzerod (IPoIB, across pzfabric):"
echo "  login + show version + exit: $pz_ms ms (median of $RUNS), longest $pz_max ms"
echo "  CLI output, $LINES x show interfaces ib json in one shell: $pz_bytes bytes in $pz_secs s = $pz_mbps MB/s"

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$SSHD" ]; then
    echo "Debian sshd not installed (package openssh-server): no reference, ratios skipped"
    exit 0
fi
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$WORK/sshd_host_key"
mkdir -p /run/sshd
cat > "$WORK/sshd_config" << EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $WORK/sshd_host_key
PidFile $WORK/sshd.pid
AuthorizedKeysFile $WORK/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
# Debian's bash sources ~/.bashrc for a command run by sshd unless SHLVL says it is
# nested: this machine's root .bashrc (pyenv init) alone costs ~0.4 s, not sshd's work.
SetEnv SHLVL=1
EOF
"$SSHD" -D -e -f "$WORK/sshd_config" 2> "$WORK/sshd.log" &
SSHD_PID=$!
sshd_true() { ssh "${SSHOPT[@]}" -p "$PORT" root@127.0.0.1 true; }
wait_until 10 sshd_true || { echo "bench_ssh: private sshd unreachable: $(tail -3 "$WORK/sshd.log")"; exit 0; }
read -r sshd_ms sshd_max < <(median_max_ms sshd_true)
head -c "$pz_bytes" /dev/zero | tr '\0' 'x' > "$WORK/same_size"
read -r sshd_bytes sshd_secs sshd_mbps < <(python3 "$STREAM" /dev/null "$WORK/cat.out" \
    ssh "${SSHOPT[@]}" -p "$PORT" root@127.0.0.1 cat "$WORK/same_size")
echo "Debian sshd (loopback, $($SSHD -V 2>&1 | head -1)):"
echo "  login + true + exit: $sshd_ms ms (median of $RUNS), longest $sshd_max ms"
echo "  cat of a file of that size: $sshd_bytes bytes in $sshd_secs s = $sshd_mbps MB/s"
echo "ratio login portzerod/sshd: $(ratio "$pz_ms" "$sshd_ms")x (goal <= 1.2x)"
echo "ratio longest login portzerod/sshd: $(ratio "$pz_max" "$sshd_max")x"
echo "ratio bulk portzerod/sshd: $(ratio "$pz_mbps" "$sshd_mbps")x"
