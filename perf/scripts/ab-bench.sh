#!/bin/bash
# Interleaved A/B of two builds of the load generator's in-process bench: A, B, A, B ... on the same machine,
# so that the noise of a shared machine hits both alike. Prints, per run: transfers/s and latency, the
# journaler's and the whole process's CPU per request, and the MB/s the process dirtied (written to disk)
# over 5 s of its measured window.
#
#   perf/scripts/ab-bench.sh DURABILITY SCENARIO CONNECTIONS ROUNDS JAR_A JAR_B
#   e.g. perf/scripts/ab-bench.sh sync batch 16 2 /tmp/old.jar perf/target/benchmarks.jar
#
# Each JAR is a perf/target/benchmarks.jar built at the commit under test (copy it away before rebuilding).
set -euo pipefail
D=$1; SC=$2; CO=$3; R=$4; A=$5; B=$6
OUT=${TMPDIR:-/tmp}/ab-bench; mkdir -p "$OUT"
for i in $(seq 1 "$R"); do
  for jar in "$A" "$B"; do
    log="$OUT/$(basename "$jar" .jar)-$D-$SC-$i.out"
    java -Dchronicle.analytics.disable=true -cp "$jar" dev.tally.perf.load.LoadMain bench --durability "$D" --scenario "$SC" \
      --accounts 100000 --connections "$CO" --seconds 12 --warmup-seconds 4 --retention-ms 60000 --keys-max 8000000 > "$log" 2>&1 &
    sleep 13
    # the bench runs again in a child JVM with the --add-opens Chronicle needs: that child does the work
    pid=$(pgrep -f "add-opens.*LoadMain bench" | tail -1 || true)
    a=$(awk '/^write_bytes/ {print $2}' "/proc/$pid/io" 2>/dev/null || echo 0); sleep 5
    b=$(awk '/^write_bytes/ {print $2}' "/proc/$pid/io" 2>/dev/null || echo 0)
    wait
    echo "$(basename "$jar") $D $SC run$i: $(grep -o 'tps=[0-9]* p50_us=[0-9]* p99_us=[0-9]* p999_us=[0-9]*' "$log") |" \
      "$(awk '/^ +journaler/ {print "journaler us/req", $4, "kernel", $5}' "$log") |" \
      "$(awk '/^ +load client/ {print "client us/req", $5}' "$log") |" \
      "$(awk '/whole process/ {print "process us/req", $5, "cores", $4}' "$log") | write MB/s $(( (b - a) / 5000000 ))"
  done
done
