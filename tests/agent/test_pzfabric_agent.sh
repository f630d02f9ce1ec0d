#!/bin/bash
# test_pzfabric_agent.sh - one external portzerod serves a spine switch of
# pzfabric: OpenSM reaches SUBNET UP, smpquery of that
# switch is answered by the process (and only by it), killing it makes the
# switch unreachable without hurting pzfabric, restarting it restores it.
# TRANSPORT (mad_transport: auto, the default, carries the MADs over the
# board/sim connection; umad through umad2sim, the path of hardware and
# ibsim) says how the agent's MADs travel; both must give the same answers.
# BUSY_US (default 0) runs pzfabric --busy-poll and portzerod busy_poll_us
# with it: the same answers, and both say they poll.
set -uo pipefail

PZFABRIC=${1:?usage: test_pzfabric_agent.sh PZFABRIC PORTZEROD NETFILE [TRANSPORT]}
PORTZEROD=${2:?}
NET=${3:?}
TRANSPORT=${4:-auto}
BUSY_US=${5:-0}
source "$(dirname "$0")/agent_lib.sh"
SOCK="pzagent$$"

# start_agent OUT ERR: portzerod taking over Spine1; sets AGENT.
start_agent() {
    mkdir -p "$WORK/agent"
    (cd "$WORK/agent" && LD_PRELOAD=$UMAD2SIM SIM_HOST=Spine1 IBSIM_SOCKNAME=$SOCK \
        exec "$PORTZEROD" -o board=sim -o mad_transport="$TRANSPORT" -o busy_poll_us="$BUSY_US" -vvv > "$1" 2> "$2") &
    AGENT=$!
    PIDS+=("$AGENT")
}

cd "$WORK"
if [ "$BUSY_US" -gt 0 ]; then
    # refused: pzfabric OPTION... exits 2 and names the option.
    refused() {
        local rc=0
        "$PZFABRIC" --sockname "$SOCK" "$@" "$NET" > bad.out 2> bad.err || rc=$?
        [ "$rc" = 2 ] && grep -q "^pzfabric: $1 $2: expected 0..10000" bad.err
    }
    check "pzfabric --busy-poll 10001 refused" refused --busy-poll 10001
    check "pzfabric --busy-poll -5 refused" refused --busy-poll -5
    check "pzfabric --busy-poll 2x refused" refused --busy-poll 2x
fi
"$PZFABRIC" --sockname "$SOCK" --agent Spine1 --busy-poll "$BUSY_US" -v "$NET" > fabric.out 2> fabric.err &
FABRIC=$!
PIDS+=("$FABRIC")
check "pzfabric ready" wait_file fabric.out 10 '^ready$'

# Before the agent: the spine answers nothing.
agent_diag smpquery -D nodedesc 0,1,1 > pre.txt 2>&1
check "no agent: spine does not answer" bash -c "! grep -q 'Node Description' pre.txt"

start_agent "$WORK/agent1.out" "$WORK/agent1.err"
check "portzerod ready" wait_file agent1.out 10 '^ready$'
check "portzerod took the fabric's identity" grep -q 'serving SMPs as "Spine1" (8 ports' agent1.err
if [ "$TRANSPORT" = umad ]; then
    check "MADs through umad" bash -c "! grep -q 'MADs over the board/sim connection' agent1.err"
else
    check "MADs over the board/sim connection" grep -q 'MADs over the board/sim connection' agent1.err
fi
check "pzfabric: agent attached" wait_file fabric.err 5 'agent pid [0-9]+ attached to switch Spine1'
if [ "$BUSY_US" -gt 0 ]; then
    check "pzfabric busy polls" grep -q "busy polling $BUSY_US us after input" fabric.err
    check "portzerod busy polls" grep -q "busy polling $BUSY_US us after input" agent1.err
else
    check "pzfabric sleeps at once" bash -c "! grep -q 'busy polling' fabric.err"
    check "portzerod sleeps at once" bash -c "! grep -q 'busy polling' agent1.err"
fi

agent_start_opensm "$SOCK" "$WORK/sm"
check "OpenSM: SUBNET UP" wait_file sm/osm.log 40 'SUBNET UP'
check "OpenSM: no initialization errors" bash -c "! grep -q 'Errors during initialization' sm/osm.log"
check "portzerod served OpenSM's sweep" test "$(grep -c 'answered' agent1.err)" -gt 20
check "portzerod got LinearForwardingTable Sets" grep -q 'method 0x02 attr 0x0019' agent1.err

# Queries of the spine, answered by the process.
agent_diag ibnetdiscover > disc.txt 2>&1
check "ibnetdiscover: 6 switches" test "$(grep -c '^Switch' disc.txt)" = 6
SPINE_LID=$(sed -n 's/.*"Spine1" base port 0 lid \([0-9]*\) .*/\1/p' disc.txt)
check "spine has a LID" test -n "$SPINE_LID"
before=$(grep -c answered agent1.err)
agent_diag smpquery nodedesc "$SPINE_LID" > nd.txt 2>&1
check "smpquery nodedesc (LID-routed)" grep -q 'Node Description:\.*Spine1' nd.txt
agent_diag smpquery -D portinfo 0,1,1 1 > pi.txt 2>&1
check "smpquery portinfo (DR): LocalPort = ingress port 1" grep -qE '^LocalPort:\.+1$' pi.txt
agent_diag smpquery -c nodeinfo "$SPINE_LID" 0,2 > ni.txt 2>&1
check "smpquery -c (LID leg + DR through the spine)" grep -qE '^NodeType:\.+Switch$' ni.txt
agent_diag ibroute "$SPINE_LID" > route.txt 2>&1
check "ibroute of the spine" grep -q "Unicast lids .* of switch Lid $SPINE_LID .*(Spine1)" route.txt
check "those SMPs reached portzerod" test "$(grep -c answered agent1.err)" -ge $((before + 4))

# Kill the agent: unreachable, pzfabric unharmed.
kill -KILL "$AGENT"
wait "$AGENT" 2>/dev/null
check "pzfabric notices the agent is gone" wait_file fabric.err 5 'Spine1 lost its agent'
agent_diag smpquery nodedesc "$SPINE_LID" > nd2.txt 2>&1
check "dead agent: spine unreachable" bash -c "! grep -q 'Node Description' nd2.txt"
check "pzfabric still running" kill -0 "$FABRIC"
agent_diag smpquery -D nodedesc 0,1 > leaf.txt 2>&1
check "other switches still answer" grep -q 'Node Description:\.*Leaf1' leaf.txt

# Restart: served again.
start_agent "$WORK/agent2.out" "$WORK/agent2.err"
check "restarted portzerod ready" wait_file agent2.out 10 '^ready$'
# Directed route first: it does not depend on the LFTs, which OpenSM may
# have cleared of the spine if it swept while the agent was dead.
agent_diag smpquery -D nodedesc 0,1,1 > nd3.txt 2>&1
check "restarted: spine answers again (DR)" grep -q 'Node Description:\.*Spine1' nd3.txt
# LID-routed: within two OpenSM sweeps (10 s each) the route is back.
lid_back() {
    local i
    for i in $(seq 1 25); do
        agent_diag smpquery nodedesc "$SPINE_LID" > nd4.txt 2>&1
        grep -q 'Node Description:\.*Spine1' nd4.txt && return 0
        sleep 1
    done
    return 1
}
check "restarted: spine answers again (LID-routed)" lid_back
check "restarted: answered by the new process" wait_file agent2.err 5 'attr 0x0010 .*answered'

agent_finish
