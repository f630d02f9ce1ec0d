#!/bin/bash
# test_deb_install.sh - the amd64 Debian package installs, works and purges
# cleanly on this machine (make deb builds it in build-deb/):
#   - `apt-get install ./portzero_<version>_amd64.deb` succeeds; dpkg has it
#     with its four conffiles; the system user portzero exists (nologin, home
#     /var/lib/portzero), owns /var/lib/portzero (0700) and reads snmp.conf
#     (root:portzero 0640); the unit is enabled; nothing was started (no umad
#     device here); the man pages list every key of `portzerod --help`; the
#     MIB resolves with net-snmp's snmptranslate;
#   - `/usr/sbin/portzerod --check-config` (defaults) and with the shipped
#     /etc/portzero/portzero.conf accept it, with the values it sets;
#   - the installed /usr/sbin/portzerod, run as the user portzero, is the
#     agent of leaf-2 in pzfabric: OpenSM reaches SUBNET UP through it,
#     smpquery and perfquery are answered, ping and snmpget (v3 authPriv)
#     over IPoIB from the emulated host's namespace; its SSH host key lands
#     in /var/lib/portzero owned by portzero; it exits 0 on SIGTERM;
#   - `apt-get purge portzero` leaves no file named *portzero* under /etc,
#     /usr, /lib, /var and /run that was not there before, no dpkg status,
#     no stat override; only the system user stays (Debian keeps system users).
# Safe on a shared machine: skipped (77) when not root or when a portzero
# package is already installed (it is never touched); dpkg's lock is waited
# for; the exit trap stops the agent and purges the package on a failure too,
# removes what a purge left of the package's paths that did not exist before
# (/etc/portzero, /var/lib/portzero, /run/portzero, /var/log/portzerod.log),
# and removes the portzero user if this test created it.
# Usage: test_deb_install.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST DEB_DIR
set -u
# shellcheck source=../agent/agent_ip_lib.sh
source "$(dirname "$0")/../agent/agent_ip_lib.sh"
PZIPHOST=$(abspath "$3") # before ai_init_one, which changes into $WORK
DEBDIR=$(abspath "$4")
ai_init_one deb "$1" "$2"
SRC=$(abspath "$(dirname "$0")/../..")
pzt_require apt-get dpkg-deb dpkg-statoverride setpriv opensm smpquery perfquery ping ip snmpget \
    snmptranslate man
pzt_require_preload
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: installing a package needs root"
    exit 77
fi
DEB=$(ls "$DEBDIR"/portzero_*_amd64.deb 2> /dev/null | head -n 1)
if [ -z "$DEB" ]; then
    echo "SKIP: no $DEBDIR/portzero_*_amd64.deb (make deb)"
    exit 77
fi
if [ "$(dpkg-query -W -f='${db:Status-Status}' portzero 2> /dev/null)" != "" ] &&
    [ "$(dpkg-query -W -f='${db:Status-Status}' portzero 2> /dev/null)" != not-installed ]; then
    echo "SKIP: a portzero package is installed on this machine; this test does not touch it"
    exit 77
fi
NET=$(abspath "$SRC/tests/integration/ft-36port.net")
SM=host-1-1
HOSTCA=host-2-1
DR=0,1,3,3 # SM -> leaf-1 -> spine-1 -> leaf-2
ai_switch leaf-2 10.84.0.4
HOSTADDR=10.84.0.100
RO=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 10 -r 2)
APT=(env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=600)
VERSION=$(dpkg-deb -f "$DEB" Version)

# leftovers: every path named *portzero* under the system's directories.
leftovers() {
    find /etc /usr /lib /var /run -xdev -path /var/tmp -prune -o -name '*portzero*' -print 2> /dev/null |
        LC_ALL=C sort
}
had_user=no
getent passwd portzero > /dev/null && had_user=yes
# The package's own paths that are not here yet: if a purge leaves any (a
# failure this test reports), the exit trap removes them.
OWN=()
for p in /etc/portzero /var/lib/portzero /run/portzero /var/log/portzerod.log; do
    [ -e "$p" ] || OWN+=("$p")
done
leftovers > "$WORK/before.txt"
INSTALLED=
# deb_cleanup: purge the package if this test installed it (and it is still
# there), remove what a purge left of the package's paths that were not there
# before, and the user portzero if this test created it.
deb_cleanup() {
    if [ -n "$INSTALLED" ]; then
        "${APT[@]}" purge portzero > "$WORK/purge-trap.out" 2>&1 || cat "$WORK/purge-trap.out"
    fi
    rm -rf "${OWN[@]}"
    if [ "$had_user" = no ] && getent passwd portzero > /dev/null; then
        userdel portzero 2> /dev/null
        getent group portzero > /dev/null && groupdel portzero 2> /dev/null
    fi
    return 0
}
AI_CLEANUP=deb_cleanup # the harness's exit trap: processes stopped, then this

