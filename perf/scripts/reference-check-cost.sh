#!/bin/bash
# Run from anywhere after `mvn -B -o -q package -DskipTests`; it uses port 18090 and /tmp/srvref.
# The cost of the reference check (docs/benchmarks/history/2026-11-30-reference-check-cost.md): a fresh tally serve (embedded
# PostgreSQL) per run; uniform, 64 connections, 10 s: without and with a reference on every transfer, interleaved,
# for each server jar given (default: this build's), ROUNDS rounds; the journaler's CPU over 6 s of the measured
# window, from /proc.
#   perf/scripts/reference-check-cost.sh [ROUNDS] [TALLY_JAR...]
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}; shift 2>/dev/null
JARS=("$@"); [ ${#JARS[@]} -eq 0 ] && JARS=(server/target/tally.jar)
thread_ticks() { local t; t=$(grep -lx "$2" /proc/$1/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5); [ -z "$t" ] && { echo 0; return; }
  awk '{print $14+$15}' /proc/$1/task/$t/stat; }
for round in $(seq 1 "$ROUNDS"); do for jar in "${JARS[@]}"; do for refs in "" "--references"; do
  rm -rf /tmp/srvref
  java -Dchronicle.analytics.disable=true -jar "$jar" serve --port 18090 --data-dir /tmp/srvref \
    --api-key t:kkkkkkkkkkkkkkkkkkkk --durability sync --key-retention-ms 15000 --keys-max 8000000 > /tmp/srvref.log 2>&1 &
  SRV=$!
  for i in $(seq 1 60); do curl -sf http://127.0.0.1:18090/ready > /dev/null && break; sleep 1; done
  java -cp perf/target/benchmarks.jar dev.tally.perf.load.LoadMain run --url http://127.0.0.1:18090 --api-key kkkkkkkkkkkkkkkkkkkk \
    --scenario uniform --accounts 100000 --connections 64 --seconds 10 --warmup-seconds 5 $refs > /tmp/refrun.out 2>&1 &
  LG=$!
  sleep 12; ja=$(thread_ticks $SRV tally-journaler)
  sleep 6; jb=$(thread_ticks $SRV tally-journaler)
  wait $LG
  echo "round $round $(basename "$jar") ${refs:-no-references}: $(grep -o 'tps=[0-9]* p50_us=[0-9]* p99_us=[0-9]* p999_us=[0-9]*.*check=[a-z]*' /tmp/refrun.out) | journaler $((jb - ja)) ticks in 6 s"
  kill $SRV; wait $SRV 2>/dev/null
done; done; done
