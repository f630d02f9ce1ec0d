#!/usr/bin/env bash
# Install every Debian package that portzero's build and tests need.
# Idempotent and quick when everything is already present: apt is only
# touched (update + install) when dpkg-query reports something missing.
# Needs root (or sudo) only when something has to be installed.
set -euo pipefail

PACKAGES=(
    build-essential cmake pkg-config
    clang clang-format libclang-rt-14-dev
    libibmad-dev libibumad-dev libcmocka-dev
    opensm infiniband-diags ibsim-utils
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user systemd
    tshark iproute2 valgrind iperf radvd
    iputils-ping socat python3 liblwip-dev
    libsnmp-dev snmp snmptrapd smitools
    libmbedtls-dev libsodium-dev libcrypt-dev openssh-client openssh-server ssh-audit whois openssl
    python3-paramiko dropbear-bin stress-ng
    dpkg-dev debhelper lintian
    prometheus prometheus-snmp-exporter curl man-db
)

# --bench: also what only `make bench` uses (Debian's snmpd, the reference
# agent of bench_snmp.sh; the benches' own sshd comes with openssh-server).
if [ "${1:-}" = --bench ]; then
    PACKAGES+=(snmpd)
fi

missing=()
for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages present"
    exit 0
fi

echo "install-deps: installing: ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
        echo "install-deps: not root and no sudo; install as root: ${missing[*]}" >&2
        exit 1
    }
    SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# tshark pulls in wireshark-common, which asks whether non-root users may capture.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
    "${SUDO[@]}" debconf-set-selections

"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold "${missing[@]}"

echo "install-deps: done"
