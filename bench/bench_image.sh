#!/bin/bash
# bench_image.sh BINDIR [NETFILE] - portzerod's footprint next to the switch
# image's goals: <= 512 KiB of our own text, <= 8 MiB RSS serving
# a 36-port switch with SNMP polling and an SSH session.
#
#   size:  text/data/bss of the image's aarch64 portzerod (size -A and -B of
#          build-arm64/image-rootfs/usr/sbin/portzerod; PZ_ARM64_DIR sets the
#          build). Every third-party library is a shared one from Debian
#          (debian-packages.txt), nothing is linked in statically, so the
#          text is ours but for the C runtime's start files (crt*.o, measured
#          from the cross toolchain and subtracted).
#   RSS:   of the NATIVE portzerod (BINDIR, x86_64), leaf-2 of
#          tests/integration/ft-36port.net (36 ports) on pzfabric, OpenSM
#          sweeping every second: idle (SUBNET UP, IPoIB joined, no client),
#          then with an SNMPv3 authPriv snmpbulkwalk of ifXTable every
#          second from pz-iphost's namespace and one interactive SSH session
#          running `show interfaces ib` every 2 s (peak of VmRSS sampled
#          every 0.5 s over SECS, default 20, and VmHWM). Native, not under
#          qemu-aarch64: qemu-user's process RSS is the emulator's (its
#          translator, translated-code cache and its own libraries) and it
#          offers no guest RSS; the native build is the same C code over the
#          same Debian library versions, LP64 on both, so heap and data are
#          the same size (text pages differ with the instruction set). The
#          emulation's own libraries in the process (Debian's libumad2sim.so
#          and libpzumad2sim.so, absent on a switch, where the kernel's umad
#          serves) are shown and subtracted; so is what portzerod itself holds
#          (its own mapping, heap, stacks, anonymous memory) against the shared
#          libraries' resident pages (file RSS depends on the page cache: the
#          kernel maps cached neighbours of a faulting page, fault-around).
# NETFILE is ignored (the 36-port file is this bench's). Exit 0 whatever the figures.
set -uo pipefail

BIN=$(cd "${1:?usage: bench_image.sh BINDIR [NETFILE]}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARM64=${PZ_ARM64_DIR:-$ROOT/build-arm64}
SECS=${SECS:-20}
TEXT_GOAL_KIB=512
RSS_GOAL_KIB=8192
TRIPLET=aarch64-linux-gnu

# 1. Sizes of the image's aarch64 portzerod.
PZ_ARM=$ARM64/image-rootfs/usr/sbin/portzerod
if [ -x "$PZ_ARM" ] && command -v "$TRIPLET-size" > /dev/null; then
    echo "portzerod, aarch64 (image, stripped): size -B"
    "$TRIPLET-size" -B "$PZ_ARM" | sed 's/^/  /'
    echo "size -A (sections over 1 KiB):"
    "$TRIPLET-size" -A "$PZ_ARM" | awk 'NR > 2 && $2 >= 1024 { printf "  %-20s %8d\n", $1, $2 }'
    text=$("$TRIPLET-size" -A "$PZ_ARM" | awk '$1 == ".text" { print $2 }')
    crt=0
    for o in crt1.o crti.o crtn.o crtbeginS.o crtendS.o crtbegin.o crtend.o; do
        f=$("$TRIPLET-gcc" -print-file-name="$o")
        [ -f "$f" ] || continue
        n=$("$TRIPLET-size" -A "$f" | awk '$1 == ".text" { s += $2 } END { print s + 0 }')
        crt=$((crt + n))
    done
    ours=$((text - crt))
    echo "statically linked third-party code: none (all Debian libraries are shared)"
    awk -v t="$text" -v c="$crt" -v o="$ours" -v g="$TEXT_GOAL_KIB" 'BEGIN {
        printf "our own text: %.1f KiB (.text %d B - C runtime start files %d B); goal <= %d KiB: %.2fx of the goal\n",
            o / 1024, t, c, g, o / 1024 / g }'
else
    echo "bench_image: no $PZ_ARM (make image), sizes skipped"
fi

# 2. RSS of the native build, serving the 36-port switch.
for t in opensm ip snmpbulkwalk ssh ssh-keygen; do
    command -v "$t" > /dev/null || { echo "bench_image: $t missing, RSS skipped"; exit 0; }
done
[ -f "${PZ_UMAD2SIM_FIX:-}" ] || { echo "bench_image: PZ_UMAD2SIM_FIX unset (run through make bench), RSS skipped"; exit 0; }
[ -x "$BIN/portzerod" ] || { echo "bench_image: $BIN/portzerod missing, RSS skipped"; exit 0; }

# shellcheck source=../tests/fabric/fabric_lib.sh
source "$ROOT/tests/fabric/fabric_lib.sh"
fl_init bench-image "$BIN/pzfabric" "$BIN/pzfabric-ctl"
NET=$ROOT/tests/integration/ft-36port.net
NS="pzb-$$-image"
SW=leaf-2
SWADDR=10.84.0.4
HOSTADDR=10.84.0.100
AGENT=''
HOST_PID=''
SSH_PID=''
V3=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1 -t 3 -r 2)
IFX=.1.3.6.1.2.1.31.1.1.1

bench_cleanup() {
    local rc=$?
    exec 3>&- 2> /dev/null
    for p in $SSH_PID $HOST_PID $AGENT; do stop_pid "$p"; done
    ip netns delete "$NS" 2> /dev/null
    (exit "$rc")
    fl_cleanup
}
trap bench_cleanup EXIT

