# shellcheck shell=bash
# agent_ip_lib.sh - the six-agent IP set-up shared by the IP-plane tests of
# tests/agent (test_agent_ip.sh, test_agent_iperf.sh, test_agent_traffic.sh):
# pzfabric on the fat tree ft-2s4l with every switch served by its own
# portzerod (board/sim, an IPoIB address, a control socket), OpenSM
# -R ftree --connect_roots at Hca1, and the emulated IP host (pz-iphost) in a
# network namespace of the test's own.  Source it (it sources
# ../fabric/fabric_lib.sh, whose fl_*, ctl, diag, counter come with it).
#
#   ai_init NAME PREFIX PZFABRIC PZFABRIC_CTL PZ_IPHOST PORTZEROD PZ_CLI
#                         work directory, tools, SWITCHES, ADDR[switch] =
#                         PREFIX.1..6, namespace $NS, cleanup on exit
#   AI_AGENT_FLAGS        portzerod's extra flags (default -v)
#   AI_AGENT_EXTRA[SW]    more flags for switch SW only (e.g. its SNMP agent)
#   AI_CLI_TIMEOUT        pz-cli's -t (default 60 s)
#   AI_OSM_OPTIONS=(...)  more OpenSM options (after -R ftree --connect_roots)
#   AI_PIDS+=(pid)        more processes stopped by PID on exit (first)
#   ai_start_all          fabric, six agents (ready), OpenSM (SUBNET UP),
#                         every switch joined; returns 1 when the fabric or
#                         the SM does not come up
#   ai_start_host ADDRESS/LEN [CA]  pz-iphost on CA (default Hca3) in $NS; ready
#   start_agent SWITCH    portzerod for SWITCH (its PID in AGENT[SWITCH])
#   cli SWITCH COMMAND... pz-cli on SWITCH's control socket
#   in_ns COMMAND...      COMMAND in the host's namespace (not for `&`: the
#                         background copy of a function is a subshell that
#                         stop_pid cannot stop; use `ip netns exec "$NS"`)
#   joined SWITCH         SWITCH's `show ip` says IPoIB state up

# shellcheck source=../fabric/fabric_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fabric/fabric_lib.sh"

SWITCHES=(Spine1 Spine2 Leaf1 Leaf2 Leaf3 Leaf4)
declare -A ADDR AGENT AI_AGENT_EXTRA
AI_AGENT_FLAGS=${AI_AGENT_FLAGS:--v}
AI_CLI_TIMEOUT=${AI_CLI_TIMEOUT:-60}
AI_PIDS=()
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
    for i in "${!SWITCHES[@]}"; do ADDR[${SWITCHES[$i]}]="$2.$((i + 1))"; done
    NS="pzt-$$-$1"
    trap ai_cleanup EXIT
}

# ai_cleanup: every process of the set-up stopped by PID, the namespace
# deleted, then fabric_lib's cleanup (OpenSM, pzfabric, $WORK).
ai_cleanup() {
    local rc=$? s p
    for p in "${AI_PIDS[@]}"; do stop_pid "$p"; done
    [ -z "$HOST_PID" ] || stop_pid "$HOST_PID"
    for s in "${SWITCHES[@]}"; do
        [ -z "${AGENT[$s]:-}" ] || stop_pid "${AGENT[$s]}"
    done
    [ -z "$NS" ] || ip netns delete "$NS" 2> /dev/null
    (exit "$rc")
    fl_cleanup
}

# start_agent SWITCH: portzerod serving SWITCH with its address and control socket.
start_agent() {
    local s=$1
    mkdir -p "$WORK/$s"
    # shellcheck disable=SC2086 # AI_AGENT_FLAGS and AI_AGENT_EXTRA are lists of flags
    (cd "$WORK/$s" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$s IBSIM_SOCKNAME=$SOCK exec "$PORTZEROD" \
        -o board=sim -o "ip_address=${ADDR[$s]}/24" -o "ctl_socket=$WORK/$s/ctl" $AI_AGENT_FLAGS \
        ${AI_AGENT_EXTRA[$s]:-} >> "$WORK/$s/out" 2>> "$WORK/$s/err" < /dev/null) &
    AGENT[$s]=$!
}

cli() { local s=$1; shift; "$PZCLI" -s "$WORK/$s/ctl" -t "$AI_CLI_TIMEOUT" "$@"; } # cli SWITCH COMMAND...
in_ns() { ip netns exec "$NS" "$@"; }
joined() { cli "$1" show ip 2> /dev/null | grep -q '^IPoIB state *up'; }

ai_start_all() { # ai_start_all: fabric, agents, OpenSM, joins
    local s all=()
    for s in "${SWITCHES[@]}"; do all+=(--agent "$s"); done
    fl_start_fabric "${all[@]}" "$NET" || return 1
    for s in "${SWITCHES[@]}"; do start_agent "$s"; done
    for s in "${SWITCHES[@]}"; do
        check "$s: portzerod ready" wait_file "$WORK/$s/out" 20 '^ready$' "${AGENT[$s]}"
    done
    fl_start_opensm Hca1 "${AI_OSM_OPTIONS[@]}"
    fl_wait_up 60 || { echo "OpenSM never reached SUBNET UP"; return 1; }
    for s in "${SWITCHES[@]}"; do
        check "$s joins the broadcast group (show ip: up)" wait_until 30 joined "$s"
    done
}

ai_start_host() { # ai_start_host ADDRESS/LEN [CA]
    "$PZIPHOST" --sockname "$SOCK" --ca "${2:-Hca3}" --address "$1" --netns "$NS" -v \
        > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
    HOST_PID=$!
    check "pz-iphost joins (ready)" wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID"
}
