#!/usr/bin/env bash
# Assemble the aarch64 switch image from the cross build (make image).
#
# Usage: scripts/make-image.sh BUILD_DIR OUT.tar.gz
#   BUILD_DIR  the aarch64 build (build-arm64), configured with toolchain.cmake;
#              its sysroot is BUILD_DIR/sysroot (scripts/make-sysroot-arm64.sh)
#
# The tree (BUILD_DIR/image-rootfs, rebuilt each time) is what
# `cmake --install BUILD_DIR --component image` puts there (image/CMakeLists.txt),
# with the ELF files stripped, plus three generated files:
#   /etc/portzero/portzero.conf           image/portzero.conf.head + every key of
#                                         `portzerod --help` as a commented default
#   /usr/share/portzero/debian-packages.txt  the Debian arm64 packages (name, version,
#                                         sonames) the image's ELF files need from the
#                                         base, their library dependencies included
#   /usr/share/portzero/MANIFEST          every entry: type, mode, size, sha256, path
# The tarball is reproducible: sorted, owner root, mtime of the last commit.
set -euo pipefail

TRIPLET=aarch64-linux-gnu
CROSS_LIBC=/usr/$TRIPLET
die() {
    echo "make-image: error: $*" >&2
    exit 1
}
log() { echo "make-image: $*"; }