cat > "$WORK/snmp.conf" << EOF
createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"
rouser pzro priv
EOF
ssh-keygen -q -t ed25519 -N '' -f "$WORK/admin_key"
cp "$WORK/admin_key.pub" "$WORK/admin_keys"

status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; } # status_kib PID FIELD
emulation_kib() { # emulation_kib PID: resident KiB of umad2sim's and libpzumad2sim's mappings
    awk '/^[0-9a-f]+-[0-9a-f]+ / { m = ($6 ~ /umad2sim/) } m && $1 == "Rss:" { s += $2 } END { print s + 0 }' \
        "/proc/$1/smaps"
}
report() { # report LABEL RSS_KIB
    local emu
    emu=$(emulation_kib "$AGENT")
    awk -v l="$1" -v r="$2" -v e="$emu" -v a="$(status_kib "$AGENT" RssAnon)" \
        -v f="$(status_kib "$AGENT" RssFile)" -v g="$RSS_GOAL_KIB" 'BEGIN {
        printf "RSS %s: %d KiB (anon %d, file %d; umad2sim emulation %d) -> %d KiB without the emulation; goal <= %d KiB: %.2fx of the goal\n",
            l, r, a, f, e, r - e, g, (r - e) / g }'
}

own_kib() { # own_kib LABEL: resident KiB of portzerod's own image, heap, stacks and anonymous memory
    awk -v l="$1" '/^[0-9a-f]+-[0-9a-f]+ / { m = ($6 == "" || $6 ~ /^\[(heap|stack|anon)/ || $6 ~ /\/portzerod$/) }
        m && $1 == "Rss:" { s += $2 } END { printf "  of it portzerod itself (%s: its text/data, heap, stacks, anonymous): %d KiB; the rest is the shared libraries\n", l, s }' \
        "/proc/$AGENT/smaps"
}

fl_start_fabric --agent "$SW" "$NET" || exit 0
mkdir -p "$WORK/agent"
(cd "$WORK/agent" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$SW IBSIM_SOCKNAME=$SOCK exec "$BIN/portzerod" \
    -o board=sim -o "ip_address=$SWADDR/24" -o "ctl_socket=$WORK/agent/ctl" \
    -o "state_dir=$WORK/state" -o "snmp_config=$WORK/snmp.conf" \
    -o "ssh_authorized_keys=$WORK/admin_keys" \
    > "$WORK/agent/out" 2> "$WORK/agent/err" < /dev/null) &
AGENT=$!
wait_file "$WORK/agent/out" 20 '^ready$' "$AGENT" || { echo "bench_image: portzerod not ready"; exit 0; }
fl_start_opensm host-1-1 -s 1 # sweeps every second while we measure
fl_wait_up 60 || { echo "bench_image: no SUBNET UP"; exit 0; }
"$BIN/pz-iphost" --sockname "$SOCK" --ca host-2-1 --address "$HOSTADDR/24" --netns "$NS" \
    > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
HOST_PID=$!
wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID" || { echo "bench_image: pz-iphost not ready"; exit 0; }
wait_until 30 ip netns exec "$NS" ping -c 1 -W 1 "$SWADDR" || { echo "bench_image: $SWADDR unreachable"; exit 0; }
sleep 5
by_object() { # by_object PID: resident KiB per mapped file (largest first), anonymous memory as [anon]
    awk '/^[0-9a-f]+-[0-9a-f]+ / { n = ($6 == "" ? "[anon]" : $6); sub(/.*\//, "", n) }
        $1 == "Rss:" { s[n] += $2 } END { for (n in s) if (s[n] >= 64) printf "%d %s\n", s[n], n }' \
        "/proc/$1/smaps" | sort -rn | awk '{ printf "%s %s %s", (NR > 1 ? "," : ""), $2, $1 }'
}
echo "portzerod, native x86_64 ($BIN), $SW of ft-36port (36 ports), OpenSM -s 1:"
report "idle (SUBNET UP, IPoIB joined)" "$(status_kib "$AGENT" VmRSS)"
own_kib "idle"
echo "  resident KiB by object (>= 64):$(by_object "$AGENT")"

# One interactive SSH session fed through a FIFO held open on fd 3.
mkfifo "$WORK/ssh.in"
ip netns exec "$NS" ssh -F /dev/null -o "UserKnownHostsFile=$WORK/known_hosts" \
    -o StrictHostKeyChecking=accept-new -o BatchMode=yes -tt -i "$WORK/admin_key" "admin@$SWADDR" \
    < "$WORK/ssh.in" > "$WORK/ssh.out" 2>&1 &
SSH_PID=$!
exec 3> "$WORK/ssh.in"
peak=0
walks=0
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ]; do
    ip netns exec "$NS" snmpbulkwalk "${V3[@]}" -On "$SWADDR" "$IFX" > "$WORK/walk.out" 2>&1 &&
        walks=$((walks + 1))
    [ $((SECONDS % 2)) = 0 ] && echo "show interfaces ib" >&3
    for _ in 1 2; do
        r=$(status_kib "$AGENT" VmRSS)
        [ "${r:-0}" -gt "$peak" ] && peak=$r
        sleep 0.5
    done
done
rows=$(grep -c "^$IFX\.1\." "$WORK/walk.out")
shown=$(grep -c "^ *36 " "$WORK/ssh.out")
echo "  during ${SECS} s: $walks snmpbulkwalks of ifXTable ($rows rows each), SSH shell ran show interfaces ib $shown times"
report "SNMP polling + SSH session, peak" "$peak"
report "VmHWM (peak since start)" "$(status_kib "$AGENT" VmHWM)"
own_kib "SNMP polling + SSH session"
echo "  resident KiB by object (>= 64):$(by_object "$AGENT")"
echo "exit" >&3
exit 0
