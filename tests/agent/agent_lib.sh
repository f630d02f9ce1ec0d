# agent_lib.sh - the harness of the tests/agent scripts (source it, do not run it).
#
#   source "$(dirname "$0")/agent_lib.sh"
#   PIDS+=(pid)              stopped by PID (KILL) on exit, with $WORK removed
#   agent_diag TOOL ARGS...  an infiniband-diags tool at Hca2 of $SOCK, in its own directory
#   agent_start_opensm SOCK DIR [OPTION]...  OpenSM at Hca1 of fabric SOCK
#                            (-R ftree --connect_roots), files under DIR, log DIR/osm.log
#   agent_start_spine1 NET   in $WORK: pzfabric on $SOCK (NET, Spine1 external) and a
#                            portzerod (board = sim) serving Spine1, both checked ready
#                            (uses $PZFABRIC, $PORTZEROD)
#   agent_finish             "N passed, M failed"; non-zero status on any failure
#
# The checks, wait_file, stop_pid and the rest come from tests/lib.sh.

WORK=$(mktemp -d)
PIDS=()
passes=0
failures=0
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
UMAD2SIM=$PZT_PRELOAD # the name the agent tests use

agent_cleanup() {
    local rc=$?
    [ ${#PIDS[@]} = 0 ] || PZT_GRACE=0 stop_pid "${PIDS[@]}"
    pzt_cleanup_work 0
    exit "$rc"
}
trap agent_cleanup EXIT
pzt_require_preload

agent_diag() { pzt_diag "$SOCK" Hca2 '' 15 "$@"; } # agent_diag TOOL ARGS...

agent_start_opensm() { # agent_start_opensm SOCK DIR [OPTION]...
    pzt_start_opensm "$2" "$1" Hca1 -R ftree --connect_roots "${@:3}"
    PIDS+=("$PZT_OSM_PID")
}

agent_start_spine1() { # agent_start_spine1 NET
    "$PZFABRIC" --sockname "$SOCK" --agent Spine1 "$1" > fabric.out 2> fabric.err &
    PIDS+=($!)
    check "pzfabric ready" wait_file fabric.out 10 '^ready$'
    mkdir agent
    (cd agent && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME=$SOCK \
        exec "$PORTZEROD" -o board=sim > ../agent.out 2> ../agent.err) &
    PIDS+=($!)
    check "portzerod ready" wait_file agent.out 10 '^ready$'
}

agent_finish() { checks_finish; }
