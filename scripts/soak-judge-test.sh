#!/usr/bin/env bash
# The soak's verdict (scripts/soak.sh --judge-only) on made-up series, so that the gate itself is tested and can fail:
#   1. flat series with a fine-tune's transient caught by every sixth sample, unevenly between the thirds (the CI cut
#      of 2026-11-28 that failed on native memory 21.2 -> 19.7 MiB): PASS;
#   2. the same with native memory leaking 2 MiB a minute: FAIL on native_mib, and only there;
#   3. the batcher queue growing without draining: FAIL on batcher_queue.
# Needs awk and gnuplot (as soak.sh). Exit 0 when every case gives the verdict it should.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d /tmp/argus-soak-judge.XXXXXX)"; trap 'rm -rf "$WORK"' EXIT
COLS="t_s,rss_mib,native_mib,threads,fds,eventbus_pending,batcher_queue,p99_ms,heap_used_mib,fps,frames_processed,dataset_frames,training_runs,swaps,load1,others_cpu_pct"

# series CASE: 10 minutes, a sample every 10 s; the spikes fall on samples 7, 13, 19, ... (twice in the first third
# after the 5-minute warm-up, once in the last), as the CI run's did.
series() {
  echo "$COLS"
  for i in $(seq 0 60); do
    t=$((i * 10)); spike=$(( i % 6 == 1 && i != 55 ? 1 : 0 ))
    native=$(awk -v s="$spike" -v t="$t" -v c="$1" 'BEGIN { n = s ? 33.4 : 18.2; if (c == "leak") n += 2 * t / 60; printf "%.1f", n }')
    batcher=$([ "$1" = queue ] && echo $((t * 3)) || echo $((i % 3)))
    echo "$t,1440.$((i % 7)),$native,$((54 + spike)),90,$((i % 2)),$batcher,$((25 + i % 9)).0,600,75,$((i * 750)),48,$((i / 6)),$((i / 6)),0.4,1"
  done
}

fails=0
check() {   # check NAME WANT_EXIT GREP_FOR
  local dir="$WORK/$1" rc=0
  mkdir -p "$dir"; series "$1" > "$dir/soak.csv"
  "$ROOT/scripts/soak.sh" --judge-only --out "$dir" --minutes 10 > "$dir/out.txt" 2>&1 || rc=$?
  if [ "$rc" -ne "$2" ] || ! grep -q "$3" "$dir/out.txt"; then
    echo "soak-judge-test: $1: wanted exit $2 and '$3', got exit $rc:" >&2; grep '^|' "$dir/out.txt" >&2; fails=$((fails + 1))
  else echo "soak-judge-test: $1: exit $rc, '$3' as expected"; fi
}
check flat 0 '^| native_mib | 18.20 | 18.20 | +0.0 % | PASS'
check leak 1 '^| native_mib | .* | FAIL'
check queue 1 '^| batcher_queue | .* | FAIL'
# and in the leak case nothing else failed
if grep '| FAIL' "$WORK/leak/out.txt" | grep -vq '^| native_mib'; then
  echo "soak-judge-test: leak: a series other than native_mib failed" >&2; fails=$((fails + 1)); fi
[ "$fails" -eq 0 ] || { echo "soak-judge-test: $fails case(s) wrong" >&2; exit 1; }
echo "soak-judge-test: PASS"
