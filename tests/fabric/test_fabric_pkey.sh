#!/bin/bash
# test_fabric_pkey.sh PZFABRIC PZFABRIC_CTL PZCTL_ABUSE MCAST_TOOL - partitions.
#
# On ibsim's net.2sw2path4hca (Switch1: [1] Hca1, [2] Hca3; Switch2: [1] Hca2,
# [2] Hca4) OpenSM runs with
#     Default=0x7fff,ipoib : ALL=full ;
#     part1=0x0001 : Hca1=full, Hca2=full ;
#     part2=0x0002,indx0 : Hca3=full, Hca4=full ;
# (port GUIDs read with smpquery).  smpquery reads back what OpenSM
# programmed: the P_Key tables of the CA-facing switch ports (the CA's keys:
# 0xffff 0x8001, or 0x8002 0xffff with part2 at index 0) and their
# enforcement bits (inbound and outbound; none on the inter-switch ports).
#
# A GMP carries the P_Key at index 0 of the sender's table (ibsim's protocol
# has no P_Key index; see fabric/fabric_pkey.c): perfquery from Hca3
# (0x8002) to Hca1 is dropped leaving Switch1 port 1 (PortXmitConstraintErrors,
# pkey-dropped, the log); Hca4 (0x8002) to Hca3 passes, Hca4 to Hca2 is
# dropped at Switch2 port 1; Hca2 (0xffff) to Hca1 passes; SMPs are exempt;
# saquery from Hca3 cannot reach the SM (OpenSM's port has no 0x8002), as on
# hardware when a partition the SM is not in sits at index 0.
set -euo pipefail

# shellcheck source=tests/fabric/fabric_lib.sh
source "$(dirname "$0")/fabric_lib.sh"
fl_init pkey "${1:?usage: test_fabric_pkey.sh PZFABRIC PZFABRIC_CTL ...}" "${2:?}"
pzt_require opensm smpquery perfquery saquery
fl_example_net net.2sw2path4hca

# pkeys LID PORT: the first 4 P_Keys of a switch port, as smpquery prints them.
pkeys() { diag Hca2 smpquery pkeys "$1" "$2" | awk '$1 == "0:" { print $2, $3, $4, $5 }'; }

# ca_pkeys HOST: the first 4 P_Keys of a CA's port 1 (its own view).
ca_pkeys() { diag "$1" smpquery -D pkeys 0 1 | awk '$1 == "0:" { print $2, $3, $4, $5 }'; }

# enforcement LID PORT: "PartEnforceInb PartEnforceOutb" of a switch port.
enforcement() {
    diag Hca2 smpquery portinfo "$1" "$2" |
        awk -F'[.:]+' '$1 == "PartEnforceInb" { i = $2 } $1 == "PartEnforceOutb" { o = $2 }
                       END { print i, o }'
}

# constraint NODE PORT: "xmit rcv" constraint errors of a switch port.
constraint() {
    echo "$(counter "$1" "$2" xmit_constraint_errors) $(counter "$1" "$2" rcv_constraint_errors)"
}

# lid HOST: the LID of a CA's port 1.
lid() { diag "$1" smpquery -D portinfo 0 1 | sed -n 's/^Lid:\.*//p'; }

fl_start_fabric "$NET"
declare -A GUID
for host in Hca1 Hca2 Hca3 Hca4; do
    GUID[$host]=$(diag "$host" smpquery -D nodeinfo 0 | sed -n 's/^PortGuid:\.*//p')
