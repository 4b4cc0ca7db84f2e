#!/bin/bash
# Soak at the default settings: `tally serve` started as README starts it (embedded PostgreSQL read model on,
# 24 h key retention, default tables, snapshots on), driven by the load generator's closed loop for MINUTES, and
# /metrics plus the process's RSS sampled every 10 s. Prints the transfers applied per minute, the first and last
# 5 minutes' rates and their ratio, heap and RSS after warm-up, and every refusal counter.
#
# usage (from the repository root, after `mvn -B -q package -DskipTests`):
#   perf/scripts/soak.sh MINUTES SCENARIO [OUT_DIR] [-- extra tally serve flags]
# e.g. perf/scripts/soak.sh 30 uniform
#      perf/scripts/soak.sh 30 batch /tmp/soak-batch
#      perf/scripts/soak.sh 10 batch /tmp/soak-nrm -- --no-read-model
# With SOAK_CONTINUE=1 it keeps OUT_DIR's data folder: the server restarts on an earlier soak's journal, snapshots, cold
# index and PostgreSQL (how long it took to be ready is printed), and the load adds fresh accounts beside the old ones,
# i.e. a longer soak in parts, the later one measured on stores that are no longer young.
set -u
MINUTES=$1; SCENARIO=$2; OUT=${3:-/tmp/tally-soak-$SCENARIO}
shift 3 2>/dev/null || shift $#
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${SOAK_CONTINUE:-0}" = 1 ] && [ -d "$OUT/data" ]; then
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name data -exec rm -rf {} +
else
  rm -rf "$OUT"; mkdir -p "$OUT"
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
java -Xmx2g -XX:+UseParallelGC -Dchronicle.analytics.disable=true -jar "$REPO/server/target/tally.jar" serve --port "$PORT" \
  --data-dir "$OUT/data" --api-key t:soak-key-1234 "${EXTRA[@]}" > "$OUT/serve.log" 2>&1 &
