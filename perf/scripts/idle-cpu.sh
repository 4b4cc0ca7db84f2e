#!/bin/bash
# What an idle `tally serve` costs (docs/BENCHMARKS.md, "Idle CPU"): for each jar given (default: this build's),
# interleaved over ROUNDS rounds, a fresh server on port 18098 with its embedded PostgreSQL; 20 s after /ready,
# every thread's utime + stime over SECONDS from /proc (clock ticks, 100 per second), and the PostgreSQL
# processes' over the same window. Usage: perf/scripts/idle-cpu.sh [SECONDS] [ROUNDS] [JAR...]
cd "$(dirname "$0")/../.."
SECONDS_IDLE=${1:-20}; ROUNDS=${2:-1}; shift $(( $# < 2 ? $# : 2 ))
JARS=("$@"); [ ${#JARS[@]} -eq 0 ] && JARS=(server/target/tally.jar)
ticks() { for t in /proc/$1/task/*; do echo "$(basename "$t") $(tr ' ' _ < "$t/comm") $(sed 's/.*) //' "$t/stat" | awk '{print $12+$13}')"; done | sort; }
# the postmaster names the data folder; its children (checkpointer, WAL writer, backends, ...) do not
pg_ticks() { local pm; pm=$(pgrep -f "postgres.*-D $1" | head -1); [ -z "$pm" ] && { echo 0; return; }
  for p in $pm $(pgrep -P "$pm"); do sed 's/.*) //' /proc/$p/stat | awk '{print $12+$13}'; done | awk '{s+=$1} END {print s+0}'; }
for round in $(seq 1 "$ROUNDS"); do for jar in "${JARS[@]}"; do
  rm -rf /tmp/idle-cpu
  java -Dchronicle.analytics.disable=true -jar "$jar" serve --port 18098 --data-dir /tmp/idle-cpu \
    --api-key t:kkkkkkkkkkkkkkkkkkkk > /tmp/idle-cpu.log 2>&1 &
  SRV=$!
  for i in $(seq 1 90); do curl -sf http://127.0.0.1:18098/ready > /dev/null && break; sleep 1; done
  sleep 20
  ticks $SRV > /tmp/idle-cpu.a; pa=$(pg_ticks /tmp/idle-cpu); sleep "$SECONDS_IDLE"; ticks $SRV > /tmp/idle-cpu.b; pb=$(pg_ticks /tmp/idle-cpu)
  echo "round $round $jar: $(join /tmp/idle-cpu.a /tmp/idle-cpu.b | awk -v s="$SECONDS_IDLE" '{t+=$5-$3} END {printf "JVM %d ticks in %d s = %.2f %% of a core", t, s, t/s}')," \
       "PostgreSQL $((pb - pa)) ticks; busiest threads: $(join /tmp/idle-cpu.a /tmp/idle-cpu.b | awk '$5>$3 {print $5-$3, $2}' | sort -rn | head -6 | paste -sd, -)"
  kill $SRV; wait $SRV 2>/dev/null
done; done
