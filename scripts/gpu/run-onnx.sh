#!/usr/bin/env bash
# Imported ONNX models on a GPU host without Java (run from the repository root, the bundle of
# scripts/gpu/build-bundle.sh in .bundle-cuda/): one command that builds nothing, only checks and times.
#   .bundle-cuda/run-onnx.sh [PHASES]     PHASES: comma list of
#     tests   the imported models' GPU tests (GpuOnnxModelsTest: the tiny test models of every family on CUDA against
#             the CPU backend; a family's tiny model that the tests jar lacks is written first by
#             scripts/onnx/yolo_models.py) and the preprocess and layer tests they share with Darknet cfgs
#             (GpuPreprocessTest, GpuLayerParityTest); TESTS replaces the list (simple names in io.argus.detector.cuda)
#     bench   argus bench --backend cuda on each model of MODELS (written first by scripts/onnx/yolo_models.py at
#             SIZE: random weights, 640x640 for n and s), batch BATCHES, FP16, MEMORY (device; device,unified: both
#             timed end to end)
#     peers   scripts/gpu/onnx_peers.py on the same models: PyTorch eager and CUDA graph (BATCHES), ONNX Runtime
#             (ORT_BATCHES) once nothing else runs on the host's CPU, then torch.compile max-autotune-no-cudagraphs
#             for the model:batch pairs of COMPILE
#   default: tests,bench,peers; a summary table (summarize.py) comes last.
# With two GPUs or more (and PARALLEL not 0) the run uses two at once, so it fits the device tool's 10 minutes: the
# tests, then the torch.compile of COMPILE (its first compile: minutes of autotuning, whose results inductor keeps on
# disk), run on GPU 1 (log OUT/gpu1.log) while GPU 0 runs every timing: argus bench, then the peers, whose compile
# finds GPU 1's results (both GPUs are cuda:0 to their process, so the cache keys agree). Every figure of the summary
# is GPU 0's; GPU 1's compiled timing in gpu1.log is the fallback when GPU 0's compile did not finish.
# env: MODELS ("yolov5 yolov8"), SIZE (n), BATCHES (1,32,64), ORT_BATCHES (1,32,64), COMPILE ("yolov8:64"),
# BENCH_SECONDS (1), AUTOTUNE (2), VERBOSE (each layer's plan in the bench logs), OUT (where the summary, the main logs
# and logs.tar.xz of all of them go; default /tmp/argus-out),
# *_TIMEOUT (s per step), BUDGET (s for the whole run, default 570: each step's timeout is cut to what is left),
# PARALLEL. cuDNN's plans are kept in /tmp/argus-run/cache (XDG_CACHE_HOME) and copied to OUT/plan-cache.tar.xz; a
# plan-cache.tar.xz beside this script (from an earlier run) is unpacked first, so a fresh host does not plan again.
set -u
B="$(cd "$(dirname "$0")" && pwd)"
cd "$B/.."
PHASES="${1:-tests,bench,peers}"
MODELS="${MODELS:-yolov5 yolov8}"
SIZE="${SIZE:-n}"
BATCHES="${BATCHES:-1,32,64}"
ORT_BATCHES="${ORT_BATCHES-1,32,64}"
COMPILE="${COMPILE-yolov8:64}"
BENCH_SECONDS="${BENCH_SECONDS:-1}"
T=/tmp/argus-run
LOGS="$T/logs-$(date +%H%M%S)"
STARTED=$(date +%s)
mkdir -p "$T/models" "$LOGS"
if [ -f "$B/preamble.sh" ]; then . "$B/preamble.sh"; else . scripts/gpu/preamble.sh; fi
has() { [[ ",$PHASES," == *",$1,"* ]]; }
# limit SECONDS: SECONDS, or what is left of BUDGET when that is less
limit() {
  local left=$((STARTED + ${BUDGET:-570} - $(date +%s)))
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}
compile_batch() { local pair; for pair in $COMPILE; do [ "${pair%%:*}" = "$1" ] && echo "${pair#*:}"; done; }
# the family models' script and the peers: the bundle's copies, else the repository's
MODELS_SCRIPT="$B/yolo_models.py"
[ -f "$MODELS_SCRIPT" ] || MODELS_SCRIPT=scripts/onnx/yolo_models.py
PEERS="$B/onnx_peers.py"
[ -f "$PEERS" ] || PEERS=scripts/gpu/onnx_peers.py

