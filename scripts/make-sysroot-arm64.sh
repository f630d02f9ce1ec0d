#!/usr/bin/env bash
# Assemble an arm64 sysroot for cross-compiling portzero, from Debian's arm64
# .debs, WITHOUT installing them for arm64: the .debs are fetched with
# `apt-get download` and unpacked with `dpkg-deb -x` into OUTDIR.
# (Installing would not work for everything: libsnmp-dev, for one, cannot be
# installed for two architectures at once.)
#
# The C library and kernel headers come from the cross toolchain
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross under /usr/aarch64-linux-gnu),
# so they are not put in the sysroot; see toolchain.cmake.
#
# Usage: scripts/make-sysroot-arm64.sh OUTDIR
#   env PZ_DEB_CACHE=DIR   where the .debs are kept (default: OUTDIR.debs)
#
# Idempotent: does nothing if OUTDIR/.complete exists and lists the same
# packages; rebuilds OUTDIR if the package list changed.
set -euo pipefail

# Packages to unpack (arm64). Their library dependencies are added
# automatically (see follow_dep below). libsnmp-dev gives the arm64 portzerod
# its SNMP agent; ibsim-utils is not linked against: its arm64 libumad2sim.so
# (usr/lib/aarch64-linux-gnu/umad2sim/) attaches the image's portzerod to
# pzfabric under qemu-aarch64 (tests/image/).
PACKAGES=(
    libibmad-dev libibmad5
    libibumad-dev libibumad3
    libcmocka-dev libcmocka0
    liblwip-dev liblwip0
    libmbedtls-dev libmbedcrypto7 libsodium-dev libsodium23 libcrypt-dev libcrypt1
    libsnmp-dev libsnmp40
    ibsim-utils
)

# Provided by the cross toolchain (or not wanted in a sysroot): never unpacked,
# and their dependencies are not followed.
EXCLUDE=(
    libc6 libc6-dev libc-dev-bin libgcc-s1 gcc-12-base linux-libc-dev
)

ARCH=arm64
TRIPLET=aarch64-linux-gnu

die() {
    echo "make-sysroot-arm64: error: $*" >&2
    exit 1
}
log() {
    echo "make-sysroot-arm64: $*"
}

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
OUTDIR=$1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
CACHE=${PZ_DEB_CACHE:-${OUTDIR}.debs}
STAMP="$OUTDIR/.complete"
WANT="packages: ${PACKAGES[*]}"

if [ -f "$STAMP" ] && [ "$(head -n 1 "$STAMP")" = "$WANT" ]; then
    log "$OUTDIR is up to date"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    SUDO=(sudo)
fi
apt_update() {
    log "apt-get update"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
}

# 1. Make apt know about arm64 packages. Adding a foreign architecture only
#    adds package lists; nothing native is changed or removed.
if ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
    log "dpkg --add-architecture $ARCH"
    "${SUDO[@]}" dpkg --add-architecture "$ARCH"
    apt_update
elif ! apt-cache show "${PACKAGES[0]}:$ARCH" >/dev/null 2>&1; then
    apt_update
fi

# 2. Resolve the closure: the listed packages plus, recursively, the arm64
#    library packages they depend on (lib*, zlib*, *-dev), minus EXCLUDE.
#    Non-library dependencies (perl, procps, arch:all data...) are not needed to
#    link or run and are skipped.
is_excluded() {
    local x
    for x in "${EXCLUDE[@]}"; do
        [ "$x" = "$1" ] && return 0
    done
    return 1
}
follow_dep() {
    case "$1" in
    lib* | zlib* | *-dev) ! is_excluded "$1" ;;
    *) return 1 ;;
    esac
}

declare -A seen=()
closure=()
queue=()
for p in "${PACKAGES[@]}"; do
    is_excluded "$p" && continue
    seen[$p]=1
    closure+=("$p")
    queue+=("$p")
