#!/usr/bin/env bash
# Memory-flat check of the live pipeline: `argus run` with CAMERAS file cameras (1280x720 H.264 @ 30 fps, looping,
# real-time) on yolov4-tiny (random weights, CPU) for DURATION seconds. The resident set size (VmRSS) is sampled every
# INTERVAL seconds; after WARMUP seconds (JIT, pools, native libraries loaded) it must stay within TOLERANCE percent of
# its value at the end of the warm-up. Prints every sample and PASS or FAIL; exit code 0 on PASS.
#   pipeline/scripts/rss-check.sh                      # 10 minutes, 4 cameras
#   DURATION=120 CAMERAS=2 pipeline/scripts/rss-check.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DURATION=${DURATION:-600}
WARMUP=${WARMUP:-60}
INTERVAL=${INTERVAL:-10}
CAMERAS=${CAMERAS:-4}
TOLERANCE=${TOLERANCE:-10}
PORT=${PORT:-18080}
WORK="$(mktemp -d /tmp/argus-rss.XXXXXX)"
VIDEO="$WORK/cam-1280x720-30fps.mp4"

ffmpeg -y -loglevel error -f lavfi -i testsrc2=size=1280x720:rate=30 -t 20 -c:v libx264 -preset veryfast \
  -pix_fmt yuv420p -g 30 "$VIDEO"

{
  echo "http: {host: 127.0.0.1, port: $PORT}"
  echo "models:"
  echo "  - {id: tiny, cfg: $ROOT/config/models/cfg/yolov4-tiny.cfg, names: $ROOT/config/models/coco.names, width: 224, height: 224, threshold: 0.2515}"
  echo "cameras:"
  for i in $(seq 1 "$CAMERAS"); do echo "  - {id: cam$i, url: $VIDEO}"; done
  echo "snapshots: {fps: 2}"
  echo "cacheDir: $WORK/cache"
} > "$WORK/argus.yaml"

ARGUS_JAVA_OPTS="${ARGUS_JAVA_OPTS:--Xmx1g}" "$ROOT/bin/argus" run --config "$WORK/argus.yaml" > "$WORK/argus.log" 2>&1 &
PID=$!  # bin/argus execs java: this is the JVM
cleanup() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
trap cleanup EXIT

for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/ready" > /dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { echo "argus exited:"; cat "$WORK/argus.log"; exit 1; }
  sleep 1
done
echo "argus ready (pid $PID); sampling VmRSS every ${INTERVAL}s for ${DURATION}s, warm-up ${WARMUP}s"

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }
start=$(date +%s); base=""; max=0; min=0
while :; do
  now=$(( $(date +%s) - start ))
  [ "$now" -gt "$DURATION" ] && break
  rss=$(rss_kb)
  fps=$(curl -sf "http://127.0.0.1:$PORT/api/cameras" | grep -o '"fps":[0-9.]*' | cut -d: -f2 | paste -sd' ' -)
  echo "t=${now}s rss=$((rss / 1024)) MiB fps=[$fps]"
  if [ "$now" -ge "$WARMUP" ]; then
    if [ -z "$base" ]; then base=$rss; max=$rss; min=$rss; fi
    [ "$rss" -gt "$max" ] && max=$rss
    [ "$rss" -lt "$min" ] && min=$rss
  fi
  sleep "$INTERVAL"
done

growth=$(( (max - base) * 100 / base ))
echo "after warm-up: base $((base / 1024)) MiB, min $((min / 1024)) MiB, max $((max / 1024)) MiB, growth ${growth}%"
if [ "$growth" -le "$TOLERANCE" ]; then echo "PASS: RSS within ${TOLERANCE}%"; else echo "FAIL: RSS grew ${growth}%"; exit 1; fi