log "unpacking the Java runtime"
unpack_jre
unpack_classpath
site_packages
cuda_library_path
export ARGUS_KERNEL_CACHE="$T/kernels" XDG_CACHE_HOME="$T/cache" PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ -f "$B/plan-cache.tar.xz" ] && [ ! -d "$T/cache/argus" ]; then
  mkdir -p "$T/cache" && tar -xJf "$B/plan-cache.tar.xz" -C "$T/cache" && log "cuDNN plans of an earlier run unpacked"
fi
JOPTS=(-Xmx24g --enable-native-access=ALL-UNNAMED -Djava.awt.headless=true -Dargus.cuda.verbose="${VERBOSE:-false}"
  -Dargus.cuda.autotune="${AUTOTUNE:-2}")
nvidia-smi --query-gpu=index,name,driver_version,memory.used,memory.total --format=csv,noheader
lscpu | grep -m1 'Model name' || true
"$JAVA" -version 2>&1 | head -1
GPUS=$(nvidia-smi -L | wc -l)
TWO=""
[ "$GPUS" -ge 2 ] && [ "${PARALLEL:-1}" != 0 ] && TWO=1

run_tests() {
  log "GPU tests of imported models"
  mkdir -p "$T/test-resources/onnx"
  local f t
  for f in yolov8 yolov5 yolo11 yolox yolov9; do
    ls "$T"/classpath/argus-detector-*-tests/onnx/tiny-$f.onnx >/dev/null 2>&1 && continue
    [ -f "$T/test-resources/onnx/tiny-$f.onnx" ] || python3 "$MODELS_SCRIPT" $f tiny "$T/test-resources/onnx/tiny-$f.onnx" \
      2>&1 | grep -E "^ONNX Runtime vs PyTorch, smooth|Error" | head -2
  done
  local SELECT=()
  for t in ${TESTS:-GpuOnnxModelsTest GpuPreprocessTest GpuLayerParityTest}; do
    [[ "$t" == *.* ]] || t="io.argus.detector.cuda.$t"
    SELECT+=(--select-class "$t")
  done
  CP="$T/test-resources:$CP" TEST_TIMEOUT="$(limit "${TEST_TIMEOUT:-300}")" junit_tests tests-onnx "${SELECT[@]}"
  grep -E "^tiny-|tail kernel|tail runs on the host" "$LOGS/tests-onnx.log" | head -20
  python3 "$B/junit_summary.py" "$LOGS"/tests-onnx/ | tee "$LOGS/tests-summary.md"
}

# the model files, written in the background while the GPUs start on other work
WRITERS=()
if has bench || has peers; then
  for m in $MODELS; do
    f="$T/models/$m$SIZE.onnx"
    [ -f "$f" ] && continue
    (python3 "$MODELS_SCRIPT" "$m" "$SIZE" "$f.tmp" > "$LOGS/write-$m$SIZE.log" 2>&1 && mv "$f.tmp" "$f") &
    WRITERS+=($!)
  done
fi

GPU1=""
if [ -n "$TWO" ]; then
  log "GPU 1: tests, then warming torch.compile's caches; GPU 0: the timings"
  (
    export CUDA_VISIBLE_DEVICES=1
    has tests && run_tests
    if has peers; then
      for m in $MODELS; do
        c="$(compile_batch "$m")"
        [ -n "$c" ] || continue
        log "GPU 1: torch.compile $m$SIZE batch $c"
        timeout "$(limit "${PEERS_TIMEOUT:-480}")" python3 "$PEERS" --family "$m" --size "$SIZE" \
          --models-script "$MODELS_SCRIPT" --batch "" --ort-batch "" --compile-batch "$c" --seconds "$BENCH_SECONDS" \
          --note "on GPU 1, while GPU 0 ran other timings"
      done
    fi
  ) > "$LOGS/gpu1.log" 2>&1 &
  GPU1=$!
  export CUDA_VISIBLE_DEVICES=0
