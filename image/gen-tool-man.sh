#!/usr/bin/env bash
# gen-tool-man.sh - the man page of an operator tool, from its own --help
# (so it cannot fall behind the code). Run by the build (image/CMakeLists.txt,
# target pz-key-docs).
#
# Usage: gen-tool-man.sh OUT.1 VERSION NAME "WHAT IT IS" "DESCRIPTION" TOOL [ARG...]
#   TOOL [ARG...]  how to run the built tool (a cross build puts its emulator
#                  in front)
# The page: NAME, SYNOPSIS (the usage lines), DESCRIPTION, OPTIONS (the rest
# of --help, verbatim), SEE ALSO. Dated like gen-key-docs.sh's pages.
set -euo pipefail

die() {
    echo "gen-tool-man: error: $*" >&2
    exit 1
}
[ $# -ge 6 ] || die "usage: $0 OUT.1 VERSION NAME WHAT DESCRIPTION TOOL [ARG...]"
OUT=$1 VERSION=$2 NAME=$3 WHAT=$4 DESC=$5
mkdir -p "$(dirname "$OUT")" # it may run before gen-key-docs.sh, which makes it too
shift 5
HERE=$(cd "$(dirname "$0")" && pwd)
help=$("$@" --help 2>&1 || true)
grep -q "^usage: $NAME" <<< "$help" || die "$NAME --help printed no usage: $(head -n 2 <<< "$help")"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2> /dev/null || echo 0)}
DATE=$(date -u -d "@$epoch" +%Y-%m-%d)
# roff: stdin escaped for a man page (backslashes, hyphens, a leading dot or quote).
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
# The usage: the "usage:" line and the indented lines that continue it.
usage=$(awk '/^usage: / { on = 1; sub(/^usage: /, ""); print; next }
             on && /^                 / { sub(/^ +/, "    "); print; next } { on = 0 }' <<< "$help")
rest=$(awk '/^usage: / { on = 1; next } on && /^                 / { next } { on = 0; print }' <<< "$help" |
    grep -v "invalid option" || true)
{
    echo ".TH $(tr 'a-z' 'A-Z' <<< "$NAME") 1 \"$DATE\" \"portzero $VERSION\" \"User Commands\""
    echo ".SH NAME"
    echo "$NAME \\- $(roff <<< "$WHAT")"
    echo ".SH SYNOPSIS"
    echo ".nf"
    roff <<< "$usage"
    echo ".fi"
    echo ".SH DESCRIPTION"
    roff <<< "$DESC"
    if [ -n "$rest" ]; then
        echo ".SH OPTIONS"
        echo "As \\fB$(roff <<< "$NAME") \\-\\-help\\fR prints them:"
        echo ".PP"
        echo ".nf"
        roff <<< "$rest"
        echo ".fi"
    fi
    echo ".SH SEE ALSO"
    echo ".BR portzerod (8),"
    echo ".BR portzero.conf (5)"
} > "$OUT"
