# check_lib.sh - the check lines every shell test prints, shared by the
# harnesses (tests/integration/lib.sh, tests/fabric/fabric_lib.sh,
# tests/agent/agent_lib.sh); source it, do not run it.
#
#   check NAME COMMAND...          "ok   NAME" if COMMAND succeeds, else "FAIL NAME"
#   check_eq NAME WANT GOT         equal strings, else FAIL with both
#   check_files NAME WANT GOT      equal files, else FAIL with a diff
#   note TEXT...                   an informational line
#   checks_finish                  "N passed, M failed"; non-zero status on a failure
#   abspath PATH                   PATH made absolute
#
# Counts go to $passes and $failures. With PZT_TIMING=1 every ok line ends
# with the seconds since the script started.

# PZT_PRELOAD: what every umad2sim client of a test preloads, as pz-attach
# does: Debian's libumad2sim.so, then libpzumad2sim.so (attach/), the
# product's repair, whose path CTest passes as $PZ_UMAD2SIM_FIX.
# pzt_require_preload: exit 77 (skip) without ibsim-utils, 1 without the repair.
PZT_UMAD2SIM_STOCK=${PZ_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
PZT_PRELOAD="$PZT_UMAD2SIM_STOCK ${PZ_UMAD2SIM_FIX:-}"

pzt_require_preload() {
    if [ ! -f "$PZT_UMAD2SIM_STOCK" ]; then
        echo "SKIP: $PZT_UMAD2SIM_STOCK missing (ibsim-utils)"
        exit 77
    fi
    if [ ! -f "${PZ_UMAD2SIM_FIX:-}" ]; then
        echo "FAIL: PZ_UMAD2SIM_FIX='${PZ_UMAD2SIM_FIX:-}' is not libpzumad2sim.so (run through ctest)"
        exit 1
    fi
}

passes=${passes:-0}
failures=${failures:-0}

abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

pzt_t() { [ -z "${PZT_TIMING:-}" ] || echo " [${SECONDS}s]"; }

check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then
        echo "ok   $name$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $name"
        failures=$((failures + 1))
    fi
}

check_eq() { # check_eq NAME WANT GOT
    if [ "$2" = "$3" ]; then
        echo "ok   $1$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $1"
        echo "     want: $2"
        echo "     got:  $3"
        failures=$((failures + 1))
    fi
}

check_files() { # check_files NAME WANT_FILE GOT_FILE
    if cmp -s "$2" "$3"; then
        echo "ok   $1$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $1"
        diff "$2" "$3" | head -n 20 | sed 's/^/     /' || true # diff exits 1: not fatal under set -e/pipefail
        failures=$((failures + 1))
    fi
}

note() { echo "note $*"; }

checks_finish() {
    echo "$passes passed, $failures failed"
    [ "$failures" = 0 ]
}
