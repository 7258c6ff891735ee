#!/usr/bin/env bash
# One command on a GPU host without Java (run from the repository root, the bundle of scripts/gpu/build-bundle.sh in
# .bundle-cuda/):
#   .bundle-cuda/run-gpu.sh [PHASES]      PHASES: comma list of tests,bench,torch (default: all three), and
#                                         doctor (not in the default): `argus doctor` on the GPU host
#                                         faults (not in the default): the several-GPU fault drill, in its own JVM
#                                         pipeline-train (not in the default): a short online fine-tune through the
#                                         pipeline's backend factory with training.backend auto (must run on CUDA in
#                                         mixed precision with a loss scale, on a lowest-priority stream) and the
#                                         detector's stream priority; log in OUT/pipeline-train.log
# tests: every GPU-tagged test in the bundle but the fault drills, a JVM per module: the detector's
# (io.argus.detector.cuda), the trainer's (io.argus.trainer.cuda), the tools' (GpuScalingBenchGpuTest) and the
# pipeline's fine-tune (FineTuneBackendTest; the NVDEC tests need FFmpeg: scripts/nvdec); the console's trees in
# OUT/tests-*.log, XML reports in OUT/tests-*/, a table per class last (junit_summary.py, also in OUT/tests-summary.md).
# env: MODELS (default "yolov4-tiny yolov3 yolov4"), BATCHES (1,8,32,64), COMPILE ("yolov4-tiny:64": model:batch
# pairs timed with torch.compile max-autotune-no-cudagraphs, "" for none), BENCH_SECONDS (0.5), AUTOTUNE (cuDNN
# engines timed per convolution shape, 2), VERBOSE (plans per layer), TEST_TIMEOUT (s, per module),
# TESTS (test classes instead of all: simple names in io.argus.detector.cuda or fully qualified), SUITES (the modules'
# suites of tests, default "tools pipeline detector trainer"), IN_FLIGHT (bench: also detect calls kept N in flight on
# one GPU, `--gpus 1 --in-flight N`, in device and unified memory), FRAMES (bench: where the detect calls' host frames
# lie, "heap" and/or "pinned", comma list; default heap), NCU_KERNELS (profile: only the kernels this regex names, with
# Nsight Compute's throughput, memory, occupancy and stall sections, as text; NCU_COUNT launches, PROFILE_JOPTS),
# PRECISIONS (bench: also run it with these convolution precisions, e.g. "fp8,auto", calibrated on CALIBRATION,
# default config/samples; OUT/bench-<p>.log), OUT (where logs go).
# Prints a summary table last (scripts/gpu/summarize.py).
set -u
B="$(cd "$(dirname "$0")" && pwd)"
cd "$B/.."
PHASES="${1:-tests,bench,torch}"
# train-* phases: the CUDA trainer's bundle (BUNDLE=train), run by run-train.sh
if [[ "$PHASES" == train* ]]; then exec "$B/run-train.sh" "$PHASES"; fi
MODELS="${MODELS:-yolov4-tiny yolov3 yolov4}"
BATCHES="${BATCHES:-1,8,32,64}"
COMPILE="${COMPILE-yolov4-tiny:64}"
BENCH_SECONDS="${BENCH_SECONDS:-0.5}"
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
JOPTS=(-Xmx24g --enable-native-access=ALL-UNNAMED -Djava.awt.headless=true -Dargus.cuda.verbose="${VERBOSE:-false}" -Dargus.cuda.autotune="${AUTOTUNE:-2}")
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,utilization.gpu --format=csv,noheader
"$JAVA" -version 2>&1 | head -1

if [[ ",$PHASES," == *",doctor,"* ]]; then
  log "argus doctor (what a user's first look at this GPU host says)"
  "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli doctor 2>&1 | tee "$LOGS/doctor.log"