done
check "port GUIDs read" test -n "${GUID[Hca1]}" -a -n "${GUID[Hca4]}"
cat > "$WORK/partitions.conf" << EOF
Default=0x7fff,ipoib : ALL=full ;
part1=0x0001 : ${GUID[Hca1]}=full, ${GUID[Hca2]}=full ;
part2=0x0002,indx0 : ${GUID[Hca3]}=full, ${GUID[Hca4]}=full ;
EOF
fl_start_opensm Hca1 -P "$WORK/partitions.conf"
check "OpenSM: SUBNET UP" fl_wait_up 60
SW1=$(diag Hca1 smpquery -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
SW2=$(diag Hca1 smpquery -D portinfo 0,1,3 0 | sed -n 's/^Lid:\.*//p')
HCA1=$(lid Hca1)
HCA2=$(lid Hca2)
HCA3=$(lid Hca3)

# --- what OpenSM programmed ---------------------------------------------------
check_eq "Switch1 port 1 (Hca1) P_Keys" "0xffff 0x8001 0x0000 0x0000" "$(pkeys "$SW1" 1)"
check_eq "Switch1 port 2 (Hca3) P_Keys" "0x8002 0xffff 0x0000 0x0000" "$(pkeys "$SW1" 2)"
check_eq "Switch2 port 1 (Hca2) P_Keys" "0xffff 0x8001 0x0000 0x0000" "$(pkeys "$SW2" 1)"
check_eq "Switch2 port 2 (Hca4) P_Keys" "0x8002 0xffff 0x0000 0x0000" "$(pkeys "$SW2" 2)"
check_eq "Switch1 port 3 (Switch2) P_Keys untouched" "0xffff 0x0000 0x0000 0x0000" \
    "$(pkeys "$SW1" 3)"
for port in 1 2; do
    check_eq "Switch1 port $port: enforcement in and out" "1 1" "$(enforcement "$SW1" $port)"
    check_eq "Switch2 port $port: enforcement in and out" "1 1" "$(enforcement "$SW2" $port)"
done
check_eq "Switch1 port 3 (inter-switch): no enforcement" "0 0" "$(enforcement "$SW1" 3)"
check_eq "Hca3's own table: part2 at index 0" "0x8002 0xffff 0x0000 0x0000" "$(ca_pkeys Hca3)"
check_eq "Hca1's own table" "0xffff 0x8001 0x0000 0x0000" "$(ca_pkeys Hca1)"

# --- enforcement ------------------------------------------------------------------
dropped0=$(status_value pkey-dropped)
check_eq "no constraint errors yet at Switch1 port 1" "0 0" "$(constraint Switch1 1)"
check "perfquery Hca3 -> Hca1 fails" fails diag Hca3 perfquery "$HCA1"
xmit=$(counter Switch1 1 xmit_constraint_errors)
check "dropped leaving Switch1 port 1 (PortXmitConstraintErrors)" test "$xmit" -ge 1
check_eq "not at Switch1 port 2 (Hca3 may send 0x8002)" 0 "$(counter Switch1 2 rcv_constraint_errors)"
check_eq "status: pkey-dropped counts them" $((dropped0 + xmit)) "$(status_value pkey-dropped)"
check "pzfabric logs the drop" grep -q "P_Key 0x8002 (LID $HCA3 -> $HCA1) dropped leaving Switch1 port 1" \
    "$WORK/fabric.err"

rcv3=$(counter Hca3 1 rcv_pkts)
diag Hca4 perfquery "$HCA3" > /dev/null 2>&1 || true
check "Hca4 -> Hca3 (both part2) reaches Hca3" test "$(counter Hca3 1 rcv_pkts)" -gt "$rcv3"
check_eq "Hca4 -> Hca3: no constraint error at Switch1 port 2" "0 0" "$(constraint Switch1 2)"

diag Hca4 perfquery "$HCA2" > /dev/null 2>&1 || true
check "Hca4 -> Hca2 (not in part2): dropped leaving Switch2 port 1" \
    test "$(counter Switch2 1 xmit_constraint_errors)" -ge 1

xmit=$(counter Switch1 1 xmit_constraint_errors)
rcv1=$(counter Hca1 1 rcv_pkts)
diag Hca2 perfquery "$HCA1" > /dev/null 2>&1 || true
check_eq "Hca2 (0xffff) -> Hca1: no new constraint error" "$xmit" \
    "$(counter Switch1 1 xmit_constraint_errors)"
check "Hca2 -> Hca1 reaches Hca1" test "$(counter Hca1 1 rcv_pkts)" -gt "$rcv1"

check "SMPs are exempt: smpquery Hca3 -> Hca1's LID works" diag Hca3 smpquery nodedesc "$HCA1"
xmit=$(counter Switch1 1 xmit_constraint_errors)
check "saquery from Hca3 (0x8002 at index 0) cannot reach the SM" fails diag Hca3 saquery -s
check "... dropped leaving Switch1 port 1" test "$(counter Switch1 1 xmit_constraint_errors)" -gt "$xmit"
check "saquery from Hca2 works" diag Hca2 saquery -s

fl_stop_opensm
fl_stop_fabric
check_eq "pzfabric exits 0" 0 "$FABRIC_RC"
fl_finish
