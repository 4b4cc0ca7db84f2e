#!/usr/bin/env bash
# The peer's pool size per scenario, measured: for each scenario, the peer alone (`compare --systems peer`) at each
# pool size in turn, ROUNDS times (the sizes interleaved in each round), the median throughput and CPU per transfer
# of each. compare's default --peer-pool (PeerPools.DEFAULTS_TEXT) is the best size of each scenario in such a sweep.
#   mvn -B -q package -DskipTests -pl perf -am && perf/scripts/peer-pool-sweep.sh [SECONDS] [ROUNDS] [DURABILITY] [POOLS...]
#   e.g. perf/scripts/peer-pool-sweep.sh 10 2 sync 2 4 8 16 32    (JAR=... to measure another build of tally-perf.jar)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}; rounds=${2:-1}; durability=${3:-sync}; shift $(( $# < 3 ? $# : 3 ))
pools=("$@"); [ ${#pools[@]} -gt 0 ] || pools=(2 4 8 16 32)
scenarios=(${SCENARIOS:-uniform hotCredit hotDebit retries batch})
log=$(mktemp /tmp/peer-pool-sweep-XXXXXX.log)
echo "peer pool sweep: $durability, ${seconds} s per run, $rounds round(s), pools ${pools[*]}, scenarios ${scenarios[*]}; log $log"
for round in $(seq "$rounds"); do
  for scenario in "${scenarios[@]}"; do
    for pool in "${pools[@]}"; do
      out=$(java -XX:+UseParallelGC -jar "${JAR:-perf/target/tally-perf.jar}" compare --systems peer --durability "$durability" --scenario "$scenario" \
        --seconds "$seconds" --peer-pool "$pool" --warmup-run-seconds 0 --open-loop-fraction 0 2>&1 | tee -a "$log")
      tps=$(echo "$out" | grep -o '^RESULT .* peer_tps=[0-9a-z]*' | grep -o 'peer_tps=.*' | cut -d= -f2)
      cpu=$(echo "$out" | grep 'cpu per transfer applied' | tail -1 | sed 's/.*: //; s/ us$//')
      echo "round=$round scenario=$scenario pool=$pool tps=$tps cpu_us=\"$cpu\" load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done | tee "$log.lines"
echo "median per scenario and pool (transfers/s), and each round's figure:"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } k = f["scenario"] " pool=" f["pool"]; n[k]++; v[k, n[k]] = f["tps"] }
  END { for (k in n) {
          for (i = 2; i <= n[k]; i++) for (j = i; j > 1 && v[k, j - 1] > v[k, j]; j--) { t = v[k, j]; v[k, j] = v[k, j - 1]; v[k, j - 1] = t }
          m = n[k] % 2 ? v[k, (n[k] + 1) / 2] : (v[k, n[k] / 2] + v[k, n[k] / 2 + 1]) / 2
          all = ""; for (i = 1; i <= n[k]; i++) all = all " " v[k, i]
          print k, m, "(" substr(all, 2) ")" } }' "$log.lines" | sort -k1,1 -k2,2V
