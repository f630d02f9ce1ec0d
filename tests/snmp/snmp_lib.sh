# shellcheck shell=bash
# snmp_lib.sh - the set-up the loopback SNMP tests (snmp_testd against the real
# net-snmp tools) share; source it after ../lib.sh.
#
#   snmpt_init NAME OFFSET [DIR...]
#       WORK: a new directory pzt-NAME.XXXXXX; PORT = 20000 + PID % 20000 + OFFSET
#       (each test its own OFFSET, so parallel runs do not collide: test_snmp_agent
#       +0..+3, test_snmp_traps +5..+6, test_snmp_system +10..+11, test_snmp_ip6
#       +15..+16); the net-snmp client's private configuration (SNMPCONFPATH,
#       SNMP_PERSISTENT_DIR, no MIBs) in WORK/client; WORK/DIR made for each DIR;
#       an EXIT trap (snmpt_cleanup).
#   SNMPT_PID_VARS  names of the variables holding the PIDs the test started
#                   (read at exit: a test may restart a process under the same name)
#   SNMPT_LOGS      files whose tail is printed when the test failed
#   snmpt_cleanup   stops those PIDs, prints the logs on failure, removes WORK and
#                   exits with the checks' result (an EXIT trap's own status is not
#                   the script's)
SNMPT_PID_VARS=()
SNMPT_LOGS=()

snmpt_cleanup() {
    local rc=$? var pids=()
    for var in "${SNMPT_PID_VARS[@]}"; do
        pids+=("${!var:-}")
    done
    stop_started "${pids[@]}"
    pzt_cleanup_work "$rc" "${SNMPT_LOGS[@]}"
    checks_finish || rc=1
    exit "$rc"
}

snmpt_init() {
    local name=$1 offset=$2 dir
    shift 2
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/pzt-$name.XXXXXX")
    # shellcheck disable=SC2034 # the test reads it
    PORT=$((20000 + ($$ % 20000) + offset))
    trap snmpt_cleanup EXIT
    mkdir -p "$WORK/client/cert_indexes"
    for dir in "$@"; do
        mkdir -p "$WORK/$dir"
    done
    export SNMPCONFPATH=$WORK/client SNMP_PERSISTENT_DIR=$WORK/client MIBS="" MIBDIRS=$WORK/client
}