elif has tests; then
  run_tests
fi

wait_models() { local p; for p in "${WRITERS[@]}"; do wait "$p"; done; WRITERS=(); }
if has bench; then
  wait_models
  for m in $MODELS; do
    f="$T/models/$m$SIZE.onnx"
    log "argus bench $m$SIZE"
    echo "### model $m$SIZE" | tee -a "$LOGS/bench.log"
    [ -f "$f" ] || { echo "no $f:"; tail -3 "$LOGS/write-$m$SIZE.log"; continue; }
    timeout "$(limit "${BENCH_TIMEOUT:-300}")" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench \
      --backend cuda --cfg "$f" --batch "$BATCHES" --memory "${MEMORY:-device}" --seconds "$BENCH_SECONDS" --warmup 3 \
      > "$LOGS/bench-$m$SIZE.log" 2>&1
    echo "exit: $?" >> "$LOGS/bench-$m$SIZE.log"
    grep -vE "^ *[0-9]+ (convolutional|route|shortcut|maxpool|upsample|host) " "$LOGS/bench-$m$SIZE.log" | tee -a "$LOGS/bench.log"
    (cd "$T/cache" 2>/dev/null && tar -cJf "$LOGS/plan-cache.tar.xz" argus 2>/dev/null) || true
  done
fi
if [ -n "$GPU1" ]; then
  log "waiting for GPU 1"
  wait "$GPU1"
  if has tests; then grep -E "^tiny-|tail kernel|tail runs on the host|^\| |exit:" "$LOGS/gpu1.log" | head -30; fi
  grep -E "^torch-compile|compiled in" "$LOGS/gpu1.log" || true
fi
# the peers: PyTorch eager and CUDA graph, then ONNX Runtime (on a quiet CPU), then the torch.compile pairs last
# (quick when GPU 1 left its caches, minutes otherwise)
peers() {   # MODEL ARGS...: one onnx_peers.py run, appended to peers.log under the model's marker
  local m="$1"
  shift
  echo "### model $m$SIZE" | tee -a "$LOGS/peers.log"
  timeout "$(limit "${PEERS_TIMEOUT:-480}")" python3 "$PEERS" --family "$m" --size "$SIZE" \
    --models-script "$MODELS_SCRIPT" --seconds "$BENCH_SECONDS" "$@" 2>&1 | tee -a "$LOGS/peers.log"
}
if has peers; then
  wait_models
  for m in $MODELS; do
    log "peers $m$SIZE: PyTorch eager and CUDA graph"
    peers "$m" --batch "$BATCHES" --ort-batch ""
  done
  for m in $MODELS; do
    [ -n "$ORT_BATCHES" ] || break
    log "peers $m$SIZE: ONNX Runtime"
    peers "$m" --onnx "$T/models/$m$SIZE.onnx" --ort-batch "$ORT_BATCHES" --ort-runs 10 --skip-torch
  done
  for m in $MODELS; do
    c="$(compile_batch "$m")"
    [ -n "$c" ] || continue
    log "peers $m$SIZE: torch.compile batch $c"
    peers "$m" --batch "" --ort-batch "" --compile-batch "$c"
  done
fi

log "summary"
python3 "$B/summarize.py" "$LOGS/bench.log" "$LOGS/peers.log" | tee "$LOGS/summary.md"
# what comes back (the device tool returns at most 8 files): the summary, the logs read first, the plans, and all
# logs in one tarball
DEST="${OUT:-/tmp/argus-out}"
mkdir -p "$DEST"
tar -cJf "$DEST/logs.tar.xz" -C "$LOGS" . 2>/dev/null
for f in summary.md bench.log peers.log gpu1.log tests-onnx.log tests-summary.md plan-cache.tar.xz; do
  [ -f "$LOGS/$f" ] && cp "$LOGS/$f" "$DEST/"
done
log "logs in $DEST"
