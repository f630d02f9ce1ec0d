#!/bin/bash
# check_includes.sh - every folder's README says what the folder may call
# ("May call: ..." up to "Called by:" or the end of the paragraph); each
# `#include "x.h"` of a folder's C files must name a header of that folder or
# of a folder its "May call" line names (`board/`, `mad/sa_query`, ...).
# Headers outside the tree (libraries, <...>) are not checked.  A README that
# may call "everything" (tests/) is not checked.
# Usage: check_includes.sh SOURCE_DIR
set -euo pipefail

src=${1:?usage: check_includes.sh SOURCE_DIR}
cd "$src"

# The top-level folders of the tree (no build trees).
folders=$(find . -mindepth 2 -maxdepth 2 -name README.md -printf '%h\n' | sed 's|^\./||' |
    grep -v '^build' | sort)

# Which folder owns header $1 (its basename); empty when it is not the tree's.
declare -A owner
while IFS= read -r h; do
    owner[$(basename "$h")]=${h%%/*}
done < <(find $folders -name '*.h' -printf '%p\n')

# The folders that $1's README's "May call" paragraph names.
may_call() {
    awk '/May call:/ { on = 1 } on && /^$/ { exit } on { print } on && /Called by:/ { exit }' \
        "$1/README.md" | sed 's/Called by:.*//' | { grep -o '[a-z_]*/' || true; } | tr -d / | sort -u
}

status=0
for d in $folders; do
    grep -q 'May call:' "$d/README.md" || continue
    if awk '/May call:/ { print; exit }' "$d/README.md" | grep -q 'May call: everything'; then
        continue
    fi
    allowed=" $d $(may_call "$d" | tr '\n' ' ') "
    bad=0
    while IFS=: read -r file _ line; do
        h=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<< "$line")
        o=${owner[$(basename "$h")]:-}
        [ -n "$o" ] || continue
        case "$allowed" in
        *" $o "*) ;;
        *)
            echo "FAIL $file includes $h ($o/), which $d/README.md's \"May call\" does not name"
            bad=1
            ;;
        esac
    done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$d" || true)
    if [ $bad -eq 0 ]; then
        echo "ok   $d may call:$allowed"
    else
        status=1
    fi
done
exit $status