done
while [ ${#queue[@]} -gt 0 ]; do
    args=()
    for p in "${queue[@]}"; do
        args+=("$p:$ARCH")
    done
    queue=()
    deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances "${args[@]}" 2>/dev/null |
        sed -n -E "s/^ *\|?(Pre)?Depends: ([^<> ]+):$ARCH\$/\2/p" | sort -u) ||
        die "apt-cache depends failed for: ${args[*]}"
    for d in $deps; do
        [ -n "${seen[$d]:-}" ] && continue
        seen[$d]=1
        if follow_dep "$d"; then
            closure+=("$d")
            queue+=("$d")
        fi
    done
done
log "packages: ${closure[*]}"

# 3. Download the .debs into the cache, only those not already cached in the
#    candidate version.
mkdir -p "$CACHE"
APT_DL=(apt-get download -q)
if [ "$(id -u)" -eq 0 ]; then
    # Root downloading into a root-owned dir: skip apt's _apt sandbox (which
    # cannot write there and would only warn about it).
    APT_DL+=(-o APT::Sandbox::User=root)
fi
declare -A cand=()
lookup_candidates() {
    # One apt-cache call: "pkg:arm64:" header, then "  Candidate: v".
    local args=() p name ver
    for p in "${closure[@]}"; do
        args+=("$p:$ARCH")
    done
    cand=()
    while read -r name ver; do
        cand[$name]=$ver
    done < <(apt-cache policy "${args[@]}" | awk -v arch=":$ARCH" '
        /^[^ ].*:$/ { name = substr($0, 1, length($0) - 1); sub(arch "$", "", name) }
        /^ *Candidate:/ { print name, $2 }')
}
# Path of the cached .deb of $1 in its candidate version, if there.
cached_deb() {
    local ver=${cand[$1]:-} f
    if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
        die "no candidate for $1:$ARCH"
    fi
    for f in "$CACHE/${1}_${ver//:/%3a}_$ARCH.deb" "$CACHE/${1}_${ver//:/%3a}_all.deb"; do
        if [ -f "$f" ]; then
            echo "$f"
            return 0
        fi
    done
    return 1
}
download_missing() {
    local fetch=() p
    for p in "${closure[@]}"; do
        cached_deb "$p" >/dev/null || fetch+=("$p:$ARCH=${cand[$p]}")
    done
    [ ${#fetch[@]} -gt 0 ] || return 0
    log "apt-get download ${fetch[*]}"
    (cd "$CACHE" && "${APT_DL[@]}" "${fetch[@]}")
}
lookup_candidates
if ! download_missing; then
    # Stale package lists (a version left the mirror): refresh and retry once.
    apt_update
    lookup_candidates
    download_missing || die "apt-get download of arm64 packages failed"
fi
debs=()
for p in "${closure[@]}"; do
    deb=$(cached_deb "$p") || die "no .deb for $p in $CACHE"
    debs+=("$deb")
done

# 4. Unpack into a fresh tree, then publish it as OUTDIR.
TMP="$OUTDIR.tmp.$$"
rm -rf "$TMP"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
for deb in "${debs[@]}"; do
    dpkg-deb -x "$deb" "$TMP"
done

# Merged-/usr layout: move anything under lib/ into usr/lib/ so one library
# directory (usr/lib/$TRIPLET) holds everything.
if [ -d "$TMP/lib" ] && [ ! -L "$TMP/lib" ]; then
    mkdir -p "$TMP/usr/lib"
    cp -a "$TMP/lib/." "$TMP/usr/lib/"
    rm -rf "${TMP:?}/lib"
fi
ln -sfn usr/lib "$TMP/lib"

# Absolute symlinks (e.g. libfoo.so -> /lib/$TRIPLET/libfoo.so.1) would point at
# the build machine: make them relative, inside the sysroot.
while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    case "$target" in
    /*)
        t="$TMP$target"
        case "$target" in
        /lib/*) t="$TMP/usr$target" ;;
        esac
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$t")" "$link"
        ;;
    esac
done < <(find "$TMP" -type l -print0)

# Drop what is useless in a sysroot.
rm -rf "$TMP/usr/share/doc" "$TMP/usr/share/man" "$TMP/usr/share/lintian"

[ -e "$TMP/usr/lib/$TRIPLET" ] || die "no usr/lib/$TRIPLET in the unpacked packages"

{
    echo "$WANT"
    echo "closure: ${closure[*]}"
    for deb in "${debs[@]}"; do
        basename "$deb"
    done
} >"$TMP/.complete"

rm -rf "$OUTDIR"
mv "$TMP" "$OUTDIR"
trap - EXIT
log "sysroot ready in $OUTDIR"