SERVER=$!
STARTED=$(date +%s.%N)
for _ in $(seq 1 1500); do curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/ready" 2>/dev/null | grep -q 200 && break; sleep 0.2; done
echo "server ready after $(echo "$(date +%s.%N) - $STARTED" | bc) s (du of the data folder: $(du -sh "$OUT/data" | cut -f1))"
# time, transfers applied, heap used, RSS kB, keys evicted, transfers evicted, capacity_exceeded, cold refused, ring rejections,
# PostgreSQL writer refusals, the machine's 1-minute load average (other work on it shows there), CPU clock ticks used so
# far by the server's JVM and by its embedded PostgreSQL (the postmaster and its children): CPU per transfer is the
# figure neighbours on a shared machine distort least; the cold index's lookups and the seconds they took
ticks() { awk '{s += $14 + $15} END {print s + 0}' "$@" 2>/dev/null || echo 0; }
( while kill -0 $SERVER 2>/dev/null; do
    m=$(curl -s "http://127.0.0.1:$PORT/metrics")
    rss=$(awk '/^VmRSS/{print $2}' /proc/$SERVER/status 2>/dev/null)
    jvm=$(ticks /proc/$SERVER/stat)
    pm=$(head -1 "$OUT/data/pg/postmaster.pid" 2>/dev/null)
    pg=0; [ -n "$pm" ] && pg=$(ticks /proc/$pm/stat $(pgrep -P "$pm" | sed 's|.*|/proc/&/stat|'))
    echo "$(date +%s) $(echo "$m" | awk '
      /^tally_transfers_applied_total /{t=$2}
      /^jvm_memory_used_bytes\{area="heap"/{h+=$NF}   # the last field: a pool name has spaces
      /^tally_ledger_evicted_total\{table="keys"/{ek=$2}
      /^tally_ledger_evicted_total\{table="transfers"/{et=$2}
      /^tally_ledger_outcomes_total\{code="capacity_exceeded"/{ce=$2}
      /^tally_cold_refused_total/{cr+=$2}
      /^tally_ring_rejections_total /{rr=$2}
      /^tally_pg_writer_refusals_total/{pr+=$2}
      /^tally_cold_lookups_total /{lk=$2}
      /^tally_cold_lookup_seconds_total /{ls=$2}
      END {printf "%d %d", t, h}
      END {printf " '"${rss:-0}"' %d %d %d %d %d %d '"$(cut -d' ' -f1 /proc/loadavg) $jvm $pg"' %d %.6f\n", ek, et, ce, cr, rr, pr, lk, ls}')"
    sleep 10
  done > "$OUT/samples.txt" ) &
SAMPLER=$!
java -Xmx2g -XX:+UseParallelGC -Dchronicle.analytics.disable=true -cp "$REPO/perf/target/benchmarks.jar" dev.tally.perf.load.LoadMain run \
  --url "http://127.0.0.1:$PORT" --api-key soak-key-1234 --scenario "$SCENARIO" --accounts 100000 \
  --seconds $((MINUTES * 60)) --warmup-seconds 30 --results-dir "$OUT/results" > "$OUT/load.log" 2>&1
kill $SERVER; wait $SERVER; kill $SAMPLER 2>/dev/null
grep -E 'RESULT|replies|check' "$OUT/load.log" | tail -5
grep -ciE ' WARN | ERROR ' "$OUT/serve.log" | sed 's/^/server log WARN+ERROR lines: /'
python3 - "$OUT" <<'PY'
import sys
out = sys.argv[1]
rows = [list(map(float, l.split())) for l in open(out + '/samples.txt') if len(l.split()) == 15]
rows = [r for r in rows if r[1] > 0]
# the measured part: a minute after the first sample whose transfers grew (setup's funding), i.e. past the warm-up
start = next(i for i in range(1, len(rows)) if rows[i][1] - rows[i - 1][1] > 0) + 6
rows = rows[start:]
def rate(a, b):
    return (b[1] - a[1]) / max(1, b[0] - a[0])
per_minute = [rate(rows[i], rows[i + 6]) for i in range(0, len(rows) - 6, 6)]
print("transfers/s per minute:", " ".join(f"{r:,.0f}" for r in per_minute))
n = min(30, len(rows) // 2 - 1)   # 5 minutes, or half the run when it is shorter than 10
first, last = rate(rows[0], rows[n]), rate(rows[-n - 1], rows[-1])
print(f"first {n / 6:.0f} min {first:,.0f}/s, last {n / 6:.0f} min {last:,.0f}/s, last/first {last / first:.3f}")
if len(rows) > 3 * n:   # the same without the young database's first minutes: the second window against the last
    second = rate(rows[n], rows[2 * n])
    print(f"second {n / 6:.0f} min {second:,.0f}/s, last {n / 6:.0f} min {last:,.0f}/s, last/second {last / second:.3f}")
heap = [r[2] / 2**20 for r in rows]; rss = [r[3] / 1024 for r in rows]
# heap used swings between collections: its highest and lowest in the first and the last window say whether it grows
print(f"heap used MiB, first {n / 6:.0f} min: {min(heap[:n + 1]):,.0f}..{max(heap[:n + 1]):,.0f}, last {n / 6:.0f} min: "
      f"{min(heap[-n - 1:]):,.0f}..{max(heap[-n - 1:]):,.0f}; RSS MiB: first {rss[0]:,.0f} last {rss[-1]:,.0f} max {max(rss):,.0f}")
print(f"evicted keys {rows[-1][4]:,.0f} transfers {rows[-1][5]:,.0f}; capacity_exceeded {rows[-1][6]:.0f}; cold refused {rows[-1][7]:.0f}; "
      f"ring rejections {rows[-1][8]:.0f}; PostgreSQL writer refusals {rows[-1][9]:,.0f}")
load = [r[10] for r in rows]
def cpu(a, b, column):   # CPU microseconds per transfer between two samples (clock ticks of 10 ms)
    return (b[column] - a[column]) * 10_000 / max(1, b[1] - a[1])
print(f"CPU per transfer, first {n / 6:.0f} min: JVM {cpu(rows[0], rows[n], 11):.1f} us + PostgreSQL {cpu(rows[0], rows[n], 12):.1f} us; "
      f"last {n / 6:.0f} min: JVM {cpu(rows[-n - 1], rows[-1], 11):.1f} us + PostgreSQL {cpu(rows[-n - 1], rows[-1], 12):.1f} us")
def lookup(a, b):   # the journal stage's cold-index lookups: microseconds each
    return (b[14] - a[14]) * 1e6 / max(1, b[13] - a[13])
print(f"cold index lookup, first {n / 6:.0f} min: {lookup(rows[0], rows[n]):.1f} us each, last {n / 6:.0f} min: "
      f"{lookup(rows[-n - 1], rows[-1]):.1f} us")
print(f"load average over the run: {min(load):.1f}..{max(load):.1f}, median {sorted(load)[len(load) // 2]:.1f}")
PY

