#!/bin/bash
# test_image_fabric.sh - the switch image works as a switch: the aarch64
# portzerod from build-arm64/portzero-image-aarch64.tar.gz, run under
# qemu-aarch64 as the agent of leaf-2 (36 ports) of pzfabric, with an x86
# OpenSM and x86 diags, and reached from an emulated host (pz-iphost) over
# IPoIB:
#   - scripts/image-check.sh passes (ELF, NEEDED, paths, manifest, unit);
#   - the image is unpacked over a stand-in for its Debian arm64 base: the
#     cross toolchain's C library and ONLY the packages of the image's
#     debian-packages.txt, from the sysroot's .deb cache; portzerod loads
#     from there (qemu-aarch64 -L ROOT), reads /etc/portzero/portzero.conf of
#     the image, and gets ready;
#   - OpenSM reaches SUBNET UP through it (the hosts below leaf-2 get LIDs);
#   - smpquery and perfquery of the switch are answered by it (the MADs
#     arrive at the qemu process: libpzumad2sim's arrival log grows);
#   - from the host's namespace: ping, snmpget (SNMPv3 authPriv) and
#     `ssh admin@SWITCH show version` to its IPoIB address;
#   - portzerod exits 0 on SIGTERM.
# The arm64 libumad2sim.so is Debian's (ibsim-utils:arm64, unpacked into the
# sysroot), the arm64 libpzumad2sim.so is build-arm64's (attach/).
# OpenSM gets -t 1000 (transaction timeout 1 s, default 200 ms) and the
# diags -t 3000: every SMP to the switch is answered by emulated code.
# Usage: test_image_fabric.sh PZFABRIC PZFABRIC_CTL PZ_IPHOST ARM64_BUILD_DIR
set -u
# shellcheck source=../agent/agent_ip_lib.sh
source "$(dirname "$0")/../agent/agent_ip_lib.sh"
PZIPHOST=$(abspath "$3") # before ai_init_one, which changes into $WORK
ai_init_one image "$1" "$2"
ARM64=$(abspath "$4")
SRC=$(abspath "$(dirname "$0")/../..")
TARBALL=$ARM64/portzero-image-aarch64.tar.gz
TRIPLET=aarch64-linux-gnu
pzt_require qemu-aarch64 opensm smpquery perfquery ping ip snmpget ssh ssh-keygen dpkg-deb
pzt_require_preload
if [ ! -f "$TARBALL" ]; then
    echo "SKIP: no $TARBALL (make image)"
    exit 77
fi
NET=$(abspath "$SRC/tests/integration/ft-36port.net")
SM=host-1-1
HOSTCA=host-2-1
DR=0,1,3,3 # SM -> leaf-1 -> spine-1 -> leaf-2
ai_switch leaf-2 10.83.0.4
HOSTADDR=10.83.0.100
RO=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 10 -r 2)
ROOT=$WORK/root

check "image-check passes" bash -c "bash '$SRC/scripts/image-check.sh' '$TARBALL' '$ARM64/sysroot' > '$WORK/image-check.out' 2>&1" ||
    cat "$WORK/image-check.out"

