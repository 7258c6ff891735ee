#!/usr/bin/env bash
# The live pipeline's GPU measurements on a host without Java (results/gpu-runs/README.md), from the repository root with
# the bundle of `BUNDLE=live scripts/gpu/build-bundle.sh` in .bundle-live/:
#   .bundle-live/run-live.sh [PHASES]     PHASES: comma list (default run16,live-train,online-e2e)
#     run16       `argus run` with N cameras (16) looping the generated sample video, the demo model on CUDA, started
#                 twice: cold (kernel cache and cache directory emptied) and warm (the same caches). An outside
#                 WebSocket client (io.argus.tools.pipeline.LiveRunProbe) reports the time from the process start to
#                 the first detection, and capture-to-WebSocket p50/p99/worst over the first LIVE_SECONDS (120)
#                 after it; PASS when the worst < 200 ms. Per-message CSVs beside the logs.
#     live-train  `argus bench pipeline --fine-tune`: live fps and latency alone and beside a fine-tune of the same
#                 model (training: of config/argus.yaml, backend auto: CUDA mixed precision on a low-priority
#                 stream); PASS when p99 with/without <= 1.2.
#     nvdec-tests GpuNvdecPipelineTest + GpuNvdecDecodeTest (NVDEC frames through the live pipeline); LIVE_NVDEC_SELECT:
#                 other JUnit selectors (e.g. --select-method io.argus.pipeline.video.GpuNvdecPipelineTest#anUnplugged...)
#     streams     `argus bench pipeline --decoder nvdec,cpu` at 1080p30, yolov4-tiny 416 (LIVE_STREAM_COUNTS, 150;
#                 LIVE_CPU_STREAM_COUNTS, 16,32; LIVE_STREAM_SECONDS, 30; LIVE_STREAM_BATCH, 64)
#     decode      `argus bench pipeline --no-detect`: the host's decode ceiling, 1920x1080 H.264 at 30 fps, on NVDEC
#                 (pictures left on the GPU) for LIVE_DECODE_COUNTS streams (8,16,32,64,128) and on the CPU (to host BGR)
#                 for LIVE_CPU_DECODE_COUNTS (16); LIVE_DECODE_SECONDS measured per count (10). LIVE_DECODE_PACED
#                 (e.g. 96,150): first NVDEC paced at 30 fps per stream (--paced); LIVE_DECODE_COUNTS=none: only that.
#     online-e2e  the online-training end-to-end test (OnlineTrainingEndToEndTest, training.backend auto): its run
#                 must say cuda, mixed, a loss scale; it prints live latency without and while training.
# env: LIVE_BACKEND (cuda; cpu for a smoke run of this script on a machine without a GPU), LIVE_CAMERAS
# (16), LIVE_SECONDS (120: run16's window), LIVE_MAX_BATCH (the camera count), LIVE_MODEL (demo: the
# shipped demo model; or a cfg path, random weights), LIVE_PORT (18080), LIVE_TRAIN_ARGS (the bench's
# video and model, default 1280x720 30 fps, yolov4-tiny at 416), LIVE_TRAIN_SECONDS (60 measured per run),
# LIVE_JAVA_OPTS (more JVM options), LIVE_STUBS (all: use the PulseAudio/ALSA/XCB stand-ins even where the host has the real libraries),
# OUT (where logs go; the device tool returns it), TEST_TIMEOUT (s, online-e2e). (Not ARGUS_*: argus reads those as
# config overrides and warns about the rest.)
set -u
B="$(cd "$(dirname "$0")" && pwd)"
cd "$B/.."
PHASES="${1:-run16,live-train,online-e2e}"
BACKEND="${LIVE_BACKEND:-cuda}"
CAMERAS="${LIVE_CAMERAS:-16}"
WINDOW="${LIVE_SECONDS:-120}"
PORT="${LIVE_PORT:-18080}"
LOGS="${OUT:-/tmp/argus-live-out}"
T="${LIVE_WORK:-/tmp/argus-live}"
mkdir -p "$LOGS" "$T"
# the set-up the GPU runners share: beside this script in a bundle, else in the repository
if [ -f "$B/preamble.sh" ]; then . "$B/preamble.sh"; else . scripts/gpu/preamble.sh; fi
fail() { echo "run-live.sh: $*" >&2; exit 2; }

case "$BACKEND" in cpu|cuda) ;; *) fail "LIVE_BACKEND: expected cuda or cpu, found $BACKEND" ;; esac
for p in ${PHASES//,/ }; do
  case "$p" in run16|live-train|decode|online-e2e|nvdec-tests|streams) ;;
    *) fail "unknown phase $p (run16, live-train, decode, online-e2e, nvdec-tests, streams)" ;; esac