[ $# -eq 2 ] || die "usage: $0 BUILD_DIR OUT.tar.gz"
BUILD=$(cd "$1" && pwd)
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
SYSROOT=$BUILD/sysroot
SYSLIB=$SYSROOT/usr/lib/$TRIPLET
DEBS=${PZ_DEB_CACHE:-$SYSROOT.debs} # where make-sysroot-arm64.sh keeps the .debs
ROOT=$BUILD/image-rootfs
READELF=${TRIPLET}-readelf
STRIP=${TRIPLET}-strip
[ -f "$SYSROOT/.complete" ] || die "no sysroot in $SYSROOT (make cross assembles it)"
[ -x "$BUILD/bin/portzerod" ] || die "no $BUILD/bin/portzerod (make cross builds it)"

# 1. The installed tree.
rm -rf "$ROOT"
mkdir -p "$ROOT"
DESTDIR=$ROOT cmake --install "$BUILD" --component image > /dev/null
while IFS= read -r -d '' f; do
    if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        "$STRIP" --strip-unneeded "$f"
    fi
done < <(find "$ROOT" -type f -print0)

# 2. portzero.conf: the image's settings, then every key commented out with
#    its default, from the daemon's own key table (portzerod --help, run
#    under qemu-aarch64), so the file cannot fall behind the code.
conf=$ROOT/etc/portzero/portzero.conf
mkdir -p "$(dirname "$conf")"
cp "$SRC/image/portzero.conf.head" "$conf"
set_keys=$(sed -n -E 's/^([a-z0-9_]+) *=.*/\1/p' "$conf" | tr '\n' ' ')
qemu-aarch64 -L "$CROSS_LIBC" -E "LD_LIBRARY_PATH=$SYSLIB" "$ROOT/usr/sbin/portzerod" --help 2>&1 |
    awk -v set=" $set_keys" '
    /^  [a-z0-9_]+ = / {
        key = $1
        spec = substr($0, index($0, "= ") + 2)
        def = spec
        sub(/.*\(default: /, "", def)
        sub(/\)$/, "", def)
        sub(/ \(default: .*\)$/, "", spec)
        if (def == "empty") def = ""
        next
    }
    /^      / && key != "" {
        help = $0
        sub(/^ +/, "", help)
        printf "#\n# %s: %s\n#   %s\n", key, help, spec
        if (index(set, " " key " ")) printf "#   (set above)\n"
        else if (def == "") printf "#%s =\n", key
        else printf "#%s = %s\n", key, def
        key = ""
    }' >> "$conf"
grep -q '^#num_ports = 36$' "$conf" || die "portzerod --help gave no key list (see $conf)"

# 3. The Debian packages behind every NEEDED soname, followed through the
#    libraries' own NEEDED. A soname is found in the sysroot (its .deb is
#    known from the sysroot's package list) or in the cross toolchain's C
#    library (Debian package libc6, or libgcc-s1 for libgcc_s).
declare -A deb_of=() # soname -> package (from the unpacked .debs)
while read -r deb; do
    pkg=${deb%%_*}
    while read -r path; do
        name=${path##*/}
        case "$name" in *.so.*) deb_of[$name]=$pkg ;; esac
    done < <(dpkg-deb -c "$DEBS/$deb" | awk '{ print $6 }')
done < <(sed -n '3,$p' "$SYSROOT/.complete")
pkg_version() { # pkg_version PACKAGE: the arm64 candidate version apt knows
    apt-cache policy "$1:arm64" 2> /dev/null | awk '/^ *Candidate:/ { print $2; exit }'
}
needed_of() { "$READELF" -d "$1" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
lib_path() { # lib_path SONAME: the library file in the sysroot or the cross libc
    local d
    for d in "$SYSLIB" "$CROSS_LIBC/lib"; do
        [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
declare -A pkg_of=() # soname -> package, the closure
queue=()
while IFS= read -r -d '' f; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    for so in $(needed_of "$f"); do queue+=("$so"); done
    interp=$("$READELF" -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
    [ -z "$interp" ] || queue+=("${interp##*/}")
done < <(find "$ROOT" -type f -print0)
while [ ${#queue[@]} -gt 0 ]; do
    so=${queue[0]}
    queue=("${queue[@]:1}")
    [ -n "${pkg_of[$so]:-}" ] && continue
    [ -e "$ROOT/usr/lib/$TRIPLET/$so" ] && continue # shipped in the image
    if [ -n "${deb_of[$so]:-}" ]; then
        pkg_of[$so]=${deb_of[$so]}
    elif [ -e "$CROSS_LIBC/lib/$so" ]; then
        case "$so" in libgcc_s.so.*) pkg_of[$so]=libgcc-s1 ;; *) pkg_of[$so]=libc6 ;; esac
    else
        die "no Debian package provides $so (add its -dev package to scripts/make-sysroot-arm64.sh)"
    fi
    p=$(lib_path "$so") || die "$so is not in $SYSLIB or $CROSS_LIBC/lib"
    for d in $(needed_of "$p"); do queue+=("$d"); done
done
list=$ROOT/usr/share/portzero/debian-packages.txt
mkdir -p "$(dirname "$list")"
{
    echo "# The Debian arm64 (bookworm) packages this image needs on its base: the"
    echo "# shared libraries of its ELF files, their library dependencies included."
    echo "# package version sonames"
    for pkg in $(printf '%s\n' "${pkg_of[@]}" | sort -u); do
        ver=$(pkg_version "$pkg")
        [ -n "$ver" ] && [ "$ver" != "(none)" ] || die "apt knows no $pkg:arm64"
        sonames=$(for so in "${!pkg_of[@]}"; do
            if [ "${pkg_of[$so]}" = "$pkg" ]; then echo "$so"; fi
        done | sort | tr '\n' ' ')
        echo "$pkg $ver ${sonames% }"
    done
} > "$list"

# 4. The manifest: every entry of the tree but the manifest itself.
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

# 5. The tarball.
epoch=$(git -C "$SRC" log -1 --format=%ct 2> /dev/null || echo 0)
mkdir -p "$(dirname "$OUT")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$ROOT" -cf - . |
    gzip -n -9 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "$OUT: $(grep -c '^f ' "$manifest") files, $(du -k "$OUT" | cut -f1) KiB;" \
    "Debian base packages: $(grep -vc '^#' "$list") (usr/share/portzero/debian-packages.txt)"
