#!/usr/bin/env bash
# Build portzero's Debian package for one architecture (make deb).
#
# Usage: scripts/make-deb.sh ARCH OUTDIR
#   ARCH    amd64 (native) or arm64 (cross: toolchain.cmake and the sysroot
#           build-arm64/sysroot of scripts/make-sysroot-arm64.sh, or $PZ_SYSROOT)
#   OUTDIR  where portzero_<version>_<arch>.deb and its lintian report land
#
# dpkg-buildpackage runs on a copy of the tree (the files git knows, as they
# are in the work tree) in OUTDIR/src-ARCH/portzero-<version>, since it writes
# its results into the parent directory of the source. For arm64 the build
# dependencies are the sysroot's, not installed packages (-d), and
# dpkg-shlibdeps reads the arm64 libraries' symbols/shlibs files from one
# `dpkg-deb -R` tree per .deb of the sysroot's cache (plus libc6 and
# libgcc-s1 for arm64, which the sysroot takes from the cross toolchain).
# Then lintian checks the package: an error fails the build; the report is
# OUTDIR/portzero_<version>_<arch>.lintian.
set -euo pipefail

die() {
    echo "make-deb: error: $*" >&2
    exit 1
}
log() { echo "make-deb: $*"; }

[ $# -eq 2 ] || die "usage: $0 amd64|arm64 OUTDIR"
ARCH=$1
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD_ARCH=$(dpkg --print-architecture)

VERSION=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
CMAKE_VERSION=$(sed -n 's/^project(portzero VERSION \([0-9.]*\) .*/\1/p' "$SRC/CMakeLists.txt")
[ "$VERSION" = "$CMAKE_VERSION" ] ||
    die "debian/changelog says $VERSION, CMakeLists.txt $CMAKE_VERSION: add a changelog entry"

# 1. The source copy.
TREE=$OUT/src-$ARCH/portzero-$VERSION
rm -rf "$OUT/src-$ARCH"
mkdir -p "$TREE"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -xf - -C "$TREE"

# 2. The build.
BUILD_ENV=(DEB_BUILD_OPTIONS="noddebs nocheck parallel=${JOBS:-2}")
DPKG_ARGS=(-b -us -uc)
if [ "$ARCH" != "$BUILD_ARCH" ]; then
    [ "$ARCH" = arm64 ] || die "cross builds are for arm64 only (toolchain.cmake)"
    SYSROOT=${PZ_SYSROOT:-$SRC/build-arm64/sysroot}
    [ -f "$SYSROOT/.complete" ] || die "no sysroot in $SYSROOT (make cross assembles it)"
    DEBS=${PZ_DEB_CACHE:-$SYSROOT.debs}
    SHLIBS=$OUT/shlibs-$ARCH
    rm -rf "$SHLIBS"
    mkdir -p "$SHLIBS"
    # libc6 and libgcc-s1 for arm64: the cross toolchain's C library is
    # packaged as libc6-arm64-cross, but the switch's is libc6.
    for p in libc6 libgcc-s1; do
        ver=$(apt-cache policy "$p:$ARCH" | awk '/^ *Candidate:/ { print $2; exit }')
        [ -n "$ver" ] && [ "$ver" != "(none)" ] || die "apt knows no $p:$ARCH"
        f=$DEBS/${p}_${ver//:/%3a}_$ARCH.deb
        if [ ! -f "$f" ]; then
            DL=(apt-get download -q)
            [ "$(id -u)" -ne 0 ] || DL+=(-o APT::Sandbox::User=root)
            (cd "$DEBS" && "${DL[@]}" "$p:$ARCH=$ver")
        fi
        dpkg-deb -R "$f" "$SHLIBS/$p"
    done
    while read -r deb; do
        case "$deb" in *-dev_* | *-utils_*) continue ;; esac
        dpkg-deb -R "$DEBS/$deb" "$SHLIBS/${deb%%_*}"
    done < <(sed -n '3,$p' "$SYSROOT/.complete")
    BUILD_ENV+=(PZ_SYSROOT="$SYSROOT" PZ_SHLIBS_TREES="$SHLIBS")
    DPKG_ARGS+=(-a "$ARCH" -d)
fi
log "dpkg-buildpackage ${DPKG_ARGS[*]} in $TREE"
(cd "$TREE" && env "${BUILD_ENV[@]}" dpkg-buildpackage "${DPKG_ARGS[@]}") > "$OUT/build-$ARCH.log" 2>&1 || {
    tail -n 40 "$OUT/build-$ARCH.log"
    die "dpkg-buildpackage failed (log: $OUT/build-$ARCH.log)"
}
DEB=portzero_${VERSION}_$ARCH.deb
[ -f "$OUT/src-$ARCH/$DEB" ] || die "dpkg-buildpackage made no $DEB"
mv "$OUT/src-$ARCH/$DEB" "$OUT/$DEB"

# 3. lintian: errors fail, warnings are listed (debian/README.packaging says
#    why each one that remains is acceptable).
REPORT=$OUT/portzero_${VERSION}_$ARCH.lintian
lintian --no-tag-display-limit --info --display-info --fail-on none "$OUT/$DEB" > "$REPORT" 2>&1 || true
errors=$(grep -c '^E: ' "$REPORT" || true)
warnings=$(grep -c '^W: ' "$REPORT" || true)
log "$OUT/$DEB: Depends: $(dpkg-deb -f "$OUT/$DEB" Depends)"
log "lintian: $errors errors, $warnings warnings ($REPORT)"
grep -E '^[EW]: ' "$REPORT" || true
[ "$errors" = 0 ] || die "lintian reports errors on $DEB"
