#!/usr/bin/env bash
# The timing-flake measurement: runs the multi-process system tests N times (default 20) on this machine with a
# parallel build beside them (`mvn clean compile` in a loop, in a copy of this checkout), keeps each run's result and
# the timing figures the tests print, and ends with a summary: per test class passes / runs and its wall time
# (min / median / max); per printed figure (numbers in a line, by the line's words) min / median / max over the runs.
# Set a test's timing bounds from that spread (docs/testing.md, "Timing bounds"). Long: about 10 minutes per run.
#   scripts/flaky-check.sh [-n N] [--tests A,B,...] [--out DIR] [--no-load]
#     -n N         runs (default 20)
#     --tests      the failsafe selection (default: the cluster tests that start node processes, the rogue member's,
#                  the load test and the kill -9 during writes)
#     --out DIR    where the runs and summary.md go (default: a new /tmp/argus-flaky.XXXXXX)
#     --no-load    no parallel build (to compare)
#     -D K=V       a system property for the tests (repeatable), e.g. -D hazelcast.io.output.thread.count=8 (ClusterNode hands hazelcast.* to every node)
#     --summary-only   summarise the runs already in --out again
# Needs root for ClusterPartitionTest's network namespaces (skipped otherwise, as in the suite) and what
# scripts/test.sh installs. Exit 1 when any run failed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS=20 OUT="" LOAD=1 SUMMARY_ONLY=0
DEFINES=()
TESTS="ClusterFailoverTest,ClusterPartitionTest,ClusterEventsTest,ClusterModelVersionTest,ClusterAdmitsOnlyItsOwnTest,WebSocketLoadTest,KillDuringWriteTest"
while [ $# -gt 0 ]; do
  case "$1" in
    -n) RUNS="$2"; shift 2 ;;
    --tests) TESTS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-load) LOAD=0; shift ;;
    -D) DEFINES+=("-D$2"); shift 2 ;;
    --summary-only) SUMMARY_ONLY=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "flaky-check.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$OUT" ] || OUT="$(mktemp -d /tmp/argus-flaky.XXXXXX)"
mkdir -p "$OUT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}" PATH="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin:$PATH"
cd "$ROOT"

summarise() {
  python3 - "$OUT" <<'PY'
import glob, os, re, statistics, sys
out = sys.argv[1]
runs = sorted(glob.glob(os.path.join(out, 'run-*')), key=lambda p: int(p.rsplit('-', 1)[1]))
classes, figures, failures = {}, {}, []
FIG = re.compile(r'^(cluster events:|cluster:|security:|LOAD |SAFETY |after vanishing:|baseline:|slow clients closed)')
NUM = re.compile(r'-?\d+(?:\.\d+)?')
for run in runs:
    for rep in glob.glob(os.path.join(run, 'failsafe-reports', '*.txt')):
        text = open(rep, errors='replace').read()
        m = re.search(r'Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), Time elapsed: ([\d.,]+) s', text)
        if not m: continue
        name = os.path.basename(rep)[:-4].split('.')[-1]
        c = classes.setdefault(name, {'runs': 0, 'passed': 0, 'skipped': 0, 'times': []})
        c['runs'] += 1
        bad = int(m.group(2)) + int(m.group(3))
        if int(m.group(4)) == int(m.group(1)) and int(m.group(1)) > 0: c['skipped'] += 1
        elif bad == 0: c['passed'] += 1
        else:
            first = next((l for l in text.splitlines() if 'Error' in l or 'Exception' in l or 'expected' in l), '').strip()
            failures.append(f'{os.path.basename(run)} {name}: {first[:300]}')
        c['times'].append(float(m.group(5).replace(',', '')))
    log = os.path.join(run, 'mvn.log')
    if os.path.exists(log):
        for line in open(log, errors='replace'):
            line = line.strip()
            if not FIG.match(line): continue
            key = NUM.sub('N', line)[:160]
            figures.setdefault(key, []).append([float(x) for x in NUM.findall(line)])
def spread(v):
    v = sorted(v)
    return f'{v[0]:g} / {statistics.median(v):g} / {v[-1]:g}'
lines = [f'# Flake check: {len(runs)} run(s) in {out}', '', '| test class | passed / runs (skipped) | wall s min / median / max |', '|---|---|---|']
for name, c in sorted(classes.items()):
    lines.append(f"| {name} | {c['passed']} / {c['runs']} ({c['skipped']}) | {spread(c['times'])} |")
lines += ['', '## Failures', ''] + ([f'- {f}' for f in failures] or ['none'])
lines += ['', '## Printed figures (each number of the line: min / median / max over the runs)', '']
for key, rows in figures.items():
    width = min(len(r) for r in rows)
    cols = [spread([r[i] for r in rows]) for i in range(width)]
    lines.append(f'- `{key}` ({len(rows)} lines): ' + '; '.join(f'#{i + 1}: {c}' for i, c in enumerate(cols)))
open(os.path.join(out, 'summary.md'), 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
sys.exit(1 if failures else 0)
PY
}
if [ "$SUMMARY_ONLY" = 1 ]; then summarise; exit $?; fi

echo "flaky-check: $RUNS run(s) of $TESTS, parallel build $([ "$LOAD" = 1 ] && echo on || echo off), in $OUT"
mvn -B -q package -DskipTests -Dargus.fuzz.regression.skip=true >/dev/null   # once: the runs below only re-check it

LOADER=""
stop_load() { [ -n "$LOADER" ] && kill "$LOADER" 2>/dev/null; wait 2>/dev/null || true; }
trap stop_load EXIT
if [ "$LOAD" = 1 ]; then
  # the neighbour: this checkout's build, over and over, in a copy of its own (never our target/)
  copy="$OUT/neighbour"
  rm -rf "$copy" && mkdir -p "$copy"
  git ls-files -z | tar --null -T - -cf - | tar -C "$copy" -xf -
  ( cd "$copy"; i=0
    while true; do i=$((i + 1)); mvn -B -q -o clean compile >/dev/null 2>&1 || true; echo "$(date +%T) build $i" >> "$OUT/neighbour.log"; done ) &
  LOADER=$!
fi

for i in $(seq 1 "$RUNS"); do
  dir="$OUT/run-$i"; mkdir -p "$dir"
  t0=$SECONDS
  rc=0
  rm -rf pipeline/target/failsafe-reports
  mvn -B -o verify -pl pipeline -am -Dargus.unit.skip=true -Dit.test="$TESTS" "${DEFINES[@]}" > "$dir/mvn.log" 2>&1 || rc=$?
  cp -r pipeline/target/failsafe-reports "$dir/" 2>/dev/null || true
  echo "$(date +%T) run $i: exit $rc, $((SECONDS - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/runs.log"
done
stop_load
summarise
