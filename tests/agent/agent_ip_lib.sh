# shellcheck shell=bash
# agent_ip_lib.sh - the one harness of the IP-agent tests of tests/agent:
# pzfabric on the fat tree ft-2s4l with switches served by their own
# portzerod (board/sim, an IPoIB address, a control socket), OpenSM
# -R ftree --connect_roots at Hca1, and the emulated IP host (pz-iphost) in a
# network namespace of the test's own.  Six-agent mode (test_agent_ip.sh,
# test_agent_iperf.sh, test_agent_traffic.sh, test_agent_reach.sh): every
# switch has an agent; single-agent mode (the SNMP and SSH agent tests): one
# switch has.  Source it (it sources ../fabric/fabric_lib.sh, whose fl_*, ctl,
# diag, counter come with it).
#
#   ai_init NAME PREFIX PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
#                         six-agent mode: work directory, tools, SWITCHES,
#                         ADDR[switch] = PREFIX.1..6 (directory $WORK/SWITCH),
#                         namespace $NS, cleanup on exit
#   ai_init_one NAME PZFABRIC PZFABRIC_CTL
#                         single-agent mode: work directory, namespace $NS,
#                         cleanup on exit (the test sets PZIPHOST, PORTZEROD,
#                         PZCLI with pzt_paths); then
#   ai_switch SWITCH ADDRESS  the one agent's switch and address: SW, SWADDR,
#                         SWITCHES=(SWITCH), its directory $WORK/agent
#   AI_AGENT_FLAGS        portzerod's extra flags (default -v)
#   AI_AGENT_EXTRA[SW]    more flags for switch SW only (e.g. its SNMP agent)
#   AI_AGENT_ARGS=(...)   more arguments for every agent (an array: values
#                         may hold anything)
#   AI_AGENT_CMD=(...)    the agent's command instead of PORTZEROD under the
#                         preload (e.g. qemu-aarch64 with the image's
#                         portzerod, its environment in qemu's -E options):
#                         start_agent appends the same options to it
#   AI_CLEANUP=FUNCTION   a function of the test run on exit after the
#                         processes stopped, before the namespaces go
#   AI_PID_VARS=(VAR...)  names of variables holding more PIDs, stopped on
#                         exit first in this order (an empty one is skipped,
#                         so a test clears what it stopped itself)
#   AI_NETNS=(NS...)      more namespaces deleted on exit
#   AI_CLI_TIMEOUT        pz-cli's -t (default 60 s; single-agent mode 120 s)
#   AI_OSM_OPTIONS=(...)  more OpenSM options (after -R ftree --connect_roots)
#   AI_PIDS+=(pid)        more processes stopped by PID on exit (first)
#   ai_start_all          fabric, six agents (ready), OpenSM (SUBNET UP),
#                         every switch joined; returns 1 when the fabric or
#                         the SM does not come up
#   ai_start_host ADDRESS/LEN [CA [OPTION...]]  pz-iphost on CA (default
#                         Hca3) in $NS, with more pz-iphost options (such as
#                         --address6 ADDRESS/LEN); ready
#   start_agent SWITCH    portzerod for SWITCH (its PID in AGENT[SWITCH]; output
#                         appended to out and err in its directory)
#   cli SWITCH COMMAND... pz-cli on SWITCH's control socket
#   in_ns COMMAND...      COMMAND in the host's namespace (not for `&`: the
#                         background copy of a function is a subshell that
#                         stop_pid cannot stop; use `ip netns exec "$NS"`)
#   joined SWITCH         SWITCH's `show ip` says IPoIB state up
#   lid_of SWITCH         SWITCH's LID as its `show system` says
#   ai_peer_addrs SWITCH  PEERS=(the addresses of every other switch)
#   ai_matrix_start NAME ARG...  `traffic matrix ARG... PEERS` on every switch
#                         at once; outputs $WORK/NAME.SWITCH, pz-cli PIDs in MPIDS
#   ai_stop_agents        stops every running agent: exit 0 on SIGTERM, no
#                         sanitizer report (checks)

# shellcheck source=../fabric/fabric_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fabric/fabric_lib.sh"

SWITCHES=(Spine1 Spine2 Leaf1 Leaf2 Leaf3 Leaf4)
declare -A ADDR AGENT AI_AGENT_EXTRA AI_DIR
AI_AGENT_FLAGS=${AI_AGENT_FLAGS:--v}
AI_AGENT_ARGS=()
AI_AGENT_CMD=()
AI_CLEANUP=
AI_CLI_TIMEOUT=${AI_CLI_TIMEOUT:-60}
AI_PIDS=()
AI_PID_VARS=()
AI_NETNS=()
AI_OSM_OPTIONS=()
HOST_PID=
NS=

ai_init() { # ai_init NAME PREFIX PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
    local i
    PZIPHOST=$(abspath "$5") # before fl_init, which changes into $WORK
    PORTZEROD=$(abspath "$6")
    PZCLI=$(abspath "$7")
    NET=$(abspath "$(dirname "${BASH_SOURCE[0]}")/../integration/ft-2s4l.net")
    fl_init "$1" "$3" "$4"
    for i in "${!SWITCHES[@]}"; do
        ADDR[${SWITCHES[$i]}]="$2.$((i + 1))"
        AI_DIR[${SWITCHES[$i]}]="$WORK/${SWITCHES[$i]}"
    done
    NS="pzt-$$-$1"
    trap ai_cleanup EXIT
}

ai_init_one() { # ai_init_one NAME PZFABRIC PZFABRIC_CTL: single-agent mode
    SWITCHES=()
    AI_CLI_TIMEOUT=120 # pz-cli's own
    fl_init "$1" "$2" "$3"
    NS="pzt-$$-$1"
    trap ai_cleanup EXIT
}

