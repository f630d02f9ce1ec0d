#!/usr/bin/env bash
# Run every libFuzzer target of a fuzz build for a fixed time (make fuzz-short,
# make fuzz-long).
#
# Usage: scripts/run-fuzzers.sh FUZZ_DIR SECONDS
#   FUZZ_DIR  the clang build with -DPZ_FUZZ=ON (its bin/fuzz_* executables)
#   SECONDS   -max_total_time of each target
#   JOBS      (environment) how many targets run at once (default 2: the cores)
#
# Each target runs on FUZZ_DIR/corpus/<name>, seeded from tests/fuzz/corpus/<name>
# (<name> with or without the fuzz_ prefix), with tests/fuzz/<name>.dict if there
# is one. libFuzzer exits non-zero on a crash, leak, timeout or OOM: the input is
# saved in FUZZ_DIR/artifacts/, the log's tail printed, and the script exits 1
# once the running targets have finished. Targets are independent processes, so
# JOBS of them share the machine the way the ctest stages do (-j$JOBS).
set -euo pipefail

die() {
    echo "run-fuzzers: error: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: $0 FUZZ_DIR SECONDS"
DIR=$1
SECONDS_EACH=$2
JOBS=${JOBS:-2}
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR/artifacts"

# Seed the corpus of target $1 and print its -dict= argument (or nothing).
prepare_target() {
    local name=$1 seed d
    mkdir -p "$DIR/corpus/$name"
    for seed in "$SRC/tests/fuzz/corpus/$name" "$SRC/tests/fuzz/corpus/${name#fuzz_}"; do
        [ -d "$seed" ] && cp -rn "$seed"/. "$DIR/corpus/$name"/
    done
    for d in "$SRC/tests/fuzz/$name.dict" "$SRC/tests/fuzz/${name#fuzz_}.dict"; do
        [ -f "$d" ] && { echo "-dict=$d"; return; }
    done
    return 0
}

# Run target $1 to its end; returns libFuzzer's exit status. Prints its summary.
run_target() {
    local exe=$1 name dict rc=0
    name=$(basename "$exe")
    dict=$(prepare_target "$name")
    "$exe" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$DIR/artifacts/$name-" ${dict:+"$dict"} "$DIR/corpus/$name" \
        > "$DIR/$name.log" 2>&1 || rc=$?
    {
        echo "== $name: $SECONDS_EACH s, corpus $DIR/corpus/$name ($(ls "$DIR/corpus/$name" | wc -l) inputs) $dict"
        if [ $rc -ne 0 ]; then
            tail -n 60 "$DIR/$name.log"
            echo "FAILED: $name (exit $rc; full log: $DIR/$name.log)"
        else
            tail -n 12 "$DIR/$name.log" | grep -E '^(stat::|Done|INFO: )' || true
        fi
    } | flock "$DIR/.print.lock" cat
    return $rc
}

targets=()
for f in "$DIR"/bin/fuzz_*; do
    [ -f "$f" ] && [ -x "$f" ] && targets+=("$f")
done
[ ${#targets[@]} -gt 0 ] || die "no $DIR/bin/fuzz_* executables (is PZ_FUZZ wired up?)"

failed=0
running=0
for exe in "${targets[@]}"; do
    if [ $running -ge "$JOBS" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    [ $failed = 0 ] || break
    run_target "$exe" &
    running=$((running + 1))
done
while [ $running -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
[ $failed = 0 ] || die "a fuzz target failed (inputs in $DIR/artifacts/)"
echo "run-fuzzers: ${#targets[@]} targets, $SECONDS_EACH s each, $JOBS at a time: no findings"
