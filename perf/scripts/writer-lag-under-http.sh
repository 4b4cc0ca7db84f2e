#!/bin/bash
# PostgreSQL writer lag under HTTP load: a real `tally serve` (journal + embedded PostgreSQL read model),
# the load generator's open loop against it, and /metrics sampled every ~0.5 s for the journal index, the
# writer's watermark and its lag (commands, and journaled seconds). Prints the lag over the measured window.
#
# usage (from the repository root, after `mvn -B -o -q package -DskipTests -pl gateway,perf -am`):
#   perf/scripts/writer-lag-under-http.sh RATE MEASURED_SECONDS WARMUP_SECONDS [OUT_DIR]
# e.g. perf/scripts/writer-lag-under-http.sh 3000 60 30
#
# The warmup must be long enough for the writer to absorb setup (100,000 accounts created and funded in
# batches: ~200,000 commands in ~10 s), or the window starts with setup's backlog.
set -u
RATE=$1; MEASURED=$2; WARMUP=$3; OUT=${4:-/tmp/tally-writer-lag-$RATE}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$OUT"; mkdir -p "$OUT"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
java -Xmx3g -Dchronicle.analytics.disable=true -jar "$REPO/server/target/tally.jar" serve --port "$PORT" --data-dir "$OUT/data" \
  --api-key t:bench-key-123 --accounts-max 200000 --sub-balances-max 400000 --keys-max 2000000 --transfers-max 2000000 \
  --holds-max 1000 --key-retention-ms 10000 --tick-interval-ms 100 > "$OUT/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 600); do curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/ready" 2>/dev/null | grep -q 200 && break; sleep 0.2; done
# time, journal index, watermark, lag commands, lag seconds
( while kill -0 $SERVER 2>/dev/null; do
    m=$(curl -s "http://127.0.0.1:$PORT/metrics")
    echo "$(date +%s.%N) $(echo "$m" | awk '/^tally_journal_index /{j=$2} /^tally_pg_writer_watermark /{w=$2}
      /^tally_pg_writer_lag_commands /{c=$2} /^tally_pg_writer_lag_seconds /{s=$2} END {print j, w, c, s}')"
    sleep 0.5
  done > "$OUT/samples.txt" ) &
SAMPLER=$!
java -Xmx2g -Dchronicle.analytics.disable=true -cp "$REPO/perf/target/benchmarks.jar" dev.tally.perf.load.LoadMain run \
  --url "http://127.0.0.1:$PORT" --api-key bench-key-123 --scenario uniform --accounts 100000 --mode open --rate "$RATE" \
  --seconds "$MEASURED" --warmup-seconds "$WARMUP" --results-dir "$OUT/results" 2>&1 \
  | while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > "$OUT/load.log"
kill $SERVER; wait $SERVER; kill $SAMPLER 2>/dev/null
grep -E 'RESULT|replies' "$OUT/load.log" | cut -d' ' -f2-
python3 - "$OUT" "$WARMUP" "$MEASURED" <<'PY'
import sys
out, warm, meas = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
setup_end = next(float(l.split(' ', 1)[0]) for l in open(out + '/load.log') if l.split(' ', 1)[1].startswith('setup:'))
rows = [tuple(map(float, l.split())) for l in open(out + '/samples.txt') if len(l.split()) == 5]
w = [r for r in rows if setup_end + warm <= r[0] <= setup_end + warm + meas]
pct = lambda a, p: sorted(a)[min(len(a) - 1, int(p * len(a)))]
span = w[-1][0] - w[0][0]
print(f"window: {len(w)} samples; journal {(w[-1][1] - w[0][1]) / span:.0f} commands/s, watermark {(w[-1][2] - w[0][2]) / span:.0f} commands/s")
for name, i, fmt in (("lag commands", 3, "{:.0f}"), ("lag seconds", 4, "{:.3f}")):
    a = [r[i] for r in w]
    print(name + ": p50 " + fmt.format(pct(a, .5)) + ", p90 " + fmt.format(pct(a, .9)) + ", max " + fmt.format(max(a)))
PY