# The image over its base: the C library of the cross toolchain (Debian's
# libc6 for arm64, packaged for cross builds) and the listed packages.
mkdir -p "$ROOT/lib/$TRIPLET"
tar -xzf "$TARBALL" -C "$ROOT"
cp -a "/usr/$TRIPLET/lib/." "$ROOT/lib/$TRIPLET/"
ln -s "$TRIPLET/ld-linux-aarch64.so.1" "$ROOT/lib/ld-linux-aarch64.so.1"
unpacked=0
missing=
while read -r pkg ver _; do
    case "$pkg" in '#'* | libc6 | libgcc-s1) continue ;; esac
    deb=${PZ_DEB_CACHE:-$ARM64/sysroot.debs}/${pkg}_${ver//:/%3a}_arm64.deb
    if [ -f "$deb" ]; then
        dpkg-deb -x "$deb" "$ROOT"
        unpacked=$((unpacked + 1))
    else
        missing+="$pkg=$ver "
    fi
done < "$ROOT/usr/share/portzero/debian-packages.txt"
check "every listed Debian package is in the sysroot's .deb cache (${missing:-all})" test -z "$missing"
check "the base stand-in has the listed packages ($unpacked)" test "$unpacked" -ge 10

# The switch's users: an SNMPv3 read-only user and an admin SSH key.
{
    echo 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"'
    echo 'rouser pzro priv'
} > "$WORK/snmp.conf"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"

# portzerod from the image under qemu-aarch64, with ROOT as its / for files
# that exist there (qemu -L: the loader, the libraries, /etc/portzero); the
# test's own paths (state, control socket, users) are not in ROOT, so they
# resolve on the host.
STOCK_ARM64=$ARM64/sysroot/usr/lib/$TRIPLET/umad2sim/libumad2sim.so
FIX_ARM64=$ARM64/lib/portzero/libpzumad2sim.so
check "the arm64 libumad2sim.so (ibsim-utils:arm64) is in the sysroot" test -f "$STOCK_ARM64"
check "the arm64 libpzumad2sim.so is in $ARM64" test -f "$FIX_ARM64"
MADLOG=$WORK/agent/mads.log
# MADs through umad (mad_transport = umad), as on a switch where the kernel's
# umad device carries them: umad2sim stands in for it and logs each MAD's
# arrival (the board/sim transport would bypass both).  The harness's
# start_agent runs this command with the switch's address and control socket.
AI_AGENT_CMD=(qemu-aarch64 -L "$ROOT"
    -E "LD_LIBRARY_PATH=/lib/$TRIPLET:/usr/lib/$TRIPLET"
    -E "LD_PRELOAD=$STOCK_ARM64 $FIX_ARM64" -E "PZ_UMAD2SIM_MAD_LOG=$MADLOG"
    -E "SIM_HOST=$SW" -E "IBSIM_SOCKNAME=$SOCK"
    "$ROOT/usr/sbin/portzerod" -c /etc/portzero/portzero.conf)
AI_AGENT_FLAGS=-vv
AI_AGENT_ARGS=(-o mad_transport=umad -o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf"
    -o "ssh_authorized_keys=$WORK/admin_keys")
mads() { wc -l < "$MADLOG" 2> /dev/null || echo 0; }
lid_at_path() { # lid_at_path DR-PATH: the LID of port 0 of the node at the end of the path
    diag "$SM" smpquery -D portinfo "$1" 0 2> /dev/null | awk -F. '/^Lid/ { print $NF }'
}

fl_start_fabric --agent "$SW" "$NET" || exit 1
start_agent "$SW"
check "portzerod (aarch64, qemu) ready" wait_file "$WORK/agent/out" 60 '^ready$' "${AGENT[$SW]}"
check "it read the image's portzero.conf (its ctl_socket is overridden, snmp agent on)" \
    grep -q "snmp: agent on UDP 161" "$WORK/agent/err"
check "it runs the SSH server" grep -q "ssh: server on TCP 22" "$WORK/agent/err"
check "pzfabric took $SW's agent" wait_file "$WORK/fabric.err" 10 "$SW"

fl_start_opensm "$SM" -t 1000
check "OpenSM: SUBNET UP through the image's agent" fl_wait_up 120
# The host below leaf-2 is reached only through the agent's switch.
HOST_LID=$(lid_at_path "$DR,1")
check "$HOSTCA (below $SW) has a LID ($HOST_LID)" test -n "$HOST_LID" -a "${HOST_LID:-0}" != 0

before=$(mads)
SW_LID=$(lid_at_path "$DR")
check "smpquery: $SW has a LID ($SW_LID)" test -n "$SW_LID" -a "${SW_LID:-0}" != 0
ni=$(diag "$SM" smpquery nodeinfo "${SW_LID:-0}" 2>&1)
check_eq "smpquery nodeinfo: NodeType" Switch "$(awk -F. '/^NodeType/ { print $NF }' <<< "$ni")"
check_eq "smpquery nodeinfo: NumPorts" 36 "$(awk -F. '/^NumPorts/ { print $NF }' <<< "$ni")"
pq=$(diag "$SM" perfquery -x "${SW_LID:-0}" 1 2>&1)
check "perfquery -x $SW port 1: PortXmitData" grep -qE '^PortXmitData:\.+[0-9]+$' <<< "$pq"
check_eq "perfquery -x: PortSelect" 1 "$(awk -F. '/^PortSelect/ { print $NF }' <<< "$pq")"
after=$(mads)
check "the queries arrived at the aarch64 agent (MADs $before -> $after)" test "$after" -ge $((before + 3))

ai_start_host "$HOSTADDR/24" "$HOSTCA"
check "ping $SW ($SWADDR) answers" wait_until 60 in_ns ping -c 1 -W 2 "$SWADDR"
check_eq "ping: 5/5" 5 "$(in_ns ping -c 5 -i 0.2 -W 5 "$SWADDR" 2> /dev/null | awk '/packets transmitted/ { print $4 }')"
descr=$(in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" .1.3.6.1.2.1.1.1.0 2>&1)
check "snmpget (v3 authPriv) sysDescr names portzero: $descr" grep -qi portzero <<< "$descr"
check_eq "snmpget ifNumber: 36 ports + IPoIB" 37 \
    "$(in_ns snmpget "${RO[@]}" -Oqv "$SWADDR" .1.3.6.1.2.1.2.1.0 2>&1)"
SSHOPT=(-F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" -o StrictHostKeyChecking=accept-new
    -o BatchMode=yes -o ConnectTimeout=60)
version=$(in_ns timeout 120 ssh "${SSHOPT[@]}" -i "$WORK/admin_key" "admin@$SWADDR" show version 2>&1)
check "ssh admin@$SWADDR show version: portzero" grep -q "^portzero " <<< "$version"
check_eq "ssh: an unknown command exits 2" 2 \
    "$(in_ns timeout 120 ssh "${SSHOPT[@]}" -i "$WORK/admin_key" "admin@$SWADDR" no such command > /dev/null 2>&1; echo $?)"

stop_pid "${AGENT[$SW]}"
check_eq "portzerod (aarch64) exits 0 on SIGTERM" 0 "$STOP_RC"
AGENT[$SW]=
check "no qemu or sanitizer report" bash -c "! grep -qE 'qemu: uncaught|Sanitizer' '$WORK/agent/err'"
fl_finish
