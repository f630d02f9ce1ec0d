#!/bin/bash
# check_no_globals.sh - the libraries that must hold no mutable global state
# (sma/, board/, later pma/) define no objects in writable sections: .data,
# .bss, common, thread-local.  .data.rel.ro (const tables of function
# pointers) is read-only once relocated and allowed.
set -euo pipefail

OBJDUMP=${OBJDUMP:-objdump}
status=0
for lib in "$@"; do
    found=$("$OBJDUMP" -t "$lib" |
        awk '$NF != "" && ($(NF-2) ~ /^\.(data|bss|tdata|tbss)(\.|$)/ || $(NF-2) == "*COM*") &&
             $(NF-2) !~ /^\.data\.rel\.ro/ && $(NF-3) == "O" { print $NF " in " $(NF-2) }' || true)
    if [ -n "$found" ]; then
        echo "FAIL $lib has mutable globals:"
        echo "$found"
        status=1
    else
        echo "ok   $lib"
    fi
done
exit $status
