#!/usr/bin/env bash
# Assemble the aarch64 switch image from the arm64 Debian package (make image).
#
# Usage: scripts/make-image.sh BUILD_DIR DEB_DIR OUT.tar.gz
#   BUILD_DIR  the aarch64 build (build-arm64): its sysroot BUILD_DIR/sysroot
#              (scripts/make-sysroot-arm64.sh) and that sysroot's .deb cache
#   DEB_DIR    where make deb put portzero_<version>_arm64.deb (build-deb)
#
# One source of truth for what a switch gets: the tree (BUILD_DIR/image-rootfs,
# rebuilt each time) is the package's contents, `dpkg-deb -x`, with lib/ moved
# to usr/lib/ (a Debian 12 base has merged /usr: lib is a symlink there, which
# a directory in the tarball would replace). Maintainer scripts do not run on
# an image: systemd-sysusers creates the user portzero at boot from the
# package's /usr/lib/sysusers.d/portzero.conf, and the unit's StateDirectory=
# gives it /var/lib/portzero. Two files are added:
#   /usr/share/portzero/debian-packages.txt  the package's Depends, and the
#                                         Debian arm64 library packages (name,
#                                         version, sonames) they resolve to, their
#                                         own library dependencies included
#   /usr/share/portzero/MANIFEST          every entry: type, mode, size, sha256, path
# The tarball is reproducible: sorted, owner root, mtime of the last commit.
set -euo pipefail

die() {
    echo "make-image: error: $*" >&2
    exit 1
}
log() { echo "make-image: $*"; }

