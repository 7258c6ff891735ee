#!/usr/bin/env bash
# The CUDA trainer on a GPU host without Java (the bundle of scripts/gpu/build-bundle.sh DIR):
#   DIR/run-train.sh [PHASES]      PHASES: comma list of tests,bench,torch,curves (default: all four), multiscale
#   (asked for by name: yolov4-tiny with random=1 trained by `argus train --backend cuda` for MS_ITERATIONS (300) on
#   MS_IMAGES (1024) synthetic scenes, --multi-scale on then off: the sizes it logs and each run's images/s), and loader
#   (asked for by name: the batch loader against the GPU: a 2,000-image synthetic set at 416x416 packed, the
#   loader's images/s alone for LOADER_THREADS (default 1,4,8,15), `bench train --data` setting it against mixed
#   precision, then LOADER_ITERATIONS (default 200) iterations of `argus train --backend cuda` on the pack, whose
#   progress lines print the share of time the GPU waited for data)
# (also reached as DIR/run-gpu.sh train-tests,train-bench,...). Run from the repository root.
# env: CFG (config/models/cfg/yolov4-tiny.cfg), SIZE (416), BATCH (64), TIMED_SECONDS (10, timed seconds per precision and
# side), CURVES (2000 iterations of real training per precision), CURVE_PRECISION (mixed,tf32), POOL (512 synthetic
# scenes), TESTS (JUnit class
# names in io.argus.trainer.cuda, default: the whole package), TEST_TIMEOUT, BENCH_TIMEOUT, TORCH_TIMEOUT,
# CURVE_TIMEOUT (s), PRECISIONS (bench modes: mixed, fp32, tf32; default all three), CURVE_SEEDS (batch orders, e.g.
# 1,2 for a run-to-run noise reference), TEST_JOPTS (extra JVM options for the tests, e.g.
# -Dargus.cuda.train.overwrite=true), VERBOSE (cuDNN plans per layer), PROFILE (per-layer device times), ROUNDS (bench
# and torch repeated in alternation, default 1), OUT (logs).
# Prints a summary table last.
set -u
B="$(cd "$(dirname "$0")" && pwd)"
cd "$B/.."
PHASES="${1:-tests,bench,torch,curves}"
PHASES="${PHASES//train-/}"
CFG="${CFG:-config/models/cfg/yolov4-tiny.cfg}"
SIZE="${SIZE:-416}"
BATCH="${BATCH:-64}"
SECONDS_EACH="${TIMED_SECONDS:-10}"   # not $SECONDS: bash counts the seconds since the shell started in it
LOGS="${OUT:-/tmp/argus-out}"
mkdir -p "$LOGS"
T=/tmp/argus-run
mkdir -p "$T"
# the set-up the GPU runners share: beside this script in a bundle, else in the repository
if [ -f "$B/preamble.sh" ]; then . "$B/preamble.sh"; else . scripts/gpu/preamble.sh; fi

