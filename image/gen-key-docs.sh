#!/usr/bin/env bash
# gen-key-docs.sh - the files generated from portzerod's key table: the
# shipped /etc/portzero/portzero.conf and the man pages portzerod(8) and
# portzero.conf(5). Run by the build (image/CMakeLists.txt, target
# pz-key-docs), so neither the package nor the image can fall behind the code.
#
# Usage: gen-key-docs.sh OUTDIR VERSION PORTZEROD [ARG...]
#   PORTZEROD [ARG...]  how to run the built daemon (a cross build puts its
#                       emulator, qemu-aarch64 with its options, in front)
# Writes OUTDIR/portzero.conf (image/portzero.conf.head, then every key of
# `portzerod --help` commented out with its help, values and default),
# OUTDIR/portzerod.8 and OUTDIR/portzero.conf.5. The date of the pages is
# SOURCE_DATE_EPOCH's (dpkg-buildpackage sets it from debian/changelog), else
# the last commit's, so a rebuild gives the same files.
set -euo pipefail

die() {
    echo "gen-key-docs: error: $*" >&2
    exit 1
}
[ $# -ge 3 ] || die "usage: $0 OUTDIR VERSION PORTZEROD [ARG...]"
OUT=$1
VERSION=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"

help=$OUT/portzerod-help.txt
"$@" --help > "$help" 2>&1 || die "portzerod --help failed: $(head -n 3 "$help")"
grep -qE '^  num_ports = ' "$help" || die "portzerod --help gave no key list (see $help)"

epoch=${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2> /dev/null || echo 0)}
DATE=$(date -u -d "@$epoch" +%Y-%m-%d)

# keys_tsv: one line per key of --help: name, syntax, default ("" when
# empty), help; separated by the unit separator (0x1f), which, unlike a tab,
# read does not merge when a field is empty.
keys_tsv() {
    awk '
    /^  [a-z0-9_]+ = / {
        key = $1
        spec = substr($0, index($0, "= ") + 2)
        def = spec
        sub(/.*\(default: /, "", def)
        sub(/\)$/, "", def)
        sub(/ \(default: .*\)$/, "", spec)
        if (def == "empty") def = ""
        next
    }
    /^      / && key != "" {
        h = $0
        sub(/^ +/, "", h)
        printf "%s\037%s\037%s\037%s\n", key, spec, def, h
        key = ""
    }' "$help"
}

# 1. portzero.conf: the shipped settings, then every key commented out.
conf=$OUT/portzero.conf
cp "$HERE/portzero.conf.head" "$conf"
set_keys=" $(sed -n -E 's/^([a-z0-9_]+) *=.*/\1/p' "$conf" | tr '\n' ' ')"
while IFS=$'\x1f' read -r key spec def h; do
    printf '#\n# %s: %s\n#   %s\n' "$key" "$h" "$spec"
    case "$set_keys" in
    *" $key "*) printf '#   (set above)\n' ;;
    *) if [ -z "$def" ]; then printf '#%s =\n' "$key"; else printf '#%s = %s\n' "$key" "$def"; fi ;;
    esac
done < <(keys_tsv) >> "$conf"
grep -q '^#num_ports = 36$' "$conf" || die "no num_ports default in $conf"

# roff TEXT: TEXT escaped for a man page (backslashes, hyphens, a leading dot).
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" <<< "$1"; }

# key_list: the key table as man page paragraphs.
key_list() {
    while IFS=$'\x1f' read -r key spec def h; do
        echo ".TP"
        echo ".BI \"$(roff "$key") = \" \"$(roff "$spec")\""
        roff "$h"
        echo ".br"
        if [ -z "$def" ]; then echo "Default: empty."; else echo "Default: $(roff "$def")."; fi
    done < <(keys_tsv)
}

