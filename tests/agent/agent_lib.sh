# agent_lib.sh - the harness of the tests/agent scripts (source it, do not run it).
#
#   source "$(dirname "$0")/agent_lib.sh"
#   PIDS+=(pid)              stopped by PID (KILL) on exit, with $WORK removed
#   check NAME COMMAND...    one "ok   NAME" / "FAIL NAME" line
#   wait_for FILE SECONDS REGEX    until FILE has a line matching REGEX
#   diag TOOL ARGS...        an infiniband-diags tool at Hca2 of $SOCK, in its own directory
#   agent_finish             "N passed, M failed"; non-zero status on any failure

WORK=$(mktemp -d)
PIDS=()
passes=0
failures=0
# shellcheck source=../check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../check_lib.sh"
UMAD2SIM=$PZT_PRELOAD

agent_cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [ -n "${PZT_KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap agent_cleanup EXIT
pzt_require_preload


wait_for() { # wait_for FILE SECONDS REGEX
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        grep -qE "$3" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

diag() { # diag TOOL ARGS...
    local dir
    dir=$(mktemp -d -p "$WORK")
    (cd "$dir" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Hca2 IBSIM_SOCKNAME=$SOCK timeout 15 "$@")
}

agent_finish() { checks_finish; }