log "unpacking the Java runtime"
unpack_jre
unpack_classpath
site_packages
cuda_library_path
export ARGUS_KERNEL_CACHE="$T/kernels"
JOPTS=(-Xmx24g --enable-native-access=ALL-UNNAMED -Djava.awt.headless=true -Dargus.cuda.verbose="${VERBOSE:-false}" ${JAVA_OPTS_EXTRA:-})
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,utilization.gpu --format=csv,noheader
"$JAVA" -version 2>&1 | head -1
argus() { "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli "$@"; }

if [[ ",$PHASES," == *",tests,"* ]]; then
  log "GPU tests (io.argus.trainer.cuda)"
  SELECT=(--select-package io.argus.trainer.cuda)
  if [ -n "${TESTS:-}" ]; then SELECT=(); for t in $TESTS; do SELECT+=(--select-class "io.argus.trainer.cuda.$t"); done; fi
  TEST_TIMEOUT="${TEST_TIMEOUT:-300}" junit_tests train-tests "${SELECT[@]}"
  python3 "$B/junit_summary.py" "$LOGS/train-tests/"
fi

# bench and torch: ROUNDS times in alternation (ours, then PyTorch's), each round marked in the logs; the summary
# gives each round's ratios and their median, so a peer that lands on a fast or slow moment shows as spread
rm -f "$LOGS/train-bench.log" "$LOGS/train-torch.log"
for round in $(seq 1 "${ROUNDS:-1}"); do
  if [[ ",$PHASES," == *",bench,"* ]]; then
    log "argus bench train (round $round)"
    echo "### round $round" >> "$LOGS/train-bench.log"
    timeout "${BENCH_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench train \
      --cfg "$CFG" --width "$SIZE" --height "$SIZE" --batch "$BATCH" --seconds "$SECONDS_EACH" --warmup 5 ${PROFILE:+--profile} --precision "${PRECISIONS:-mixed,fp32,tf32}" \
      2>&1 | tee -a "$LOGS/train-bench.log"
  fi
  if [[ ",$PHASES," == *",torch,"* ]]; then
    log "PyTorch peer (round $round)"
    echo "### round $round" >> "$LOGS/train-torch.log"
    PYTHONUNBUFFERED=1 timeout "${TORCH_TIMEOUT:-240}" python3 "$B/torch_train_peer.py" --cfg "$CFG" --size "$SIZE" \
      --batch "$BATCH" --seconds "$SECONDS_EACH" 2>&1 | tee -a "$LOGS/train-torch.log"
  fi
done

if [[ ",$PHASES," == *",curves,"* ]]; then
  log "loss curves"
  timeout "${CURVE_TIMEOUT:-420}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench train \
    --cfg "$CFG" --width "$SIZE" --height "$SIZE" --seconds 0 --warmup 0 --curves "${CURVES:-2000}" \
    --pool "${POOL:-512}" --curve-precision "${CURVE_PRECISION:-mixed,tf32}" --curve-seeds "${CURVE_SEEDS:-1}" --csv "$LOGS/curves.csv" 2>&1 | grep -v "^argus-train" | tee "$LOGS/train-curves.log"
fi

if [[ ",$PHASES," == *",loader,"* ]]; then
  log "batch loader"
  L=/tmp/argus-loader
  [ -f "$L/pack/packed.data" ] || { argus dataset synth --out "$L/synth" --count 2000 --seed 7 --size "$SIZE" \
    && argus dataset pack --data "$L/synth/synth.data" --out "$L/pack"; } 2>&1 | tee "$LOGS/loader.log"
  timeout "${BENCH_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench loader \
    --data "$L/pack/packed.data" --cfg "$CFG" --width "$SIZE" --height "$SIZE" --batch "$BATCH" \
    --threads "${LOADER_THREADS:-1,4,8,15}" --seconds "$SECONDS_EACH" 2>&1 | tee -a "$LOGS/loader.log"
  timeout "${BENCH_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench train \
    --cfg "$CFG" --width "$SIZE" --height "$SIZE" --batch "$BATCH" --seconds "$SECONDS_EACH" --warmup 5 \
    --precision mixed --data "$L/pack/packed.data" 2>&1 | tee -a "$LOGS/loader.log"
  rm -rf "$L/train"
  # the cfg with the synthetic set's 5 classes (yolov4-tiny: 80 classes, 255 filters before each [yolo])
  sed -e 's/^classes=80/classes=5/' -e 's/^filters=255/filters=30/' "$CFG" > "$L/train-5-classes.cfg"
  timeout "${BENCH_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli train --backend cuda \
    --cfg "$L/train-5-classes.cfg" --data "$L/pack/packed.data" --out "$L/train" --max-batches "${LOADER_ITERATIONS:-200}" \
    --checkpoint-every 100000 2>&1 | tee -a "$LOGS/loader.log"
fi

if [[ ",$PHASES," == *",multiscale,"* ]]; then
  log "multi-scale training"
  L=/tmp/argus-multiscale
  [ -f "$L/synth/synth.data" ] || argus dataset synth --out "$L/synth" --count "${MS_IMAGES:-1024}" --seed 7 \
    --size "$SIZE" 2>&1 | tail -2 | tee "$LOGS/multiscale.log"
  # the cfg with the synthetic set's 5 classes and random=1 in every [yolo] (yolov4-tiny ships random=0)
  sed -e 's/^classes=80/classes=5/' -e 's/^filters=255/filters=30/' -e 's/^random=.*/random=1/' "$CFG" \
    > "$L/multiscale.cfg"
  for mode in on off; do
    rm -rf "$L/train-$mode"
    log "argus train --backend cuda --multi-scale $mode"
    timeout "${MS_TIMEOUT:-200}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli train --backend cuda \
      --cfg "$L/multiscale.cfg" --data "$L/synth/synth.data" --out "$L/train-$mode" \
      --max-batches "${MS_ITERATIONS:-300}" --multi-scale "$mode" --checkpoint-every 100000 2>&1 \
      | tee -a "$LOGS/multiscale.log"
  done
fi

# the benchmarks' table (the tests printed theirs above)
[[ ",$PHASES," == *,bench,* || ",$PHASES," == *,torch,* || ",$PHASES," == *,curves,* ]] || exit 0
log "summary"
python3 "$B/train_summary.py" "$LOGS"/train-bench.log "$LOGS"/train-torch.log "$LOGS"/train-curves.log \
  "$LOGS"/curves.csv 2>&1 | tee "$LOGS/train-summary.md"
