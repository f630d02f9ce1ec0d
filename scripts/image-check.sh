#!/usr/bin/env bash
# Inspect the switch image (make image-check).
#
# Usage: scripts/image-check.sh IMAGE.tar.gz [SYSROOT]
#   SYSROOT  the arm64 sysroot of the build (build-arm64/sysroot): with it the
#            Debian libraries' own NEEDED entries are checked too, and the
#            image's portzerod checks its own configuration under qemu-aarch64
#
# Checks, each printed as "ok" or "FAIL":
#   - entries are owned by root; /usr/sbin/portzerod is there; the operator
#     tools of image/CMakeLists.txt are there (a missing one is only noted:
#     it may not be built on this branch yet);
#   - every ELF file is a 64-bit AArch64 one and asks for the aarch64 loader;
#   - every NEEDED soname (of the image's ELF files and, with SYSROOT, of the
#     Debian libraries they pull in) is in usr/share/portzero/debian-packages.txt
#     or shipped in the image;
#   - no symlink points outside the tree; every absolute path in the unit, the
#     init script, the udev rule and the configuration files (outside
#     comments) is in the tree or in image/base-paths.txt;
#   - the MANIFEST lists exactly the tree's entries, sizes and sha256 sums;
#   - the state directory is mode 0700;
#   - `systemd-analyze verify` passes the unit (on the host, with the image
#     laid over a copy of the host's own units: a Debian base's) and prints
#     nothing (it only warns about unknown keys);
#   - with SYSROOT: `portzerod --check-config` accepts the shipped
#     portzero.conf, and the same file with every commented default enabled.
set -uo pipefail

TRIPLET=aarch64-linux-gnu
READELF=${TRIPLET}-readelf
SRC=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=$(sed -n 's/^set(PZ_IMAGE_TOOLS \(.*\))$/\1/p' "$SRC/image/CMakeLists.txt")
BASE_LIST=$SRC/image/base-paths.txt
fails=0
oks=0

[ $# -ge 1 ] && [ $# -le 2 ] || {
    echo "usage: $0 IMAGE.tar.gz [SYSROOT]" >&2
    exit 2
}
TARBALL=$1
SYSROOT=${2:-}
[ -f "$TARBALL" ] || {
    echo "image-check: no $TARBALL (make image)" >&2
    exit 1
}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
mkdir -p "$ROOT"
tar -xzf "$TARBALL" -C "$ROOT" || exit 1

