#!/usr/bin/env bash
# The PostgreSQL writer, two builds side by side: WriterThroughputHarness (docs/PERSISTENCE.md, "Benchmark") run
# from BASE_REV and from HEAD_REV (default: the working tree) in turn, ROUNDS times, base first in odd rounds and head
# first in even ones, with the same harness arguments. Each build runs from its own copy of the sources (a revision
# via git archive, from a revision whose harness is in perf), compiled with -am into its own target folders: nothing
# is installed into ~/.m2, and with HEAD_REV the working tree may change while it runs. Both sides run head's WriterThroughputHarness: one instrument.
#   perf/scripts/writer-ab.sh BASE_REV ROUNDS "transfers=1000000 accounts=100000 references=0" [HEAD_REV]
# Prints each run's PER TRANSFER and ENTRIES/s lines, labelled, and keeps the full output under /tmp/writer-ab-*.
set -euo pipefail
cd "$(dirname "$0")/../.."
base_rev=${1:?BASE_REV}; rounds=${2:-3}; args=${3:-transfers=1000000 accounts=100000 references=0}; head_rev=${4:-}
out=$(mktemp -d /tmp/writer-ab-XXXXXX)
base_dir="$out/base"
mkdir -p "$base_dir"
git archive "$base_rev" | tar -x -C "$base_dir"
head_dir="$PWD"
if [[ -n $head_rev ]]; then
  head_dir="$out/head"
  mkdir -p "$head_dir"
  git archive "$head_rev" | tar -x -C "$head_dir"
fi
# One instrument for both: the base runs head's harness (it uses only the writer's public API).
harness_dir=perf/src/main/java/dev/tally/perf/persistence
mkdir -p "$base_dir/$harness_dir"
cp "$head_dir/$harness_dir"/*.java "$base_dir/$harness_dir/"
build() {   # $1: source folder; prints the harness classpath
  (cd "$1" && mvn -B -q -pl perf -am package -DskipTests > "$out/build-$(basename "$1").log" 2>&1) ||
    { cat "$out/build-$(basename "$1").log"; exit 1; }
  echo "$1/perf/target/benchmarks.jar"
}
cp_base=$(build "$base_dir")
cp_head=$(build "$head_dir")
if [[ -n $head_rev ]]; then head_name=$(git rev-parse --short "$head_rev"); else
  head_name="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- persistence perf || echo ' + working tree')"; fi
echo "base $(git rev-parse --short "$base_rev"), head $head_name; args: $args; output in $out"
run() {   # $1: label, $2: source folder, $3: classpath, $4: round
  local log="$out/$1-round$4.log"
  echo "-- $1, round $4, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd "$2" && java -Xmx3g --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -cp "$3" \
      dev.tally.perf.persistence.WriterThroughputHarness $args > "$log" 2>&1) || { echo "   FAILED:"; tail -5 "$log"; return 0; }
  grep -E "^(posted|ENTRIES|CPU|PER TRANSFER|entries only|  [A-Za-z])|no difference|differences" "$log" | sed 's/^/   /'
}
for round in $(seq 1 "$rounds"); do
  if (( round % 2 == 1 )); then
    run base "$base_dir" "$cp_base" "$round"; run head "$head_dir" "$cp_head" "$round"
  else
    run head "$head_dir" "$cp_head" "$round"; run base "$base_dir" "$cp_base" "$round"
  fi
done
# The logs stay; the copies' builds and PostgreSQL data folders (gigabytes) go.
rm -rf "$out/base" "$out/head" "$PWD/target/harness-pg"   # the working tree's run leaves its data here
