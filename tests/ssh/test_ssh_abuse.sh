#!/usr/bin/env bash
# test_ssh_abuse.sh - refusals, limits and bad input against ssh_testd.
#
# A hand-made client (ssh_rawclient.py, the clear-text stage of RFC 4253)
# sends what OpenSSH never sends and checks the server's DISCONNECT reason:
# a bad version line or one with control characters (8), one over 255 bytes (2), garbage, absurd/zero lengths, bad padding (2),
# a 35000-byte packet (accepted: the exchange goes on), messages out of
# order for a non-strict client (2), strict-KEX violations (2), an invalid
# ECDH key and offers with only CBC, only SHA-1 MACs, only ssh-rsa/DSA host
# keys, only DH groups (3), silence past the login grace time (11).  With the
# real OpenSSH client: max auth tries, the delay after a failure, the idle
# timeout, the session limit, 50 failed logins followed by a good one, 20
# connections at once.  The server must stay up throughout.
#
# Usage: test_ssh_abuse.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
pzt_require_tools ssh ssh-keygen ssh-keyscan python3 mkpasswd
RAW=$(dirname "$(abspath "$0")")/ssh_rawclient.py
WORK=$(mktemp -d /tmp/pz_ssh_abuse.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"
ssh-keygen -q -t ed25519 -N '' -f key
HASH=$(mkpasswd -m sha-512 'right-pw')

ssh_start limits --admin-keys "$WORK/key.pub" --admin-hash "$HASH" --grace 1500 --idle 1500 \
    --max-auth 3 --fail-delay 300 --backoff-after 0
LPID=$PID
LPORT=$PORT
ssh_keyscan

while read -r scenario want; do
    got=$(timeout 20 python3 "$RAW" "$PORT" "$scenario" 2>&1) || true
    check_eq "raw client: $scenario -> $want" "$want" "$got"
done << 'EOF2'
badversion disconnect 8
ctrlversion disconnect 8
longversion disconnect 2
garbage disconnect 2
hugelen disconnect 2
zerolen disconnect 2
badpad disconnect 2
truncated closed
big_ignore got 31
nonstrict_out_of_order disconnect 2
strict_not_first disconnect 2
strict_ignore_during disconnect 2
newkeys_early disconnect 2
bad_ecdh disconnect 3
only_cbc disconnect 3
only_sha1 disconnect 3
only_ssh_rsa disconnect 3
only_dh_group disconnect 3
EOF2
start=$SECONDS
got=$(timeout 20 python3 "$RAW" "$PORT" grace) || true
check_eq "silent client: disconnected at the login grace time (BY_APPLICATION)" "disconnect 11" "$got"
check "grace time: within 5 s" test $((SECONDS - start)) -le 5

askpass() { local pw=$1; shift; ssh_askpass "$pw" admin "$@"; } # askpass PASSWORD PROMPTS CMD...
rc=0
askpass wrong 5 true > /dev/null 2> maxauth.err || rc=$?
check "3 wrong passwords: disconnected (too many authentication failures)" \
    bash -c "[ $rc = 255 ] && grep -q 'too many authentication failures' maxauth.err"
t0=$(date +%s%N)
askpass wrong 1 true > /dev/null 2>&1 || true
ms=$((($(date +%s%N) - t0) / 1000000))
check "a failed password is answered after the 300 ms delay (${ms} ms)" test "$ms" -ge 300

# 50 failed logins (10 at a time), then a good one still gets in.
# (wait on the clients' PIDs: a bare wait would wait for the servers too)
for round in 1 2 3 4 5; do
    pids=()
    for i in 1 2 3 4 5 6 7 8 9 10; do
        askpass wrong 1 true > /dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    : "$round"
done
out=$(askpass right-pw 1 whoami 2> /dev/null) || true
check_eq "good password after 50 failures" admin "$out"
check "server alive after the raw clients and failures" kill -0 "$LPID"

rc=0
(sleep 6) | sshc -T -i key admin@127.0.0.1 > /dev/null 2> idle.err || rc=$?
check "idle shell disconnected (idle timeout)" \
    bash -c "[ $rc = 255 ] && grep -q 'idle timeout' idle.err"
# A command that runs silent longer than the idle timeout is not idle: it ends
# with its own status; the idle time starts again when it has ended.
rc=0
sshc -i key admin@127.0.0.1 'sleep 4000' < /dev/null > sleep.out 2> sleep.err || rc=$?
check_eq "a silent 4 s command outlives the 1.5 s idle timeout (exit 0)" 0 "$rc"
check "... no idle timeout said" bash -c "! grep -q 'idle timeout' sleep.err"

# The session limit (the caller's count): 2 held, the third refused.
ssh_start sessions --admin-keys "$WORK/key.pub" --max-sessions 2
ssh_keyscan
(sleep 4) | sshc -i key admin@127.0.0.1 cat > /dev/null 2>&1 &
H1=$!
(sleep 4) | sshc -i key admin@127.0.0.1 cat > /dev/null 2>&1 &
H2=$!
wait_lines "$WORK/sessions.log" 10 'login admin' 2 || true
rc=0
sshc -i key admin@127.0.0.1 true 2> third.err || rc=$?
check "third session refused (too many sessions)" \
    bash -c "[ $rc = 255 ] && grep -q 'too many sessions' third.err"
wait "$H1" "$H2" || true
# 20 at once: each gets in or is refused cleanly; the server survives.
pids=()
for i in $(seq 1 20); do
    (sshc -i key admin@127.0.0.1 echo "c$i" > "c$i.out" 2> "c$i.err" || true) &
    pids+=($!)
done
wait "${pids[@]}" || true
okc=0
refc=0
for i in $(seq 1 20); do
    if [ "$(cat "c$i.out")" = "c$i" ]; then
        okc=$((okc + 1))
    elif grep -q 'too many sessions' "c$i.err"; then
        refc=$((refc + 1))
    fi
done
check_eq "20 concurrent: every client served or refused cleanly ($okc served)" 20 $((okc + refc))
check "20 concurrent: some were served" test "$okc" -ge 2
out=$(sshc -i key admin@127.0.0.1 echo after) || true
check_eq "login works after the burst" after "$out"
: "$LPORT"