ai_switch() { # ai_switch SWITCH ADDRESS: the one agent of single-agent mode
    SW=$1
    SWADDR=$2
    SWITCHES=("$SW")
    ADDR[$SW]=$SWADDR
    AI_DIR[$SW]="$WORK/agent"
}

# ai_cleanup: every process of the set-up stopped by PID, the namespace
# deleted, then fabric_lib's cleanup (OpenSM, pzfabric, $WORK).
ai_cleanup() {
    local rc=$? s p v
    for v in "${AI_PID_VARS[@]}"; do [ -z "${!v:-}" ] || stop_pid "${!v}"; done
    for p in "${AI_PIDS[@]}"; do stop_pid "$p"; done
    [ -z "$HOST_PID" ] || stop_pid "$HOST_PID"
    for s in "${SWITCHES[@]}"; do
        [ -z "${AGENT[$s]:-}" ] || stop_pid "${AGENT[$s]}"
    done
    [ -z "$AI_CLEANUP" ] || "$AI_CLEANUP"
    for s in "$NS" "${AI_NETNS[@]}"; do [ -z "$s" ] || ip netns delete "$s" 2> /dev/null; done
    (exit "$rc")
    fl_cleanup
}

# start_agent SWITCH: portzerod serving SWITCH with its address and control socket.
start_agent() {
    local s=$1 d=${AI_DIR[$1]}
    mkdir -p "$d"
    # shellcheck disable=SC2086 # AI_AGENT_FLAGS and AI_AGENT_EXTRA are lists of flags
    if [ ${#AI_AGENT_CMD[@]} -gt 0 ]; then
        (cd "$d" && exec "${AI_AGENT_CMD[@]}" \
            -o board=sim -o "ip_address=${ADDR[$s]}/24" -o "ctl_socket=$d/ctl" $AI_AGENT_FLAGS \
            ${AI_AGENT_EXTRA[$s]:-} "${AI_AGENT_ARGS[@]}" >> "$d/out" 2>> "$d/err" < /dev/null) &
    else
        (cd "$d" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$s IBSIM_SOCKNAME=$SOCK exec "$PORTZEROD" \
            -o board=sim -o "ip_address=${ADDR[$s]}/24" -o "ctl_socket=$d/ctl" $AI_AGENT_FLAGS \
            ${AI_AGENT_EXTRA[$s]:-} "${AI_AGENT_ARGS[@]}" >> "$d/out" 2>> "$d/err" < /dev/null) &
    fi
    AGENT[$s]=$!
}

cli() { local s=$1; shift; "$PZCLI" -s "${AI_DIR[$s]}/ctl" -t "$AI_CLI_TIMEOUT" "$@"; } # cli SWITCH COMMAND...
in_ns() { ip netns exec "$NS" "$@"; }
joined() { cli "$1" show ip 2> /dev/null | grep -q '^IPoIB state *up'; }
lid_of() { cli "$1" show system | awk '/^LID/ { print $2 }'; } # lid_of SWITCH

ai_start_all() { # ai_start_all: fabric, agents, OpenSM, joins
    local s all=()
    for s in "${SWITCHES[@]}"; do all+=(--agent "$s"); done
    fl_start_fabric "${all[@]}" "$NET" || return 1
    for s in "${SWITCHES[@]}"; do start_agent "$s"; done
    for s in "${SWITCHES[@]}"; do
        check "$s: portzerod ready" wait_file "${AI_DIR[$s]}/out" 20 '^ready$' "${AGENT[$s]}"
    done
    fl_start_opensm Hca1 "${AI_OSM_OPTIONS[@]}"
    fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; return 1; }
    for s in "${SWITCHES[@]}"; do
        check "$s joins the broadcast group (show ip: up)" wait_until 30 joined "$s"
    done
}

# ai_peer_addrs SWITCH: PEERS = the addresses of every other switch.
ai_peer_addrs() {
    local p
    PEERS=()
    for p in "${SWITCHES[@]}"; do [ "$p" = "$1" ] || PEERS+=("${ADDR[$p]}"); done
}

# ai_matrix_start NAME ARG...: `traffic matrix ARG... PEERS` on every switch at once, each to
# all the others; a switch's output in $WORK/NAME.SWITCH, the pz-cli PIDs in MPIDS.
ai_matrix_start() {
    local name=$1 s
    shift
    MPIDS=()
    for s in "${SWITCHES[@]}"; do
        ai_peer_addrs "$s"
        cli "$s" traffic matrix "$@" "${PEERS[@]}" > "$WORK/$name.$s" 2>&1 &
        MPIDS+=($!)
    done
}

# ai_stop_agents: stop every agent still running; each must exit 0 on SIGTERM and leave no
# sanitizer report (shown if it does).
ai_stop_agents() {
    local s
    for s in "${SWITCHES[@]}"; do
        [ -n "${AGENT[$s]:-}" ] || continue
        stop_pid "${AGENT[$s]}"
        AGENT[$s]=
        check_eq "$s: portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
        check "$s: no sanitizer report" bash -c "! grep -q 'Sanitizer' '${AI_DIR[$s]}/err'" ||
            grep -A 30 'Sanitizer' "${AI_DIR[$s]}/err" | head -n 60
    done
}

ai_start_host() { # ai_start_host ADDRESS/LEN [CA [OPTION...]]
    local addr=$1 ca=${2:-Hca3}
    shift
    [ $# -eq 0 ] || shift
    "$PZIPHOST" --sockname "$SOCK" --ca "$ca" --address "$addr" "$@" --netns "$NS" -v \
        > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
    HOST_PID=$!
    check "pz-iphost joins (ready)" wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID"
}