[ $# -eq 3 ] || die "usage: $0 BUILD_DIR DEB_DIR OUT.tar.gz"
BUILD=$(cd "$1" && pwd)
DEB_DIR=$(cd "$2" && pwd)
OUT=$3
SRC=$(cd "$(dirname "$0")/.." && pwd)
SYSROOT=$BUILD/sysroot
DEBS=${PZ_DEB_CACHE:-$SYSROOT.debs} # where make-sysroot-arm64.sh keeps the .debs
ROOT=$BUILD/image-rootfs
VERSION=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
DEB=$DEB_DIR/portzero_${VERSION}_arm64.deb
[ -f "$SYSROOT/.complete" ] || die "no sysroot in $SYSROOT (make cross assembles it)"
[ -f "$DEB" ] || die "no $DEB (make deb builds it)"

# 1. The package's tree.
rm -rf "$ROOT"
mkdir -p "$ROOT"
dpkg-deb -x "$DEB" "$ROOT"
if [ -d "$ROOT/lib" ] && [ ! -L "$ROOT/lib" ]; then
    mkdir -p "$ROOT/usr/lib"
    cp -a "$ROOT/lib/." "$ROOT/usr/lib/"
    rm -rf "${ROOT:?}/lib"
fi

# 2. debian-packages.txt: the package's Depends, resolved to the arm64 library
#    packages of the sysroot's cache (the exact version there) and followed
#    through those packages' own Depends; libc6 and libgcc-s1 (the cross
#    toolchain's C library, not unpacked into the sysroot) in apt's version.
#    The sonames of each package are its .deb's; image-check then checks that
#    every NEEDED soname of the image is among them.
declare -A deb_file=() # package -> its .deb in the cache
while read -r deb; do deb_file[${deb%%_*}]=$DEBS/$deb; done < <(sed -n '3,$p' "$SYSROOT/.complete")
pkg_version() { # pkg_version PACKAGE: the arm64 candidate version apt knows
    apt-cache policy "$1:arm64" 2> /dev/null | awk '/^ *Candidate:/ { print $2; exit }'
}
dep_names() { # dep_names DEPENDS-FIELD: the first alternative of each dependency
    tr ',' '\n' <<< "$1" | sed -E 's/^ *//; s/[ (|].*//; s/:any$//' | sed '/^$/d'
}
is_lib() { [ -n "${deb_file[$1]:-}" ] || [ "$1" = libc6 ] || [ "$1" = libgcc-s1 ]; }
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
declare -A want=()
others=
queue=()
for p in $(dep_names "$DEPENDS"); do
    if is_lib "$p"; then queue+=("$p"); else others+="$p "; fi
done
while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    [ -n "${want[$p]:-}" ] && continue
    want[$p]=1
    [ -n "${deb_file[$p]:-}" ] || continue
    for d in $(dep_names "$(dpkg-deb -f "${deb_file[$p]}" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr '\n' ',')"); do
        is_lib "$d" && queue+=("$d")
    done
done
base_deb() { # base_deb PACKAGE: its arm64 .deb: the sysroot's, or libc6/libgcc-s1 from the cache
    if [ -n "${deb_file[$1]:-}" ]; then
        echo "${deb_file[$1]}"
        return 0
    fi
    local ver f
    ver=$(pkg_version "$1")
    f=$DEBS/${1}_${ver//:/%3a}_arm64.deb
    [ -f "$f" ] || die "no $f (scripts/make-deb.sh arm64 downloads it)"
    echo "$f"
}
sonames_of() { # sonames_of PACKAGE: the sonames its arm64 .deb ships
    dpkg-deb -c "$(base_deb "$1")" | awk '{ print $6 }' | sed -n 's#.*/\([^/]*\.so\.[^/]*\)$#\1#p' |
        sort -u | tr '\n' ' '
}
list=$ROOT/usr/share/portzero/debian-packages.txt
mkdir -p "$(dirname "$list")"
{
    echo "# The Debian arm64 (bookworm) packages this image needs on its base: the"
    echo "# Depends of portzero_${VERSION}_arm64.deb, whose files the image is,"
    echo "# Depends: $DEPENDS"
    [ -z "$others" ] || echo "# (not libraries, so not listed below: ${others% })"
    echo "# and the library packages they resolve to, their own library dependencies"
    echo "# included: package version sonames"
    for pkg in $(printf '%s\n' "${!want[@]}" | sort); do
        f=$(base_deb "$pkg")
        ver=$(dpkg-deb -f "$f" Version)
        sonames=$(sonames_of "$pkg")
        echo "$pkg $ver ${sonames% }"
    done
} > "$list"

# 3. The manifest: every entry of the tree but the manifest itself.
manifest=$ROOT/usr/share/portzero/MANIFEST
{
    echo "# type mode size sha256 path (every entry of the image but this file;"
    echo "# d directory, f file, l symlink: size and sha256 of the link text)"
    (cd "$ROOT" && find . -mindepth 1 ! -path ./usr/share/portzero/MANIFEST -print0 | LC_ALL=C sort -z) |
        while IFS= read -r -d '' p; do
            f=$ROOT/${p#./}
            if [ -L "$f" ]; then
                t=$(readlink "$f")
                printf 'l 0777 %d %s /%s -> %s\n' "${#t}" "$(printf '%s' "$t" | sha256sum | cut -d' ' -f1)" "${p#./}" "$t"
            elif [ -d "$f" ]; then
                printf 'd %04o - - /%s\n' "0$(stat -c %a "$f")" "${p#./}"
            else
                printf 'f %04o %d %s /%s\n' "0$(stat -c %a "$f")" "$(stat -c %s "$f")" \
                    "$(sha256sum < "$f" | cut -d' ' -f1)" "${p#./}"
            fi
        done
} > "$manifest"

# 4. The tarball.
epoch=$(git -C "$SRC" log -1 --format=%ct 2> /dev/null || echo 0)
mkdir -p "$(dirname "$OUT")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$ROOT" -cf - . |
    gzip -n -9 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "$OUT: $(grep -c '^f ' "$manifest") files, $(du -k "$OUT" | cut -f1) KiB;" \
    "Debian base packages: $(grep -vc '^#' "$list") (usr/share/portzero/debian-packages.txt)"
