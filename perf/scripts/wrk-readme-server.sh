#!/usr/bin/env bash
# An outside client against README's own server. Starts `tally serve` as README's first command does (the parallel
# collector, port 8080, the demo key, its embedded PostgreSQL read model on; a fresh data folder under /tmp instead of
# ./data), creates 1 funding account and CUSTOMERS funded customers, then drives POST /v1/transfers with wrk
# (perf/scripts/wrk-transfers.lua: uniform transfers, a new Idempotency-Key each) and reports:
#   - 201s and 503s (refused while the PostgreSQL writer is behind its lag bound) per second, wrk's latency;
#   - the read model's catch-up: seconds after wrk ended until PostgreSQL's watermark reached the journal index of that
#     moment (/metrics), and the whole system's rate = 201s / (wrk's seconds + catch-up), as compare counts it;
#   - CPU per 201 of the server's JVM and of its PostgreSQL over wrk's run, and every JVM thread's CPU (thread-cpu.sh).
#   mvn -B -q package -DskipTests && perf/scripts/wrk-readme-server.sh [SECONDS] [CONNECTIONS] [CUSTOMERS] [THREADS]
# Needs wrk (Debian: apt-get install -y wrk) and python3. Loopback only. wrk is a closed loop and its latency is from
# the actual send (no coordinated-omission correction): compare's open-loop runs give latency at a fixed rate.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}; connections=${2:-64}; customers=${3:-10000}; threads=${4:-1}
port=8080; key=demo-secret-key; url=http://127.0.0.1:$port
data=$(mktemp -d /tmp/tally-wrk-XXXXXX)
java -Xmx2g -XX:+UseParallelGC -jar server/target/tally.jar serve --port $port --data-dir "$data" --api-key demo:$key > "$data.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$data" "$data.log"' EXIT
until curl -sf $url/ready > /dev/null; do
  kill -0 $server 2> /dev/null || { cat "$data.log"; exit 1; }
  sleep 0.5
done
echo "tally serve ready (pid $server, data $data); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Setup: account 1 funds customers 2 .. CUSTOMERS + 1 with 10,000,000.00 each, in batches of 8,000 operations.
python3 - "$url" "$key" "$customers" <<'PY'
import json, sys, urllib.request
url, key, customers = sys.argv[1], sys.argv[2], int(sys.argv[3])
def batch(ops):
    for i in range(0, len(ops), 8000):
        body = json.dumps({"atomic": False, "operations": ops[i:i + 8000]}).encode()
        req = urllib.request.Request(url + "/v1/batch", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        results = json.load(urllib.request.urlopen(req))["results"]
        bad = [r for r in results if r["status"] != 201]
        if bad:
            sys.exit("setup failed: %s" % bad[0])
batch([{"op": "account", "idempotencyKey": "wrk-a1", "body": {"id": 1, "currency": "TRY", "debitsMustNotExceedCredits": False}}] +
      [{"op": "account", "idempotencyKey": "wrk-a%d" % i, "body": {"id": i, "currency": "TRY"}} for i in range(2, customers + 2)])
batch([{"op": "transfer", "idempotencyKey": "wrk-f%d" % i,
        "body": {"debitAccountId": 1, "creditAccountId": i, "amount": "10000000.00", "currency": "TRY"}} for i in range(2, customers + 2)])
PY
metric() { curl -s $url/metrics | awk -v m="$1" '$1 == m { printf "%d\n", $2 }'; }
await_watermark() {   # until PostgreSQL's watermark reaches $1; prints the seconds waited
  local t0; t0=$(date +%s%N)
  while [ "$(metric tally_pg_writer_watermark)" -lt "$1" ]; do sleep 0.05; done
  awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 }'
}
echo "setup: 1 funding account, $customers customers funded; PostgreSQL caught up with setup in $(await_watermark "$(metric tally_journal_index)") s"

pg=$(head -1 "$data/pg/postmaster.pid")
ticks() {   # user + system clock ticks of a process; with 'tree', its children (live and reaped) too
  local total; total=$(awk '{ print $14 + $15 }' /proc/"$1"/stat)
  if [ "${2:-}" = tree ]; then
    total=$((total + $(awk '{ print $16 + $17 }' /proc/"$1"/stat)))
    for child in $(pgrep -P "$1"); do total=$((total + $(awk '{ print $14 + $15 }' /proc/"$child"/stat 2> /dev/null || echo 0))); done
  fi
  echo "$total"
}
jvm0=$(ticks $server); pg0=$(ticks "$pg" tree)
perf/scripts/thread-cpu.sh $server $((seconds > 4 ? seconds - 2 : seconds)) > "$data.threads" &
threads_sampler=$!
tag=r$(date +%s)
out=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s perf/scripts/wrk-transfers.lua $url -- 1 "$customers" $key "$tag")
end_index=$(metric tally_journal_index); lag=$(( end_index - $(metric tally_pg_writer_watermark) ))
jvm1=$(ticks $server); pg1=$(ticks "$pg" tree)
catch_up=$(await_watermark "$end_index")
wait $threads_sampler   # not a bare wait: the server is a background job of this shell too
echo "$out"
echo "threads of the server over wrk's run:"; cat "$data.threads"; rm -f "$data.threads"
echo "$out" | awk -v lag="$lag" -v cu="$catch_up" -v j=$((jvm1 - jvm0)) -v p=$((pg1 - pg0)) -v c="$connections" '/^WRK / {
  for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  printf "RESULT client=wrk connections=%d seconds=%s created_per_s=%.0f shed_503_per_s=%.0f shed_share=%.2f p50_us=%d p99_us=%d " \
    "writer_lag_at_end_commands=%d catch_up_s=%s whole_system_tps=%.0f cpu_jvm_us_per_201=%.0f cpu_pg_us_per_201=%.0f\n",
    c, f["seconds"], f["201"] / f["seconds"], f["503"] / f["seconds"], f["503"] / (f["201"] + f["503"] + f["other"]), f["p50_us"], f["p99_us"],
    lag, cu, f["201"] / (f["seconds"] + cu), j * 10000 / f["201"], p * 10000 / f["201"] }'
