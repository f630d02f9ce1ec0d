#!/usr/bin/env bash
# test_ssh_audit.sh - ssh-audit (Debian's 2.5.0) against ssh_testd.
#
# The default offer (compat_algorithms off) is the set ssh-audit judges
# clean: no [fail] and no [warn] on any key exchange, host key, cipher or MAC,
# and no (rec) line asking to remove or add one.
#
# Strict KEX: ssh-audit 2.5.0 (2021) predates strict KEX (OpenSSH 9.6, Dec
# 2023) and CANNOT report it: it lists the pseudo-algorithm
# kex-strict-s-v00@openssh.com as "[warn] unknown algorithm" (newer
# ssh-audit releases rate it [info]).  That line is pinned exactly (it is the
# only flagged line, and it proves the marker is on offer); strict KEX in use
# is proven with OpenSSH's own account instead: `ssh -vvv` prints
# "kex_choose_conf: will use strict KEX ordering" only when both sides offered
# it, and the session then works.
#
# With --compat on (ssh_compat_algorithms) ssh-audit's verdicts on the extra
# algorithms are pinned exactly: ecdh-sha2-nistp256 and ecdsa-sha2-nistp256
# [fail] "using weak elliptic curves" (its policy distrusts the NIST curves),
# the host key also [warn] "weak random number generator" (ECDSA nonces:
# ours are deterministic, RFC 6979, mbedtls_ecdsa_sign_det_ext),
# hmac-sha2-256/512 [warn] "using encrypt-and-MAC mode".
#
# Usage: test_ssh_audit.sh SSH_TESTD
set -euo pipefail
TESTD=$1
# shellcheck source=ssh_lib.sh
. "$(dirname "$0")/ssh_lib.sh"
ssh_require ssh-audit ssh ssh-keygen ssh-keyscan
WORK=$(mktemp -d /tmp/pz_ssh_audit.XXXXXX)
trap ssh_finish EXIT
cd "$WORK"

# findings FILE: "section algorithm level" for every [fail]/[warn] of ssh-audit's text output.
findings() {
    awk '
        /^\((kex|key|enc|mac)\) / { sect = substr($1, 2, 3); alg = $2 }
        /^\((gen|fin|rec|nfo)\) / || /^#/ { sect = "" }
        sect != "" && match($0, /\[(fail|warn)\]/) {
            print sect, alg, substr($0, RSTART + 1, RLENGTH - 2)
        }' "$1" | sort -u
}

ssh-keygen -q -t ed25519 -N '' -f key
ssh_start default --admin-keys "$WORK/key.pub"
rc=0
timeout 60 ssh-audit -n -p "$PORT" 127.0.0.1 > default.txt 2>&1 || rc=$?
check "ssh-audit ran against the default offer (rc $rc)" grep -q '^(gen) banner: SSH-2.0-portzero' default.txt
check_files "default: no fail or warn on any algorithm; only 2.5.0's unknown strict-KEX marker" \
    <(echo "kex kex-strict-s-v00@openssh.com warn") <(findings default.txt)
check "default: ssh-audit 2.5.0 calls the strict-KEX marker an unknown algorithm (it predates it)" \
    grep -qE '^\(kex\) kex-strict-s-v00@openssh.com +-- \[warn\] unknown algorithm$' default.txt
check "default: no recommendation to remove or add an algorithm" bash -c "! grep -q '^(rec)' default.txt"
for alg in curve25519-sha256 curve25519-sha256@libssh.org ssh-ed25519 \
    chacha20-poly1305@openssh.com aes256-gcm@openssh.com aes128-gcm@openssh.com aes256-ctr \
    aes128-ctr hmac-sha2-256-etm@openssh.com hmac-sha2-512-etm@openssh.com; do
    check "default: $alg offered, [info] only" grep -qE "^\((kex|key|enc|mac)\) $alg +-- \[info\]" default.txt
done
check "default: no NIST curve, no encrypt-and-MAC, no SHA-1/CBC/DSA/DH on offer" \
    bash -c "! grep -qE '^\((kex|key|enc|mac)\) .*(nistp|hmac-sha2-(256|512) |sha1|cbc|dss|diffie-hellman|ssh-rsa)' default.txt"

# Strict KEX through OpenSSH's eyes (what ssh-audit 2.5.0 cannot say).
ssh_keyscan
out=$(sshc -vvv -i key admin@127.0.0.1 echo strict 2> vvv.raw) || true
tr -d '\r' < vvv.raw > vvv.err
check_eq "default: a session with OpenSSH works" strict "$out"
check "OpenSSH offered kex-strict-c and saw kex-strict-s (ssh -vvv)" \
    grep -q 'kex_choose_conf: will use strict KEX ordering' vvv.err
check "the server's KEXINIT lists kex-strict-s-v00@openssh.com (ssh -vvv)" \
    grep -qE '^debug2: KEX algorithms: .*kex-strict-s-v00@openssh.com' vvv.err

ssh_start compat --compat on
rc=0
timeout 60 ssh-audit -n -p "$PORT" 127.0.0.1 > compat.txt 2>&1 || rc=$?
check "ssh-audit ran against the compat offer (rc $rc)" grep -q '^(gen) banner: SSH-2.0-portzero' compat.txt
want=$(printf '%s\n' \
    "kex ecdh-sha2-nistp256 fail" \
    "kex kex-strict-s-v00@openssh.com warn" \
    "key ecdsa-sha2-nistp256 fail" \
    "key ecdsa-sha2-nistp256 warn" \
    "mac hmac-sha2-256 warn" \
    "mac hmac-sha2-512 warn" | sort)
check_files "compat: exactly the expected fail/warn items" <(echo "$want") <(findings compat.txt)
check "compat: the NIST curve fails as a weak elliptic curve" \
    grep -qE '^\(kex\) ecdh-sha2-nistp256 +-- \[fail\] using weak elliptic curves' compat.txt
check "compat: hmac-sha2-256 warns as encrypt-and-MAC" \
    grep -qE '^\(mac\) hmac-sha2-256 +-- \[warn\] using encrypt-and-MAC mode' compat.txt
check "compat: no SHA-1, CBC, DSA, group DH on offer" \
    bash -c "! grep -qE '^\((kex|key|enc|mac)\) .*(sha1|cbc|dss|diffie-hellman|ssh-rsa)' compat.txt"
