#!/usr/bin/env bash
# Interleaved A/B of JVM flags on Tally alone: `compare --systems tally` runs SCENARIOS once per variant per round
# (A, B, ... then again), so that a shared machine's noise hits every variant alike. The compare runs the server, the
# load client and (in a full compare) the peer's Java side in one JVM, so a flag applies to all of them.
# Prints per run the measured window's transfers/s, p50 and p99 and the whole process's CPU per request.
#
#   perf/scripts/jvm-flags-ab.sh ROUNDS SCENARIOS 'FLAGS_A' 'FLAGS_B' ...      ('' = the JVM's defaults)
#   e.g. perf/scripts/jvm-flags-ab.sh 3 uniform,batch '-XX:+UseParallelGC' ''
set -euo pipefail
rounds=$1; scenarios=$2; shift 2
out=${TMPDIR:-/tmp}/jvm-flags-ab; mkdir -p "$out"
cd "$(dirname "$0")/../.."
for round in $(seq 1 "$rounds"); do
  variant=0
  for flags in "$@"; do
    variant=$((variant + 1))
    log="$out/variant$variant-round$round.log"
    # shellcheck disable=SC2086 # the flags are words
    java -Dchronicle.analytics.disable=true $flags -jar perf/target/tally-perf.jar compare --systems tally --scenario "$scenarios" \
      --durability sync --seconds 15 > "$log" 2>&1
    # the first RESULT is the warm-up run: one per scenario list, of the first scenario
    results=$(grep -o 'RESULT scenario=[a-zA-Z]* mode=closed tps=[0-9]* p50_us=[0-9]* p99_us=[0-9]*' "$log" | tail -n +2 | cut -d' ' -f2,4-6 | paste -sd' ')
    cpu=$(grep 'whole process' "$log" | tail -n +2 | awk '{print $6}' | paste -sd' ')
    echo "round $round [${flags:-defaults}] $results | whole process us/request: $cpu"
  done
done