# 1. Install.
check "apt-get install $(basename "$DEB")" bash -c "${APT[*]} --no-install-recommends install '$DEB' > '$WORK/install.out' 2>&1" ||
    tail -n 20 "$WORK/install.out"
INSTALLED=yes
check_eq "dpkg: portzero installed" "install ok installed $VERSION" \
    "$(dpkg-query -W -f='${Status} ${Version}' portzero 2>&1)"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' portzero | awk 'NF { print $1 }' | sort | tr '\n' ' ')
check_eq "conffiles" "/etc/default/portzerod /etc/init.d/portzerod /etc/portzero/portzero.conf /etc/portzero/snmp.conf " \
    "$conffiles"
pw=$(getent passwd portzero)
check "the system user portzero exists ($pw)" test -n "$pw"
IFS=: read -r _ _ uid _ _ home shell <<< "$pw"
check "portzero is a system user (uid ${uid:-?} < 1000)" test "${uid:-1000}" -lt 1000
check_eq "portzero's home" /var/lib/portzero "${home:-}"
check_eq "portzero's shell" /usr/sbin/nologin "${shell:-}"
check_eq "/var/lib/portzero: mode, owner" "700 portzero portzero" "$(stat -c '%a %U %G' /var/lib/portzero 2>&1)"
check_eq "/etc/portzero/snmp.conf: mode, owner" "640 root portzero" "$(stat -c '%a %U %G' /etc/portzero/snmp.conf 2>&1)"
check "portzerod.service is in /lib/systemd/system" test -f /lib/systemd/system/portzerod.service
check "portzerod.service is enabled (multi-user.target wants it)" \
    test -L /etc/systemd/system/multi-user.target.wants/portzerod.service
check "the udev rule gives the umad devices to group portzero" \
    grep -q 'GROUP="portzero"' /usr/lib/udev/rules.d/60-portzero-umad.rules
check "nothing was started (no umad device here)" bash -c "! pgrep -x portzerod -u portzero"
check "ldd /usr/sbin/portzerod: every library found" bash -c "! ldd /usr/sbin/portzerod | grep -q 'not found'"
# (the SMI modules it imports from tests/snmp/mibs-base: Debian's are non-free)
check_eq "snmptranslate PORTZERO-MIB::pzCongClass from /usr/share/snmp/mibs" .1.3.6.1.4.1.99999.1.3.1.2 \
    "$(MIBS= snmptranslate -M "$SRC/tests/snmp/mibs-base:/usr/share/snmp/mibs" -m PORTZERO-MIB -On \
        PORTZERO-MIB::pzCongClass 2>&1)"

# The man pages: every key of the installed daemon's --help.
/usr/sbin/portzerod --help > "$WORK/help.txt" 2>&1
nkeys=$(grep -cE '^  [a-z0-9_]+ = ' "$WORK/help.txt")
check "portzerod --help lists keys ($nkeys)" test "$nkeys" -gt 30
for page in "8 portzerod" "5 portzero.conf"; do
    f=$(man -w $page 2> /dev/null)
    check "man $page is installed ($f)" test -f "$f"
    check_eq "man $page lists every key" "$nkeys" "$(zcat "$f" 2> /dev/null | grep -c '^\.BI "[a-z0-9_]* = "')"
done

for t in pz-cli pz-hotspot pz-routecheck; do
    check "man 1 $t is installed" test -f "$(man -w 1 "$t" 2> /dev/null)"
done

# 2. --check-config.
check "/usr/sbin/portzerod --check-config" bash -c "/usr/sbin/portzerod --check-config > '$WORK/check0.out' 2>&1"
check_eq "... num_ports default" "num_ports = 36" "$(grep '^num_ports = ' "$WORK/check0.out")"
check_eq "... state_dir default" "state_dir = /var/lib/portzero" "$(grep '^state_dir = ' "$WORK/check0.out")"
check "/usr/sbin/portzerod -c /etc/portzero/portzero.conf --check-config" \
    bash -c "/usr/sbin/portzerod -c /etc/portzero/portzero.conf --check-config > '$WORK/check1.out' 2>&1"
check_eq "... ctl_socket" "ctl_socket = /run/portzero/ctl" "$(grep '^ctl_socket = ' "$WORK/check1.out")"
check_eq "... snmp_config" "snmp_config = /etc/portzero/snmp.conf" "$(grep '^snmp_config = ' "$WORK/check1.out")"
printf 'num_ports = 300\n' > "$WORK/bad.conf"
check_eq "--check-config refuses num_ports = 300 (exit 2)" 2 \
    "$(/usr/sbin/portzerod -c "$WORK/bad.conf" --check-config > /dev/null 2>&1; echo $?)"

