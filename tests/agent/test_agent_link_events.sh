#!/bin/bash
# test_agent_link_events.sh - link changes at a switch served by an external
# portzerod reach its SMA as they happen: pzfabric pushes port events over
# board/sim and portzerod keeps port statuses between them, so a stale
# status would show here as a missing trap or a wrong PortInfo.  Spine1 is
# the agent's switch (tests/integration/ft-2s4l.net); its port 4 faces Leaf4.
#   link-down Spine1 4: OpenSM gets Trap 128 from Spine1, PortInfo says
#   Down/Polling at once, the PMA counts one LinkDowned on the port; link-up: a second Trap 128, the port comes back
#   to Active once OpenSM has swept.
#   ibportstate SPINE 4 width 1: only the enable changes (iblinkinfo: 4X);
#   ibportstate SPINE 4 reset (PortPhysicalState Polling): the link retrains
#   with it, iblinkinfo shows 1X at both ends, Trap 128, Active again after
#   OpenSM's sweep, LinkDownedCounter unchanged (down on command); width 3
#   and reset bring 4X back.
set -uo pipefail

PZFABRIC=${1:?usage: test_agent_link_events.sh PZFABRIC PZFABRIC_CTL PORTZEROD NETFILE}
PZCTL=${2:?}
PORTZEROD=${3:?}
NET=${4:?}
source "$(dirname "$0")/agent_lib.sh"
SOCK="pzlev$$"
PATH_TO_SPINE=0,1,1 # from Hca2: Leaf1 port 1 -> Spine1

ctl() { "$PZCTL" --sockname "$SOCK" "$@"; }
# spine_port FIELD PORT: a PortInfo field of Spine1's port, by directed route.
spine_port() { agent_diag smpquery -D portinfo "$PATH_TO_SPINE" "$2" 2> /dev/null | sed -n "s/^$1:\.*//p"; }
# link_downed PORT: Spine1's LinkDownedCounter of port, from its PMA.
link_downed() { agent_diag perfquery "$SPINE" "$1" 2> /dev/null | sed -n 's/^LinkDownedCounter:\.*//p'; }
# traps: Trap 128s from Spine1 in OpenSM's log.
traps() { grep -c "num:128 .*from LID:$SPINE " sm/osm.log 2> /dev/null || true; }
# wait_value SECONDS WANT COMMAND...: until COMMAND prints WANT.
wait_value() {
    local deadline=$((SECONDS + $1)) want=$2
    shift 2
    while ((SECONDS < deadline)); do
        [ "$("$@")" = "$want" ] && return 0
        sleep 0.2
    done
    return 1
}

cd "$WORK"
agent_start_spine1 "$NET"
agent_start_opensm "$SOCK" "$WORK/sm"
check "OpenSM: SUBNET UP" wait_file sm/osm.log 40 'SUBNET UP'

SPINE=$(agent_diag smpquery -D portinfo "$PATH_TO_SPINE" 0 | sed -n 's/^Lid:\.*//p')
check "Spine1 has a LID" test -n "$SPINE" -a "${SPINE:-0}" != 0
# Without an IP address its reachability service still registers at the SA,
# so a new SM's ClientReregister must reach it.
agent_diag smpquery -D portinfo "$PATH_TO_SPINE" 0 > spine_pi0.txt 2> /dev/null
check "Spine1 port 0 advertises IsClientReregistrationSupported (reach = on, no IP)" \
    grep -q IsClientRegistrationSupported spine_pi0.txt # libibmad's name for bit 25
check "Spine1 port 4: Active before" wait_value 20 Active spine_port LinkState 4
traps0=$(traps)
downed0=$(link_downed 4)
check "Spine1 port 4: LinkDownedCounter read" test -n "$downed0"

check_eq "link-down Spine1 4" "link Spine1[4] - Leaf4[1] down" "$(ctl link-down Spine1 4)"
check_eq "Spine1 port 4: Down (the agent's view)" Down "$(spine_port LinkState 4)"
check_eq "Spine1 port 4: Polling" Polling "$(spine_port PhysLinkState 4)"
check "OpenSM gets Trap 128 from Spine1" wait_value 10 yes \
    sh -c "[ \$(grep -c 'num:128 .*from LID:$SPINE ' sm/osm.log) -gt $traps0 ] && echo yes"
check_eq "Spine1 port 4: LinkDowned counted once" $((downed0 + 1)) "$(link_downed 4)"
check_eq "Spine1 port 3: still Active" Active "$(spine_port LinkState 3)"

check_eq "link-up Spine1 4" "link Spine1[4] - Leaf4[1] up" "$(ctl link-up Spine1 4)"
check "OpenSM gets a second Trap 128 from Spine1" wait_value 10 yes \
    sh -c "[ \$(grep -c 'num:128 .*from LID:$SPINE ' sm/osm.log) -gt $((traps0 + 1)) ] && echo yes"
check "Spine1 port 4: Active again after OpenSM's sweep" wait_value 20 Active spine_port LinkState 4
check_eq "Spine1 port 4: LinkDowned unchanged by link-up" $((downed0 + 1)) "$(link_downed 4)"

# link_width GUID PORT: the width iblinkinfo shows for PORT of switch GUID.
link_width() { agent_diag iblinkinfo -S "$1" 2> /dev/null | awk -v p="$2[" '$2 == p { print $5; exit }'; }
SPINE1_GUID=0x200000 LEAF4_GUID=0x200005 # as ibsim assigns them (file order)
check_eq "iblinkinfo: Spine1 port 4 at 4X" 4X "$(link_width $SPINE1_GUID 4)"
agent_diag ibportstate "$SPINE" 4 width 1 > width.txt 2>&1
check "ibportstate <Spine1> 4 width 1: LinkWidthEnabled 1X" \
    bash -c "sed -n '/^After PortInfo set/,\$p' width.txt | grep -q '^LinkWidthEnabled:\.*1X$'"
check_eq "width 1 alone: still 4X (new enables apply at the next training)" 4X "$(link_width $SPINE1_GUID 4)"
traps1=$(traps)
agent_diag ibportstate "$SPINE" 4 reset > reset.txt 2>&1
check "ibportstate <Spine1> 4 reset: retrained at 1X (iblinkinfo, Spine1 port 4)" \
    wait_value 10 1X link_width $SPINE1_GUID 4
check "ibportstate <Spine1> 4 reset: retrained at 1X (iblinkinfo, Leaf4 port 1)" \
    wait_value 10 1X link_width $LEAF4_GUID 1
check "reset: OpenSM gets Trap 128 from Spine1" wait_value 10 yes \
    sh -c "[ \$(grep -c 'num:128 .*from LID:$SPINE ' sm/osm.log) -gt $traps1 ] && echo yes"
check "reset: Spine1 port 4 Active again after OpenSM's sweep" wait_value 20 Active spine_port LinkState 4
check_eq "reset: LinkDowned unchanged (down on command)" $((downed0 + 1)) "$(link_downed 4)"
agent_diag ibportstate "$SPINE" 4 width 3 > /dev/null 2>&1
agent_diag ibportstate "$SPINE" 4 reset > /dev/null 2>&1
check "width 3, reset: 4X again" wait_value 10 4X link_width $SPINE1_GUID 4
check "width 3, reset: Active again" wait_value 20 Active spine_port LinkState 4
agent_finish
