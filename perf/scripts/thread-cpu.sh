#!/usr/bin/env bash
# CPU each thread of a running JVM used over an interval, from /proc/PID/task/*/stat (fields 14 and 15: user and
# kernel time in clock ticks of 10 ms; field 10: minor page faults) and /proc/PID/task/*/status (voluntary context
# switches: how often the thread blocked, i.e. was parked or slept and had to be woken), busiest first. Divide by the
# requests served in the interval for CPU and wake-ups per request and thread.
#   perf/scripts/thread-cpu.sh PID [SECONDS]      e.g. inside a `compare --systems tally --seconds 40` run
set -euo pipefail
pid=$1; seconds=${2:-10}
snapshot() {
  for t in /proc/"$pid"/task/*; do
    line="$(basename "$t") $(tr ' ' '_' < "$t/comm" 2>/dev/null) $(awk '{print $14, $15, $10}' "$t/stat" 2>/dev/null) $(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null)" || continue
    echo "$line"   # a thread that ended while this ran is left out
  done | awk 'NF == 6' | sort
}
t0=$(date +%s%N); before=$(snapshot); sleep "$seconds"; after=$(snapshot); t1=$(date +%s%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')   # the snapshots take time too
echo "interval: $elapsed s"
# joined: tid, name, user, kernel, faults, switches before, then name, user, kernel, faults, switches after
join <(echo "$before") <(echo "$after") |
  awk -v s="$elapsed" '{ u = $8 - $3; k = $9 - $4; if (u + k > 0)
    printf "%-20s %6.2f s  %5.1f %% of a core  (user %5.2f s, kernel %5.2f s, %d minor faults, %d wake-ups)\n", $2, (u + k) / 100, (u + k) / s, u / 100, k / 100, $10 - $5, $11 - $6 }' |
  sort -k2 -n -r
