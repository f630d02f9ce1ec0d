# shellcheck shell=bash
# bench/sim_lib.sh - the start the benchmarks that run simulators and OpenSMs
# by ID (tests/integration/lib.sh: start_pzfabric, start_ibsim, ...) share.
# Sourced once BIN is set (the build's bin directory, as given): BIN made
# absolute, PZFABRIC=$BIN/pzfabric (what start_pzfabric runs), then
# tests/integration/lib.sh and bench/lib.sh sourced.

BIN=$(cd "$BIN" && pwd)
# shellcheck disable=SC2034 # start_pzfabric (tests/integration/lib.sh) runs it
PZFABRIC=$BIN/pzfabric
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tests/integration/lib.sh
source "$BENCH_DIR/../tests/integration/lib.sh"
# shellcheck source=lib.sh
source "$BENCH_DIR/lib.sh"