# 2. portzerod(8).
cat > "$OUT/portzerod.8" << EOF
.TH PORTZEROD 8 "$DATE" "portzero $VERSION" "System Administration"
.SH NAME
portzerod \\- InfiniBand switch management agent on port 0
.SH SYNOPSIS
.B portzerod
.RB [ \\-c
.IR portzero.conf ]
.RB [ \\-o
.IR key = value ]...
.RB [ \\-v ]
.RB [ \\-\\-check\\-config ]
.br
.B portzerod \\-\\-help
.SH DESCRIPTION
.B portzerod
is the management agent behind an InfiniBand switch's port 0: the subnet
management agent (SMA) that the subnet manager programs, the performance
management agent (PMA) that
.BR perfquery (8)
reads, a congestion monitor whose hot spots go to the master SM as notices,
and, over IPoIB on port 0, an SNMP agent (IF\\-MIB, PORTZERO\\-MIB) and an SSH
command line for operators.
It opens the umad device of its port once at start
.RB ( ca ,
.BR port ),
and runs until SIGTERM or SIGINT, on which it exits 0.
.SH OPTIONS
.TP
.BI \\-c " file"
Read the configuration file (see
.BR portzero.conf (5)).
.TP
.BI \\-o " key" = value
Override one setting; the keys are those below. Repeatable; wins over the file.
.TP
.B \\-v
More log output (repeatable).
.TP
.B \\-\\-check\\-config
Parse the configuration, print every key with its value, and exit: 0 when
it is valid, 2 with a message naming the line otherwise.
.TP
.B \\-\\-help
Print the usage and the keys, and exit.
.SH CONFIGURATION KEYS
Generated from the daemon's key table, as
.B portzerod \\-\\-help
prints it.
$(key_list)
.SH FILES
.TP
.I /etc/portzero/portzero.conf
The configuration the service reads.
.TP
.I /etc/portzero/snmp.conf
The SNMP agent's users, communities and sinks (snmpd.conf syntax), named by
.BR snmp_config .
.TP
.I /etc/default/portzerod
.B PORTZEROD_OPTS
(extra options) for the systemd unit and the init script.
.TP
.I /var/lib/portzero
.BR state_dir :
SSH host keys, SNMP engineBoots and users (mode 0700, owner portzero).
.TP
.I /run/portzero/ctl
The control socket of
.BR pz\\-cli (1).
.TP
.I /usr/share/snmp/mibs/PORTZERO\\-MIB.txt
The enterprise MIB.
.SH SEE ALSO
.BR portzero.conf (5),
.BR opensm (8),
.BR smpquery (8),
.BR perfquery (8),
.BR snmpd.conf (5)
EOF

# 3. portzero.conf(5).
cat > "$OUT/portzero.conf.5" << EOF
.TH PORTZERO.CONF 5 "$DATE" "portzero $VERSION" "File Formats"
.SH NAME
portzero.conf \\- configuration of the portzero switch agent
.SH SYNOPSIS
.I /etc/portzero/portzero.conf
.SH DESCRIPTION
.BR portzerod (8)
reads one
.IB key " = " value
per line; a
.B #
starts a comment, blank lines are ignored, and a key may appear once.
A value runs to the end of the line. An unknown key or a value outside its
range is an error that names the line:
.B portzerod \\-c /etc/portzero/portzero.conf \\-\\-check\\-config
checks a file without starting the agent.
.B \\-o
.IR key = value
on the command line (\\fBPORTZEROD_OPTS\\fR in
.IR /etc/default/portzerod )
overrides a key.
.PP
The packaged file sets
.B ctl_socket
and
.B snmp_config
and lists every other key commented out with its default.
.SH KEYS
Generated from the daemon's key table, as
.B portzerod \\-\\-help
prints it.
$(key_list)
.SH EXAMPLE
.nf
ip_address = 10.0.0.1/24
snmp_config = /etc/portzero/snmp.conf
ssh_authorized_keys = /etc/portzero/authorized_keys
.fi
.SH SEE ALSO
.BR portzerod (8),
.BR snmpd.conf (5)
EOF