fi
if [[ ",$PHASES," == *",tests,"* ]]; then
  log "GPU tests"
  if [ -n "${TESTS:-}" ]; then
    SELECT=()
    for t in $TESTS; do [[ "$t" == *.* ]] || t="io.argus.detector.cuda.$t"; SELECT+=(--select-class "$t"); done
    junit_tests tests-selected "${SELECT[@]}"
  else
    # the short ones first: a run cut short by its host's time limit still reports them
    for suite in ${SUITES:-tools pipeline detector trainer}; do
      case "$suite" in
        tools) junit_tests tests-tools --select-class io.argus.tools.detector.GpuScalingBenchGpuTest ;;
        pipeline) junit_tests tests-pipeline --select-class io.argus.pipeline.training.FineTuneBackendTest ;;
        detector) junit_tests tests-detector --select-package io.argus.detector.cuda ;;
        trainer) junit_tests tests-trainer --select-package io.argus.trainer.cuda ;;
        *) echo "SUITES: unknown suite $suite (tools, pipeline, detector, trainer)" ;;
      esac
    done
  fi
  log "GPU tests, per class"
  python3 "$B/junit_summary.py" "$LOGS"/tests-*/ | tee "$LOGS/tests-summary.md"
fi
if [[ ",$PHASES," == *",faults,"* ]]; then
  # a JVM of its own: a GPU fault is sticky for the whole process (docs/cuda.md, "Several GPUs")
  log "GPU fault drill (GpuFaultDrillTest; needs 2 GPUs)"
  timeout "${TEST_TIMEOUT:-480}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --select-class io.argus.detector.cuda.GpuFaultDrillTest --include-tag gpu-fault --details=tree --disable-banner \
    --disable-ansi-colors 2>&1 | tee "$LOGS/faults.log"
  echo "faults exit: ${PIPESTATUS[0]}"
fi

if [[ ",$PHASES," == *",pipeline-train,"* ]]; then
  log "GPU fine-tune in the pipeline (training.backend auto) and stream priorities"
  timeout "${TEST_TIMEOUT:-480}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --select-class io.argus.pipeline.training.FineTuneBackendTest --select-class io.argus.detector.cuda.GpuStreamPriorityTest \
    --include-tag gpu --exclude-tag gpu-fault --details=tree --disable-banner --disable-ansi-colors 2>&1 | tee "$LOGS/pipeline-train.log"
  echo "pipeline-train exit: ${PIPESTATUS[0]}"
fi
# the rest is the benchmarks'
[[ ",$PHASES," == *",bench,"* || ",$PHASES," == *",torch,"* || ",$PHASES," == *",profile,"* ]] || exit 0

