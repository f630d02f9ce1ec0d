#!/usr/bin/env bash
# test_ssh_algorithms.sh - every algorithm combination ssh_testd offers, each
# forced on the OpenSSH client (-o KexAlgorithms, -o HostKeyAlgorithms, -c,
# -m), each connection checked by its exec output and by the negotiated names
# in `ssh -v`:
#   - with --compat on (ssh_compat_algorithms): 3 key exchanges x 2 host keys
#     x 5 ciphers x 4 MACs;
#   - the default offer: 2 x 1 x 5 x 2 (curve25519, ssh-ed25519, -etm MACs),
#     and the compat-only ones (ecdh-sha2-nistp256, ecdsa-sha2-nistp256,
#     hmac-sha2-256/512) refused with "no matching" on the client.
# Also: what the server never offers (SHA-1 MAC, CBC, DH group14, ssh-rsa
# host keys) is refused with "no matching".
#
# Usage: test_ssh_algorithms.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
ssh_require ssh ssh-keygen ssh-keyscan
WORK=$(mktemp -d /tmp/pz_ssh_algs.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"
ssh-keygen -q -t ed25519 -N '' -f key
ssh_start algs --compat on --admin-keys "$WORK/key.pub"
ssh_keyscan

KEX="curve25519-sha256 curve25519-sha256@libssh.org ecdh-sha2-nistp256"
HOSTKEYS="ssh-ed25519 ecdsa-sha2-nistp256"
CIPHERS="chacha20-poly1305@openssh.com aes128-gcm@openssh.com aes256-gcm@openssh.com aes128-ctr aes256-ctr"
MACS="hmac-sha2-256 hmac-sha2-512 hmac-sha2-256-etm@openssh.com hmac-sha2-512-etm@openssh.com"

# combinations: connect with every combination of $KEX $HOSTKEYS $CIPHERS $MACS; sets
# total and bad.
combinations() {
    total=0
    bad=0
    for k in $KEX; do
        for h in $HOSTKEYS; do
            for c in $CIPHERS; do
                for m in $MACS; do
                    total=$((total + 1))
                    out=$(sshc -v -i key -o KexAlgorithms="$k" -o HostKeyAlgorithms="$h" -c "$c" \
                        -m "$m" admin@127.0.0.1 echo "$k $h $c $m" 2> v.raw) || true
                    tr -d "\r" < v.raw > v.err
                    # The client's debug lines name what was negotiated.
                    if [ "$out" != "$k $h $c $m" ] ||
                        ! grep -qx "debug1: kex: algorithm: $k" v.err ||
                        ! grep -qx "debug1: kex: host key algorithm: $h" v.err ||
                        ! grep -q "kex: server->client cipher: $c MAC: " v.err; then
                        echo "     combination failed: $k $h $c $m"
                        [ "$bad" -gt 2 ] || grep 'kex:' v.err | sed 's/^/     /'
                        bad=$((bad + 1))
                    fi
                done
            done
        done
    done
}
combinations
check_eq "compat on: all $total algorithm combinations connect" 0 "$bad"
check_eq "compat on: combinations tried" 120 "$total"

refused() { # refused OPTION...: the client finds no common algorithm
    local rc=0
    sshc -i key "$@" admin@127.0.0.1 true 2> r.err || rc=$?
    [ "$rc" = 255 ] && grep -q 'no matching' r.err
}
check "hmac-sha1 only: refused" refused -c aes128-ctr -m hmac-sha1
check "aes128-cbc only: refused" refused -c aes128-cbc
check "diffie-hellman-group14-sha256 only: refused" refused -o KexAlgorithms=diffie-hellman-group14-sha256
check "ssh-rsa host key only: refused" refused -o HostKeyAlgorithms=ssh-rsa

# The default offer: the ssh-audit-clean set connects in every combination, the compat
# ones are not on offer.
stop_pid "$PID"
PIDS=()
ssh_start default --admin-keys "$WORK/key.pub"
ssh_keyscan
check_eq "default: known_hosts has the ed25519 host key only" ssh-ed25519 \
    "$(awk '{ print $2 }' "$WORK/known_hosts" | sort -u | tr '\n' ' ' | sed 's/ $//')"
KEX="curve25519-sha256 curve25519-sha256@libssh.org"
HOSTKEYS="ssh-ed25519"
MACS="hmac-sha2-256-etm@openssh.com hmac-sha2-512-etm@openssh.com"
combinations
check_eq "default: all $total algorithm combinations connect" 0 "$bad"
check_eq "default: combinations tried" 20 "$total"
check "default: ecdh-sha2-nistp256 only: refused" refused -o KexAlgorithms=ecdh-sha2-nistp256
check "default: ecdsa-sha2-nistp256 host key only: refused" \
    refused -o HostKeyAlgorithms=ecdsa-sha2-nistp256
check "default: hmac-sha2-256 (encrypt-and-MAC) only: refused" refused -c aes128-ctr -m hmac-sha2-256
check "default: hmac-sha2-512 (encrypt-and-MAC) only: refused" refused -c aes256-ctr -m hmac-sha2-512
check "default: no ECDSA host key file is created" test ! -e "$WORK/default.state/ssh_host_ecdsa_key"
