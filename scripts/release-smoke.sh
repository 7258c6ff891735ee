#!/usr/bin/env bash
# Smoke test of a release tarball as a user without a JDK would run it: untar into a temp dir, then with an
# empty environment (env -i: no JAVA_HOME, PATH=/usr/bin:/bin) run --help, detect --out, dataset synth, train,
# and `run` until /ready answers. Checks that the bundled runtime is the java that runs. Prints a time per step.
# Usage: scripts/release-smoke.sh [target/argus-<version>-linux-x86_64.tar.gz]   (needs curl; port 18080 free)
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
tarball="${1:-$(ls "$ROOT"/target/argus-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}"
[ -f "$tarball" ] || { echo "smoke: no tarball (run scripts/release.sh first, or pass its path)" >&2; exit 1; }
port="${ARGUS_SMOKE_PORT:-18080}"

tmp=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir "$tmp/home"

t0=0
begin() { t0=$(date +%s%N); }
took() { echo "smoke: $1: ok in $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2; }
fail() { echo "smoke: $1 FAILED" >&2; [ -f "$tmp/log" ] && tail -20 "$tmp/log" >&2; exit 1; }

begin; tar -xzf "$tarball" -C "$tmp"; took "untar $(du -h "$tarball" | cut -f1)"
home=$(echo "$tmp"/argus-*/)
home=${home%/}
cd "$home"
# A fresh JavaCPP cache (natives are extracted on first use), so times are those of a first start.
run() { env -i PATH=/usr/bin:/bin HOME="$tmp/home" ARGUS_JAVA_OPTS="-Dorg.bytedeco.javacpp.cachedir=$tmp/javacpp" \
          ARGUS_CACHE_DIR="$tmp/cache" "$@"; }

begin; run ARGUS_JAVA_OPTS=-XshowSettings:properties bin/argus --version >"$tmp/log" 2>&1 || fail "--version"
grep -q "java.home = $home/runtime\$" "$tmp/log" || fail "java.home is not the bundled runtime: $(grep java.home "$tmp/log")"
took "--version (java.home = bundled runtime)"

begin; run bin/argus --help >"$tmp/log" 2>&1 || fail "--help"; took "--help"

begin
run bin/argus detect --cfg config/models/demo.cfg --weights config/models/demo.weights \
  --names config/models/demo.names --out "$tmp/dog.jpg" config/samples/dog.jpg >"$tmp/out" 2>"$tmp/log" || fail "detect"
grep -q '^{"image":' "$tmp/out" && [ -s "$tmp/dog.jpg" ] || fail "detect (no JSON line or no --out image)"
took "detect --out (first start: natives extracted)"

begin; run bin/argus dataset synth --out "$tmp/D" --count 8 --seed 1 >"$tmp/log" 2>&1 || fail "dataset synth"
took "dataset synth --count 8"

begin
run bin/argus train --cfg config/models/demo.cfg --data "$tmp/D/synth.data" --max-batches 2 --out "$tmp/D2" \
  --threads 1 >"$tmp/log" 2>&1 && [ -s "$tmp/D2/demo_last.weights" ] || fail "train"
took "train --max-batches 2 --threads 1"

! curl -s -o /dev/null "http://127.0.0.1:$port/" || fail "run: port $port is already in use (set ARGUS_SMOKE_PORT)"
begin
# env -i as in run(), but not through a function: $! must be the process that becomes java (bin/argus execs it).
env -i PATH=/usr/bin:/bin HOME="$tmp/home" ARGUS_JAVA_OPTS="-Dorg.bytedeco.javacpp.cachedir=$tmp/javacpp" \
  ARGUS_CACHE_DIR="$tmp/cache" ARGUS_HTTP_PORT="$port" ARGUS_HTTP_HOST=127.0.0.1 bin/argus run >"$tmp/log" 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$port/ready" >/dev/null; do
  kill -0 "$pid" 2>/dev/null || { pid=""; fail "run (exited before /ready)"; }
  [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt 180 ] || fail "run (/ready not up in 180 s)"
  sleep 0.2
done
exe=$(readlink "/proc/$pid/exe")
[ "$exe" = "$home/runtime/bin/java" ] || fail "run: the process is $exe, not the bundled runtime"
took "run until /ready (sample video generated, demo model loaded; java = runtime/bin/java)"
! grep -E 'NoClassDefFoundError|ClassNotFoundException' "$tmp/log" || fail "run (missing classes in the log)"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
echo "smoke: all passed" >&2