done
if [ "$BACKEND" = cuda ]; then
  # these phases measure CUDA: without a GPU they would measure the CPU and say nothing about the acceptance points
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader 2>&1)"; then
    fail "no usable NVIDIA GPU here (nvidia-smi: ${gpu:-not found}): these phases measure live detection on CUDA.
  A smoke run of this script on the CPU: LIVE_BACKEND=cpu LIVE_CAMERAS=2 LIVE_SECONDS=20 $0 $PHASES"
  fi
  echo "$gpu"
  site_packages
  cuda_library_path
fi

# the runtime and the natives, unpacked once per bundle (a newer tarball is unpacked again)
for x in jre classpath; do
  if [ ! -d "$T/$x" ] || [ "$B/$x.tar.xz" -nt "$T/$x" ]; then
    rm -rf "${T:?}/$x"
    tar -xJf "$B/$x.tar.xz" -C "$T" || fail "cannot unpack $B/$x.tar.xz"
    touch "$T/$x"
  fi
done
# FFmpeg's libavdevice links PulseAudio, ALSA and XCB, which the host may lack: stand-ins for the missing ones
avdevice="$(ls "$T"/classpath/ffmpeg-*-linux-x86_64/org/bytedeco/ffmpeg/linux-x86_64/libavdevice.so.* | head -1)"
rm -rf "$T/stubs"
mkdir -p "$T/stubs"
for lib in "$B"/ffmpeg-stubs/*; do
  name="$(basename "$lib")"
  if [ "${LIVE_STUBS:-}" = all ] || LD_LIBRARY_PATH="$(dirname "$avdevice"):${LD_LIBRARY_PATH:-}" \
      ldd "$avdevice" 2>/dev/null | grep -q "^[[:space:]]*$name => not found"; then
    ln -s "$lib" "$T/stubs/$name"
    echo "stand-in for $name (not on this host)"
  fi
done
export LD_LIBRARY_PATH="$T/stubs:${LD_LIBRARY_PATH:-}"

# cuDNN plans chosen on an earlier machine of the same kind (keyed by GPU, driver, cuDNN and shape: a mismatch is
# planned again): a fresh machine then skips ~100 s of timing per model. Saved as $LOGS/plans.tar.gz after the phases
# (one file: the device tool returns a limited number); put it in the bundle directory to seed the next machine.
PLANS="${XDG_CACHE_HOME:-$HOME/.cache}/argus/plans"
if [ -f "$B/plans.tar.gz" ]; then mkdir -p "$PLANS" && tar -xzf "$B/plans.tar.gz" -C "$PLANS" && echo "plan cache seeded from the bundle ($(ls "$PLANS" | wc -l) plans)"; fi
trap 'if [ -d "$PLANS" ]; then tar -czf "$LOGS/plans.tar.gz" -C "$PLANS" .; fi' EXIT

JAVA="$T/jre/bin/java"
# a directory per jar (build-bundle.sh packs their contents: xz over them is far smaller than the jars)
CP="$(ls -d "$T"/classpath/* | tr '\n' ':')"
export ARGUS_HOME="$PWD" OMP_WAIT_POLICY=PASSIVE
JOPTS=(-Xmx"${LIVE_HEAP:-8g}" --enable-native-access=ALL-UNNAMED -Djava.awt.headless=true ${LIVE_JAVA_OPTS:-})
"$JAVA" -version 2>&1 | head -1
ARGUS=("$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli)
probe() { "$JAVA" "${JOPTS[@]}" -Xmx1g -cp "$CP" io.argus.tools.pipeline.LiveRunProbe "$@"; }

# The model of run16: the shipped demo (trained weights: real boxes), or a cfg with random weights.
model_yaml() {
  local m="${LIVE_MODEL:-demo}"
  if [ "$m" = demo ]; then
    printf '    cfg: %s\n    weights: %s\n    names: %s\n    threshold: 0.25\n' "$PWD/config/models/demo.cfg" \
      "$PWD/config/models/demo.weights" "$PWD/config/models/demo.names"
  else
    printf '    cfg: %s\n    weights: ""\n    names: %s\n    width: 416\n    height: 416\n    threshold: 0.2515\n' \
      "$(readlink -f "$m")" "$PWD/config/models/coco.names"
  fi
}

run16() {
  local W="$T/run16" cache="$T/run16/cache" kernels="$T/run16/kernels"
  mkdir -p "$cache"
  log "run16: sample video"
  probe --prepare-sample "$cache" || fail "cannot generate the sample video (FFmpeg natives?)"
  {
    echo "# written by scripts/gpu/run-live.sh run16: $CAMERAS cameras looping the sample video, one model on $BACKEND"
    echo "http: {host: 127.0.0.1, port: $PORT}"
    echo "models:"
    echo "  - id: live"
    model_yaml
    echo "    backend: $BACKEND"
    echo "    maxBatch: ${LIVE_MAX_BATCH:-$CAMERAS}"
    echo "    maxWaitMs: 10"
    echo "    cuda: {device: 0, memory: auto, graphs: true, autotune: 4, planCache: $cache/plans}"
    echo "cameras:"
    for i in $(seq 1 "$CAMERAS"); do echo "  - {id: cam$i, url: \"sample:\", model: live, loop: true, realtime: true}"; done
    echo "camera: {poolFrames: 6, decoderThreads: 1, ffmpegLogLevel: quiet}"
    echo "snapshots: {fps: 0}   # no JPEG snapshots: OpenCV is not in the bundle"
    echo "cacheDir: $cache"
    echo "training: {enabled: false}"
  } > "$W/argus-live.yaml"
  cp "$W/argus-live.yaml" "$LOGS/run16-argus-live.yaml"
  : > "$LOGS/run16.log"
  local label
  for label in cold warm; do
    if [ "$label" = cold ]; then
      # nothing planned or compiled before: NVRTC's kernels (ARGUS_KERNEL_CACHE) and whatever else the cache
      # directory holds (the plan cache, keyed by GPU/driver/cuDNN/shape, is put there), except the sample video
      rm -rf "$kernels"
      find "$cache" -mindepth 1 -maxdepth 1 ! -name 'sample-*.mp4' -exec rm -rf {} +
    fi
    log "run16 $label: argus run with $CAMERAS cameras ($(ls "$kernels" 2>/dev/null | wc -l) cached kernels)"
    local start_ms pid code
    start_ms=$(date +%s%3N)
    # started directly (no function or subshell between): $! is the JVM, which the TERM below must reach
    ARGUS_KERNEL_CACHE="$kernels" "${ARGUS[@]}" run --config "$W/argus-live.yaml" > "$LOGS/run16-$label-argus.log" 2>&1 &
    pid=$!
    probe --port "$PORT" --start-ms "$start_ms" --seconds "$WINDOW" --label "$label" --connect-seconds 900 \
      --csv "$LOGS/run16-$label.csv" 2>&1 | tee -a "$LOGS/run16.log"
    code=${PIPESTATUS[0]}
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    else
      echo "argus run exited early:" | tee -a "$LOGS/run16.log"
    fi
    wait "$pid" 2>/dev/null
    if [ "$code" -ne 0 ]; then tail -30 "$LOGS/run16-$label-argus.log" | tee -a "$LOGS/run16.log"; fi
    grep -iE 'backend|cuda|model' "$LOGS/run16-$label-argus.log" | head -5
  done
  log "run16 summary"
  grep '^live-run' "$LOGS/run16.log"
}

live_train() {
  local args
  if [ "$BACKEND" = cuda ]; then
    args="${LIVE_TRAIN_ARGS:---width 1280 --height 720 --fps 30 --cfg config/models/cfg/yolov4-tiny.cfg --size 416 --max-batch $CAMERAS}"
  else
    args="${LIVE_TRAIN_ARGS:---width 320 --height 180 --fps 15 --size 160}"
  fi
  log "live-train: argus bench pipeline --fine-tune, $CAMERAS cameras, $args"
  # shellcheck disable=SC2086
  "${ARGUS[@]}" bench pipeline --backend "$BACKEND" --cameras "$CAMERAS" --seconds "${LIVE_TRAIN_SECONDS:-60}" \
    --warmup 10 --fine-tune --cache-dir "$T/bench" $args 2>&1 | tee "$LOGS/live-train.log"
  local code=${PIPESTATUS[0]}
  echo "live-train exit: $code"
  if [ "$BACKEND" = cuda ] && ! grep -q 'fine-tune beside it: cuda mixed' "$LOGS/live-train.log"; then
    echo "live-train: FAIL: the fine-tune did not run on CUDA in mixed precision (above)" | tee -a "$LOGS/live-train.log"
  fi
  grep '^fine-tune cost' "$LOGS/live-train.log"
}

decode() {
  local common=(--width 1920 --height 1080 --fps 30 --seconds "${LIVE_DECODE_SECONDS:-10}" --warmup "${LIVE_DECODE_WARMUP:-3}" --cache-dir "$T/bench")
  if [ -n "${LIVE_DECODE_PACED:-}" ]; then
    log "decode: NVDEC paced at 30 fps (the decode load of live cameras), ${LIVE_DECODE_PACED} streams"
    "${ARGUS[@]}" bench pipeline --no-detect --paced --decoder nvdec --cameras "$LIVE_DECODE_PACED" "${common[@]}" \
      2>&1 | tee "$LOGS/decode-paced.log"
  fi
  [ "${LIVE_DECODE_COUNTS:-}" = none ] && return
  log "decode: NVDEC ceiling, ${LIVE_DECODE_COUNTS:-8,16,32,64,128} streams"
  "${ARGUS[@]}" bench pipeline --no-detect --decoder nvdec --cameras "${LIVE_DECODE_COUNTS:-8,16,32,64,128}" "${common[@]}" \
    2>&1 | tee "$LOGS/decode.log"
  log "decode: CPU ceiling, ${LIVE_CPU_DECODE_COUNTS:-16} streams"
  "${ARGUS[@]}" bench pipeline --no-detect --decoder cpu --cameras "${LIVE_CPU_DECODE_COUNTS:-16}" "${common[@]}" \
    2>&1 | tee -a "$LOGS/decode.log"
}

# NVDEC in the live pipeline: the GPU tests (detections nvdec vs cpu, snapshots, unplug/replug; the decoder's own)
nvdec_tests() {
  log "nvdec-tests: GpuNvdecPipelineTest, GpuNvdecDecodeTest"
  timeout "${TEST_TIMEOUT:-540}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    ${LIVE_NVDEC_SELECT:---select-class io.argus.pipeline.video.GpuNvdecPipelineTest --select-class io.argus.pipeline.video.GpuNvdecDecodeTest} \
    --details=tree --disable-banner --disable-ansi-colors 2>&1 | tee "$LOGS/nvdec-tests.log"
  echo "nvdec-tests exit: ${PIPESTATUS[0]}"
  grep -E '^nvdec vs cpu|^frame [0-9]|^unplugged|^replugged|tests (successful|failed)' "$LOGS/nvdec-tests.log" | cut -c1-400
}

# The acceptance point: N 1080p30 H.264 file cameras (real-time paced) through yolov4-tiny 416 on CUDA, decoded by
# NVDEC, then by the CPU (same model and batch settings, fewer cameras), in one run; then NVDEC's decode ceiling.
streams() {
  local common=(--width 1920 --height 1080 --fps 30 --size 416 --max-batch "${LIVE_STREAM_BATCH:-64}"
    --max-wait-ms "${LIVE_STREAM_WAIT_MS:-10}" --backend cuda --seconds "${LIVE_STREAM_SECONDS:-30}"
    --warmup "${LIVE_STREAM_WARMUP:-10}" --threshold "${LIVE_STREAM_THRESHOLD:-0.253}" --cache-dir "$T/bench")
  log "streams: bench pipeline --decoder ${LIVE_STREAM_DECODERS:-nvdec,cpu} --cameras ${LIVE_STREAM_COUNTS:-150} --cpu-cameras ${LIVE_CPU_STREAM_COUNTS:-16,32}"
  "${ARGUS[@]}" bench pipeline --decoder "${LIVE_STREAM_DECODERS:-nvdec,cpu}" --cameras "${LIVE_STREAM_COUNTS:-150}" \
    --cpu-cameras "${LIVE_CPU_STREAM_COUNTS:-16,32}" "${common[@]}" 2>&1 | tee "$LOGS/streams.log"
  echo "streams exit: ${PIPESTATUS[0]}"
}

online_e2e() {
  log "online-e2e: OnlineTrainingEndToEndTest (training.backend auto)"
  timeout "${TEST_TIMEOUT:-900}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --select-class io.argus.pipeline.e2e.OnlineTrainingEndToEndTest --details=tree --disable-banner \
    --disable-ansi-colors 2>&1 | tee "$LOGS/online-e2e.log"
  echo "online-e2e exit: ${PIPESTATUS[0]}"
  grep -E '^fine-tune run|^live latency|^poisoned|tests (successful|failed)' "$LOGS/online-e2e.log"
}

for p in ${PHASES//,/ }; do
  case "$p" in
    run16) run16 ;;
    live-train) live_train ;;
    decode) decode ;;
    online-e2e) online_e2e ;;
    nvdec-tests) nvdec_tests ;;
    streams) streams ;;
  esac
done