# 3. The installed daemon as a switch of pzfabric, run as the user portzero
#    (its configuration, its state directory; the test's SNMP users, control
#    socket and umad2sim in the work directory, which portzero may read).
chmod 0711 "$WORK"
mkdir -p "$WORK/agent"
{
    echo 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"'
    echo 'rouser pzro priv'
} > "$WORK/agent/snmp.conf"
chown -R portzero: "$WORK/agent"
MADLOG=$WORK/agent/mads.log
# The installed portzerod as the user portzero, MADs through umad (umad2sim
# logs each arrival): the harness's start_agent runs this command with the
# switch's address and control socket.
AI_AGENT_CMD=(setpriv --reuid portzero --regid portzero --clear-groups
    env LD_PRELOAD="$PZT_PRELOAD" PZ_UMAD2SIM_MAD_LOG="$MADLOG" SIM_HOST="$SW" IBSIM_SOCKNAME="$SOCK"
    /usr/sbin/portzerod -c /etc/portzero/portzero.conf)
AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o mad_transport=umad -o "snmp_config=$WORK/agent/snmp.conf")
lid_at_path() { # lid_at_path DR-PATH: the LID of port 0 of the node at the end of the path
    diag "$SM" smpquery -D portinfo "$1" 0 2> /dev/null | awk -F. '/^Lid/ { print $NF }'
}

fl_start_fabric --agent "$SW" "$NET" || exit 1
start_agent "$SW"
check "the installed portzerod ready" wait_file "$WORK/agent/out" 60 '^ready$' "${AGENT[$SW]}"
check_eq "it runs as portzero" portzero "$(ps -o user= -p "${AGENT[$SW]}" 2>&1 | tr -d ' ')"
check "its SNMP agent is on" grep -q "snmp: agent on UDP 161" "$WORK/agent/err"
check "pzfabric took $SW's agent" wait_file "$WORK/fabric.err" 10 "$SW"
fl_start_opensm "$SM" -t 1000
check "OpenSM: SUBNET UP through the installed agent" fl_wait_up 120
HOST_LID=$(lid_at_path "$DR,1")
check "$HOSTCA (below $SW) has a LID ($HOST_LID)" test -n "$HOST_LID" -a "${HOST_LID:-0}" != 0
SW_LID=$(lid_at_path "$DR")
check "smpquery: $SW has a LID ($SW_LID)" test -n "$SW_LID" -a "${SW_LID:-0}" != 0
ni=$(diag "$SM" smpquery nodeinfo "${SW_LID:-0}" 2>&1)
check_eq "smpquery nodeinfo: NodeType" Switch "$(awk -F. '/^NodeType/ { print $NF }' <<< "$ni")"
check_eq "smpquery nodeinfo: NumPorts" 36 "$(awk -F. '/^NumPorts/ { print $NF }' <<< "$ni")"
pq=$(diag "$SM" perfquery -x "${SW_LID:-0}" 1 2>&1)
check_eq "perfquery -x: PortSelect" 1 "$(awk -F. '/^PortSelect/ { print $NF }' <<< "$pq")"
check "the MADs arrived through umad (umad2sim's log)" test -s "$MADLOG"
ai_start_host "$HOSTADDR/24" "$HOSTCA"
check "ping $SW ($SWADDR) answers" wait_until 60 in_ns ping -c 1 -W 2 "$SWADDR"
descr=$(in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)
check "snmpget (v3 authPriv) sysDescr names portzero: $descr" grep -qi portzero <<< "$descr"
check_eq "snmpget ifNumber: 36 ports + IPoIB" 37 \
    "$(in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" .1.3.6.1.2.1.2.1.0 2>&1)"
state=$(find /var/lib/portzero -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)
check "the agent wrote its state into /var/lib/portzero ($state entries)" test "$state" -gt 0
others=$(find /var/lib/portzero -mindepth 1 ! -user portzero 2> /dev/null | tr '\n' ' ')
check "... all of it owned by portzero${others:+ (not: $others)}" test -z "$others"
stop_pid "${AGENT[$SW]}"
check_eq "portzerod exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=

# 4. Purge.
check "apt-get purge portzero" bash -c "${APT[*]} purge portzero > '$WORK/purge.out' 2>&1" ||
    tail -n 20 "$WORK/purge.out"
INSTALLED=
check_eq "dpkg: portzero gone" "" "$(dpkg-query -W -f='${db:Status-Status}' portzero 2> /dev/null | grep -v '^not-installed$')"
leftovers > "$WORK/after.txt"
check "no *portzero* path left that was not there before" diff "$WORK/before.txt" "$WORK/after.txt"
check "no stat override left" bash -c "! dpkg-statoverride --list | grep -q portzero"
check "what policy keeps: the system user portzero" getent passwd portzero
fl_finish