for model in $MODELS; do
  cfg="config/models/cfg/$model.cfg"
  W="$T/$model.weights"
  [ -f "$W" ] || "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli weights init --cfg "$cfg" --seed 1 --out "$W"
  if [[ ",$PHASES," == *",bench,"* ]]; then
    log "argus bench $model"
    echo "### model $model" | tee -a "$LOGS/bench.log"
    timeout "${BENCH_TIMEOUT:-300}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench --backend cuda \
      --cfg "$cfg" --weights "$W" --width 416 --height 416 --batch "$BATCHES" --seconds "$BENCH_SECONDS" --warmup 3 \
      --frames "${FRAMES:-heap}" 2>&1 | tee -a "$LOGS/bench.log"
    # the same in other convolution precisions (fp8, auto), calibrated on config/samples, beside it in bench-<p>.log
    for p in $(echo "${PRECISIONS:-}" | tr , " "); do
      log "argus bench $model, precision $p"
      echo "### model $model precision $p" | tee -a "$LOGS/bench-$p.log"
      timeout "${BENCH_TIMEOUT:-300}" "$JAVA" "${JOPTS[@]}" -Dargus.cuda.precision="$p" \
        -Dargus.cuda.calibration="${CALIBRATION:-config/samples}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench \
        --backend cuda --cfg "$cfg" --weights "$W" --width 416 --height 416 --batch "$BATCHES" \
        --seconds "$BENCH_SECONDS" --warmup 3 --frames "${FRAMES:-heap}" 2>&1 | tee -a "$LOGS/bench-$p.log"
    done
    # detect calls kept in flight as the camera pipeline keeps them (one GPU), per memory mode
    for mem in ${IN_FLIGHT:+device unified}; do
      for frames in $(echo "${FRAMES:-heap}" | tr , " "); do
        for b in ${BATCHES//,/ }; do
          timeout "${BENCH_TIMEOUT:-300}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench --backend cuda \
            --cfg "$cfg" --weights "$W" --width 416 --height 416 --batch "$b" --gpus 1 --in-flight "$IN_FLIGHT" \
            --memory "$mem" --frames "$frames" --seconds "$BENCH_SECONDS" --warmup 3 2>&1 | grep -E "argus-gpus|rror" \
            | sed "s/^/$mem, $frames frames: /" | tee -a "$LOGS/bench.log"
        done
      done
    done
  fi
  if [[ ",$PHASES," == *",profile,"* ]]; then
    # after bench: its plans are in the plan cache, so planning times nothing under the profiler
    NCU="$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
    if [ -z "$NCU" ]; then
      echo "profile: no ncu on this host" | tee -a "$LOGS/profile.log"
    else
      log "Nsight Compute: $model forward b${PROFILE_BATCH:-64}"
      pb="${PROFILE_BATCH:-64}"
      if [ -n "${NCU_KERNELS:-}" ]; then
        # the kernels named by the regex NCU_KERNELS (their first NCU_COUNT launches), with Nsight Compute's sections
        # on throughput, memory, occupancy and warp stalls, as text; PROFILE_JOPTS adds JVM options (such as
        # -Dargus.cuda.direct=always to run our convolution kernels wherever they apply)
        timeout "${PROFILE_TIMEOUT:-400}" "$NCU" --target-processes all --kernel-name "regex:$NCU_KERNELS" \
          --launch-count "${NCU_COUNT:-8}" --section SpeedOfLight --section MemoryWorkloadAnalysis \
          --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
          "$JAVA" "${JOPTS[@]}" ${PROFILE_JOPTS:-} -cp "$CP" io.argus.pipeline.cli.ArgusCli bench forwards \
          --cfg "$cfg" --weights "$W" --width 416 --height 416 --batch "$pb" --runs 1 > "$LOGS/ncu-kernels-$model.txt" 2>&1
        echo "profile: $(grep -cE '^  [a-z_0-9]+ \(' "$LOGS/ncu-kernels-$model.txt") kernels in ncu-kernels-$model.txt" \
          | tee -a "$LOGS/profile.log"
      else
        base=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
        for metrics in "$base,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active" "$base"; do
          timeout "${PROFILE_TIMEOUT:-400}" "$NCU" --target-processes all --metrics "$metrics" --csv --page raw \
            --log-file "$LOGS/ncu-$model-b$pb.csv" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench \
            forwards --cfg "$cfg" --weights "$W" --width 416 --height 416 --batch "$pb" --runs 3 2>&1 \
            | tail -5 | tee -a "$LOGS/profile.log"
          grep -q '"Kernel Name"' "$LOGS/ncu-$model-b$pb.csv" 2>/dev/null && break
          echo "profile: ncu with $metrics failed; $(grep -m3 -i error "$LOGS/ncu-$model-b$pb.csv")" | tee -a "$LOGS/profile.log"
        done
        python3 "$B/ncu_summary.py" "$LOGS/ncu-$model-b$pb.csv" --runs 3 2>&1 | tee -a "$LOGS/profile.log"
      fi
    fi
  fi
  if [[ ",$PHASES," == *",torch,"* ]]; then
    log "PyTorch peer $model"
    echo "### model $model" | tee -a "$LOGS/torch.log"
    compile=""
    for pair in $COMPILE; do [ "${pair%%:*}" = "$model" ] && compile="${pair#*:}"; done
    PYTHONUNBUFFERED=1 timeout "${TORCH_TIMEOUT:-420}" python3 "$B/torch_peer.py" --cfg "$cfg" --weights "$W" --size 416 \
      --batch "$BATCHES" --seconds "$BENCH_SECONDS" ${compile:+--compile-batch "$compile"} 2>&1 | tee -a "$LOGS/torch.log"
  fi
done

log "summary"
python3 "$B/summarize.py" "$LOGS/bench.log" "$LOGS/torch.log" | tee "$LOGS/summary.md"