ok() {
    echo "ok   $*"
    oks=$((oks + 1))
}
fail() {
    echo "FAIL $*"
    fails=$((fails + 1))
}
# expect NAME COMMAND...: ok when COMMAND succeeds.
expect() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
needed_of() { "$READELF" -d "$1" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# Ownership and contents.
owners=$(tar --numeric-owner -tvzf "$TARBALL" | awk '{ print $2 }' | sort -u | tr '\n' ' ')
expect "every entry is owned by root (0/0): $owners" test "$owners" = "0/0 "
expect "/usr/sbin/portzerod is in the image" test -x "$ROOT/usr/sbin/portzerod"
for t in $TOOLS; do
    if [ -x "$ROOT/usr/bin/$t" ]; then
        ok "operator tool /usr/bin/$t is in the image"
    else
        echo "note $t is not in the image (its CMake target is not in this build yet)"
    fi
done
for f in etc/portzero/portzero.conf etc/portzero/snmp.conf usr/share/snmp/mibs/PORTZERO-MIB.txt \
    usr/lib/systemd/system/portzerod.service etc/init.d/portzerod usr/share/portzero/MANIFEST \
    usr/share/portzero/debian-packages.txt; do
    expect "/$f is in the image" test -s "$ROOT/$f"
done
expect "the state directory /var/lib/portzero is mode 0700" \
    test "$(stat -c %a "$ROOT/var/lib/portzero" 2> /dev/null)" = 700

# ELF files: architecture, loader, NEEDED sonames.
LIST=$ROOT/usr/share/portzero/debian-packages.txt
declare -A listed=()
for so in $(awk '!/^#/ { for (i = 3; i <= NF; i++) print $i }' "$LIST"); do listed[$so]=1; done
elfs=0
declare -A want=()
while IFS= read -r -d '' f; do
    is_elf "$f" || continue
    elfs=$((elfs + 1))
    rel=/${f#"$ROOT"/}
    hdr=$("$READELF" -h "$f")
    expect "$rel: ELF64 AArch64" bash -c \
        'grep -q "Class: *ELF64" <<< "$1" && grep -q "Machine: *AArch64" <<< "$1"' _ "$hdr"
    interp=$("$READELF" -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
    if [ -n "$interp" ]; then
        expect "$rel: loader $interp" test "$interp" = /lib/ld-linux-aarch64.so.1
    fi
    for so in $(needed_of "$f"); do want[$so]="${want[$so]:-}$rel "; done
done < <(find "$ROOT" -type f -print0)
expect "the image has ELF files ($elfs)" test "$elfs" -gt 0
# With the sysroot, follow the Debian libraries' own NEEDED entries.
if [ -n "$SYSROOT" ]; then
    queue=("${!want[@]}")
    declare -A done_so=()
    while [ ${#queue[@]} -gt 0 ]; do
        so=${queue[0]}
        queue=("${queue[@]:1}")
        [ -n "${done_so[$so]:-}" ] && continue
        done_so[$so]=1
        for d in "$SYSROOT/usr/lib/$TRIPLET" "/usr/$TRIPLET/lib"; do
            [ -e "$d/$so" ] || continue
            for n in $(needed_of "$d/$so"); do
                want[$n]="${want[$n]:-}$so "
                queue+=("$n")
            done
            break
        done
    done
fi
missing=
for so in "${!want[@]}"; do
    [ -n "${listed[$so]:-}" ] && continue
    [ -e "$ROOT/usr/lib/$TRIPLET/$so" ] && continue
    missing+="$so (needed by ${want[$so]% }); "
done
expect "every NEEDED soname (${#want[@]}) is in debian-packages.txt or the image${missing:+: missing $missing}" \
    test -z "$missing"

# Symlinks stay inside the tree.
outside=
while IFS= read -r -d '' l; do
    t=$(readlink "$l")
    case "$t" in
    /*) target=$ROOT$t ;;
    *) target=$(dirname "$l")/$t ;;
    esac
    case "$(realpath -m "$target")" in
    "$ROOT" | "$ROOT"/*) [ -e "$target" ] || outside+="/${l#"$ROOT"/} -> $t (dangling) " ;;
    *) outside+="/${l#"$ROOT"/} -> $t " ;;
    esac
done < <(find "$ROOT" -type l -print0)
expect "no symlink points outside the tree${outside:+: $outside}" test -z "$outside"

# Absolute paths named by the unit, the init script, the udev rule and the configuration.
in_base() { # in_base PATH: listed in base-paths.txt (exactly, or below a "dir/" entry)
    local p
    while read -r p _; do
        case "$p" in
        '' | '#'*) continue ;;
        */) case "$1/" in "$p"*) return 0 ;; esac ;;
        *) [ "$1" = "$p" ] && return 0 ;;
        esac
    done < "$BASE_LIST"
    return 1
}
for f in usr/lib/systemd/system/portzerod.service etc/init.d/portzerod etc/default/portzerod \
    usr/lib/udev/rules.d/60-portzero-umad.rules etc/portzero/portzero.conf; do
    [ -f "$ROOT/$f" ] || continue
    bad=
    n=0
    # Lines that are not comments (the shebang is a reference too).
    for p in $(grep -vE '^[[:space:]]*#([^!]|$)' "$ROOT/$f" |
        grep -oE '(^|[^A-Za-z0-9_.$-])/[A-Za-z0-9_./-]*[A-Za-z0-9_/-]' | sed 's#^[^/]*##' | sort -u); do
        n=$((n + 1))
        q=${p%/}
        [ -e "$ROOT$q" ] || [ -L "$ROOT$q" ] || in_base "$q" || bad+="$p "
    done
    expect "/$f: its $n absolute paths are in the tree or image/base-paths.txt${bad:+ (not: $bad)}" \
        test -z "$bad"
done

# The manifest against the tree.
MAN=$ROOT/usr/share/portzero/MANIFEST
actual=$(cd "$ROOT" && find . -mindepth 1 ! -path ./usr/share/portzero/MANIFEST -print0 | LC_ALL=C sort -z |
    while IFS= read -r -d '' p; do
        f=$ROOT/${p#./}
        if [ -L "$f" ]; then
            echo "l /${p#./}"
        elif [ -d "$f" ]; then
            printf 'd %04o /%s\n' "0$(stat -c %a "$f")" "${p#./}"
        else
            printf 'f %04o %d %s /%s\n' "0$(stat -c %a "$f")" "$(stat -c %s "$f")" \
                "$(sha256sum < "$f" | cut -d' ' -f1)" "${p#./}"
        fi
    done)
listed_man=$(awk '!/^#/ { if ($1 == "d") print $1, $2, $5; else if ($1 == "l") print $1, $5; else print $1, $2, $3, $4, $5 }' "$MAN")
if [ "$actual" = "$listed_man" ]; then
    ok "MANIFEST lists every entry of the tree with its size and sha256 ($(grep -c '^f ' "$MAN") files)"
else
    fail "MANIFEST differs from the tree:"
    diff <(echo "$listed_man") <(echo "$actual") | head -n 20
fi

# The systemd unit, verified by the host's systemd.
if command -v systemd-analyze > /dev/null; then
    VROOT=$WORK/verify
    mkdir -p "$VROOT/usr/lib/systemd/system"
    cp -a /usr/lib/systemd/system/. "$VROOT/usr/lib/systemd/system/" 2> /dev/null
    cp -a "$ROOT/." "$VROOT/"
    unit_verifies() { # exit 0 and no output
        systemd-analyze verify --root="$VROOT" portzerod.service > "$WORK/verify.out" 2>&1 &&
            ! test -s "$WORK/verify.out"
    }
    expect "systemd-analyze verify portzerod.service: no complaint" unit_verifies
    [ ! -s "$WORK/verify.out" ] || cat "$WORK/verify.out"
else
    echo "note systemd-analyze is not installed: the unit is not verified"
fi

# The shipped configuration, checked by the image's own portzerod.
if [ -n "$SYSROOT" ] && command -v qemu-aarch64 > /dev/null; then
    run_pz() {
        qemu-aarch64 -L "/usr/$TRIPLET" -E "LD_LIBRARY_PATH=$SYSROOT/usr/lib/$TRIPLET" \
            "$ROOT/usr/sbin/portzerod" "$@"
    }
    check_conf() { run_pz -c "$1" --check-config > "$2" 2>&1; } # check_conf CONF OUT
    # (the config's own paths are the switch's: state_dir and the rest are only parsed)
    expect "portzerod --check-config accepts /etc/portzero/portzero.conf" \
        check_conf "$ROOT/etc/portzero/portzero.conf" "$WORK/check1.out"
    # (the key list starts after the line "# Every key, ...")
    awk '/^# Every key/ { on = 1 } on && /^#[a-z0-9_]+ =/ { sub(/^#/, "") } { print }' \
        "$ROOT/etc/portzero/portzero.conf" > "$WORK/all.conf"
    enabled=$(grep -cE '^[a-z0-9_]+ =' "$WORK/all.conf")
    expect "... and the same file with every commented default enabled ($enabled keys)" \
        check_conf "$WORK/all.conf" "$WORK/check2.out"
    [ "$fails" = 0 ] || tail -n 3 "$WORK/check1.out" "$WORK/check2.out"
fi

echo "image-check: $oks passed, $fails failed"
[ "$fails" = 0 ]
