#!/bin/bash
# Interleaved A/B of the Netty transports: the load generator's in-process `bench` (Tally and the load client in one
# process, both on the transport under test), `sync`, one line per run: throughput, latency, and CPU per request of
# the server's I/O thread, the load client and the whole process.
#
#   perf/scripts/ab-transport.sh SCENARIO CONNECTIONS ROUNDS TRANSPORT...
#   e.g. perf/scripts/ab-transport.sh uniform 64 3 nio io_uring
#
# Uses perf/target/benchmarks.jar of this checkout (mvn -B -q -pl perf -am package -DskipTests).
set -euo pipefail
SC=$1; CO=$2; R=$3; shift 3
JAR=$(cd "$(dirname "$0")/../.." && pwd)/perf/target/benchmarks.jar
for i in $(seq 1 "$R"); do
  for t in "$@"; do
    out=$(java -Dchronicle.analytics.disable=true -cp "$JAR" dev.tally.perf.load.LoadMain bench --durability sync --scenario "$SC" \
      --accounts 100000 --connections "$CO" --seconds 15 --warmup-seconds 5 --retention-ms 60000 --keys-max 8000000 --transport "$t" 2>&1)
    echo "$(date -u +%H:%M:%S) round $i $t: $(echo "$out" | grep -o 'I/O thread(s) on [a-z_]*' | head -1) |" \
      "$(echo "$out" | grep -o 'tps=[0-9]* p50_us=[0-9]* p99_us=[0-9]* p999_us=[0-9]*.*check=[a-z]*') |" \
      "$(echo "$out" | awk '/^ +server netty I\/O/ {print "I/O us/req", $6}') |" \
      "$(echo "$out" | awk '/^ +load client/ {print "client us/req", $5}') |" \
      "$(echo "$out" | awk '/whole process/ {print "process us/req", $5, "cores", $4}')"
  done
done
