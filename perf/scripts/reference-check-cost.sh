#!/bin/bash
# Run from anywhere after `mvn -B -o -q package -DskipTests`; it uses port 18090 and /tmp/srvref.
# The cost of the journaler's reference check (docs/BENCHMARKS.md, "Reference check: cost"): a fresh tally serve (embedded PostgreSQL) per run; uniform, 64 connections, 10 s: without and with a reference on
# every transfer, interleaved; the journaler thread's CPU over the measured window from /proc
cd "$(dirname "$0")/../.."
for round in 1 2; do for refs in "" "--references"; do
  rm -rf /tmp/srvref
  java -Dchronicle.analytics.disable=true -jar gateway/target/tally.jar serve --port 18090 --data-dir /tmp/srvref \
    --api-key t:kkkkkkkkkkkkkkkkkkkk --durability sync --key-retention-ms 15000 --keys-max 8000000 > /tmp/srvref.log 2>&1 &
  SRV=$!
  for i in $(seq 1 60); do curl -sf http://127.0.0.1:18090/ready > /dev/null && break; sleep 1; done
  JT=$(grep -l tally-journaler /proc/$SRV/task/*/comm | head -1 | cut -d/ -f5)
  java -cp perf/target/benchmarks.jar dev.tally.perf.load.LoadMain run --url http://127.0.0.1:18090 --api-key kkkkkkkkkkkkkkkkkkkk \
    --scenario uniform --accounts 100000 --connections 64 --seconds 10 --warmup-seconds 5 $refs > /tmp/refrun.out 2>&1 &
  LG=$!
  sleep 12; a=$(awk '{print $14+$15}' /proc/$SRV/task/$JT/stat); sleep 6; b=$(awk '{print $14+$15}' /proc/$SRV/task/$JT/stat)
  wait $LG
  echo "round $round ${refs:-no-references}: $(grep -o 'tps=[0-9]* p50_us=[0-9]* p99_us=[0-9]* p999_us=[0-9]*.*check=[a-z]*' /tmp/refrun.out) | journaler $(( (b-a) )) ticks in 6 s"
  kill $SRV; wait $SRV 2>/dev/null
done; done
