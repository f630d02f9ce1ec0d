#!/usr/bin/env bash
# test_ssh_password.sh - password verdicts off the serving thread and the
# per-address back-off, against ssh_testd with paramiko (ssh_pwguess.py) and
# OpenSSH's client; delays are read from the server's own log timestamps.
#   - asynchronous: while a slow hash (sha512-crypt, 5M rounds) of a wrong
#     monitor password runs, admin logs in with a key and runs a command;
#     the server logs that login before the password's verdict;
#   - a password attempt whose client hangs up before the verdict counts as a
#     failure of its address (2 such from 127.0.0.6: "2 failures");
#   - back-off: 7 wrong passwords from 127.0.0.2 (a connection each): the
#     first 3 are not held, the start is logged once after the 3rd, attempts
#     4-7 each take a back-off turn ("waits N ms", 0 when the client came after
#     its turn, as on a loaded machine) and their turns (the server's own clock)
#     are at least 600, 1200, 1200 ms apart (base 300, doubling, cap 1200:
#     a failure pushes the address's next turn one delay past its verdict)
#   - per address: 127.0.0.3 then is not held, and its right password logs in;
#   - 6 parallel wrong attempts from 127.0.0.4 in back-off (a second server:
#     after 1 failure, 1 s turns): the turns the server logs are at least
#     1000 ms apart (connections of one address take turns).
# Usage: test_ssh_password.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
pzt_require_tools ssh ssh-keygen ssh-keyscan mkpasswd
/usr/bin/python3 -c 'import paramiko' 2> /dev/null || pzt_require_tools python3-paramiko
GUESS=$(dirname "$(abspath "$0")")/ssh_pwguess.py
WORK=$(mktemp -d /tmp/pz_ssh_password.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"
ssh-keygen -q -t ed25519 -N '' -f key
ADMIN_HASH=$(mkpasswd -m yescrypt 'right-pw')
# Any wrong password costs the full 5M rounds (over 1 s; more on a loaded machine, the
# verifier running at nice 19): only the setting matters.
# shellcheck disable=SC2016 # a literal crypt setting
SLOW_HASH='$6$rounds=5000000$slowslowslow$'$(printf 'x%.0s' $(seq 86))

ssh_start pw --admin-keys "$WORK/key.pub" --admin-hash "$ADMIN_HASH" --monitor-hash "$SLOW_HASH" \
    --fail-delay 100 --max-auth 100 --backoff-after 3 --backoff-base 300 --backoff-max 1200 \
    --grace 600000
ssh_keyscan
guess() { /usr/bin/python3 "$GUESS" seq "$1" 127.0.0.1 "$PORT" "${@:2}"; }
# ts LOG PATTERN: the server's timestamps (ms) of the lines matching PATTERN
ts() { grep -E "$2" "$1" | awk '{ print $3 }'; }

# Asynchronous verdicts: a key login completes while the slow hash runs.
guess 127.0.0.5 monitor wrong > slow.out 2>&1 &
SLOW=$!
check "slow hash: the attempt is pending" wait_until 20 grep -q 'client version' pw.log
sleep 0.5
out=$(sshc -i key admin@127.0.0.1 echo during) || true
check_eq "key login and exec while the hash runs" during "$out"
wait "$SLOW" || true
check_eq "the slow wrong password is refused" refused "$(cat slow.out)"
t_login=$(ts pw.log 'info: user admin logged in' | head -1)
t_slow=$(ts pw.log 'password for monitor from 127.0.0.5 refused' | head -1)
check "the login is logged before the slow verdict ($t_login < $t_slow)" \
    test "${t_login:-0}" -lt "${t_slow:-0}" -a -n "$t_login"

# Back-off for one address.
mapfile -t got < <(guess 127.0.0.2 admin w1 w2 w3 w4 w5 w6 w7)
check_eq "7 wrong passwords from 127.0.0.2 all refused" \
    "refused refused refused refused refused refused refused" "${got[*]}"
check_eq "back-off start logged once" 1 \
    "$(grep -c 'back-off for 127.0.0.2 after 3 failed passwords' pw.log)"
# Every attempt in back-off logs its turn: a wait, or 0 ms when the client came after
# its turn (a slow client on a loaded machine).
check_eq "attempts 4-7 each took a back-off turn" 4 \
    "$(grep -c 'password attempt from 127.0.0.2 waits [0-9]* ms (back-off' pw.log)"
mapfile -t t < <(ts pw.log 'password for admin from 127.0.0.2 refused')
check_eq "7 verdicts logged" 7 "${#t[@]}"
# The held attempts' turns, in the server's own clock ("turn at T"): attempt k+1's turn
# is at least one delay after attempt k's verdict, which came after attempt k's turn, so
# consecutive turns are a delay apart (a log line's time could lag the decision's clock
# on a loaded machine; the turns are the decisions themselves).
mapfile -t turn < <(grep -E 'password attempt from 127\.0\.0\.2 waits' pw.log |
    sed 's/.*turn at \([0-9]*\).*/\1/')
want=(600 1200 1200)
for k in 0 1 2; do
    gap=$((turn[k + 1] - turn[k]))
    check "back-off attempts $((k + 4)) -> $((k + 5)): turns ${gap} ms apart (at least ${want[k]})" \
        test "$gap" -ge "${want[k]}"
done

# Another address is not held and logs in.
mapfile -t got < <(guess 127.0.0.3 admin w1 right-pw)
check_eq "127.0.0.3: wrong then right password" "refused ok" "${got[*]}"
check_eq "127.0.0.3 never in back-off" 0 "$(grep -c 'attempt from 127.0.0.3 waits' pw.log)"

# Parallel connections of one address in back-off take turns (a server of its own:
# back-off after 1 failure, turns 1 s apart).
SRV_PID=$PID
ssh_start par --admin-hash "$ADMIN_HASH" --fail-delay 100 --max-auth 100 --backoff-after 1 \
    --backoff-base 1000 --backoff-max 1000 --grace 600000
guess 127.0.0.4 admin a > /dev/null
pids=()
for i in 1 2 3 4 5 6; do
    guess 127.0.0.4 admin "p$i" > "par$i.out" 2>&1 &
    pids+=($!)
done
wait "${pids[@]}" || true
check_eq "6 parallel attempts refused" 6 "$(cat par*.out | grep -c '^refused$')"
check_eq "7 verdicts from 127.0.0.4" 7 "$(grep -c 'password for admin from 127.0.0.4 refused' par.log)"
# The turns the server gave (its clock): most of the 6 held, 1000 ms apart or more.
mapfile -t turns < <(grep -E 'attempt from 127.0.0.4 waits' par.log | sed 's/.*turn at \([0-9]*\).*/\1/' | sort -n)
check "at least 3 parallel attempts took back-off turns (${#turns[@]})" test "${#turns[@]}" -ge 3
ok=0
for ((k = 1; k < ${#turns[@]}; k++)); do
    [ $((turns[k] - turns[k - 1])) -ge 1000 ] && ok=$((ok + 1))
done
check_eq "their turns are at least 1000 ms apart" $((${#turns[@]} - 1)) "$ok"
check "no sanitizer report (par)" bash -c "! grep -q Sanitizer par.log"
# An attempt whose client hangs up before the verdict still counts for its address (a
# client could otherwise guess without ever meeting the back-off): on a server of its own
# (one worker, a 2M-round monitor hash: over 0.1 s even idle, and only one of them is
# hashed), the first attempt is hashed out by the worker, the second (waiting behind it)
# leaves the queue unhashed.
MAIN_PORT=$PORT
# shellcheck disable=SC2016 # a literal crypt setting
ssh_start ab --admin-keys "$WORK/key.pub" --monitor-hash \
    '$6$rounds=2000000$abandonabandon$'"$(printf 'x%.0s' $(seq 86))" \
    --fail-delay 100 --max-auth 100 --backoff-after 5 --grace 600000
for i in 1 2; do
    check_eq "attempt $i from 127.0.0.6 abandoned after 0.1 s" abandoned \
        "$(/usr/bin/python3 "$GUESS" abandon 127.0.0.6 127.0.0.1 "$PORT" monitor wrong 0.1 2>&1)"
done
check "the two abandoned attempts are 2 failures of 127.0.0.6" \
    wait_file ab.log 120 'from 127\.0\.0\.6 .*\(2 failures from the address\)'
check "no sanitizer report (ab)" bash -c "! grep -q Sanitizer ab.log"
PORT=$MAIN_PORT

PID=$SRV_PID
check "server alive" kill -0 "$PID"
check "no sanitizer report" bash -c "! grep -q Sanitizer pw.log"
