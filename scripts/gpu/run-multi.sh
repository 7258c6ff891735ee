#!/usr/bin/env bash
# Several GPUs on a multi-GPU host without Java, from the repository root, with the bundle of
# scripts/gpu/build-bundle.sh DIR (DIR named in the device tool's carry):
#   scripts/gpu/run-multi.sh DIR [PHASES]
# PHASES (comma list, default env,tests,bench,torch,infer):
#   faults  the fault drill: a GPU that fails for real in a 2-GPU data-parallel run (GpuRankFaultTest, own JVM)
#   env     the GPUs, how they are linked (nvidia-smi topo), the host CPU, NCCL's version
#   tests   the data-parallel and several-GPU inference tests (GpuDataParallelTest, GpuWorkersGpuTest,
#           GpuScalingBenchGpuTest; TESTS="fully.qualified.Class ..." for others)
#   bench   argus bench train --gpus 1,2,4: yolov4-tiny 416, BATCH (64) per GPU, mixed precision, scaling vs one GPU
#   torch   the PyTorch DDP peer (torchrun, NCCL, AMP, channels_last) at the same GPU counts, same run
#   infer   inference on all GPUs (INFER_CMD, an argus command line: the multi-GPU inference benchmark)
#   feed    argus train --gpus N on a packed synthetic set at batch BATCH per GPU with the loader, GPU busy sampled
#           by nvidia-smi every 250 ms (the goal: GPU idle < 5 %)
#   resume  loss curves: 2 GPUs uninterrupted twice (run-to-run noise), 2 GPUs suspended halfway and resumed on 4 and
#           on 1 (a checkpoint resumes on another GPU count), RESUME_ITERATIONS (120) iterations (burn-in 20, so the
#           rate is the cfg's after it), the same data order on every GPU count
# env: GPU_COUNTS (1,2,4, cut to the GPUs present), SECONDS_EACH (10), OUT (logs, default /tmp/argus-out);
#      TORCH_COMPILE=1 (the peer under torch.compile), TORCH_COMPILE_MODE (its mode; default max-autotune-no-cudagraphs)
set -u
B="$(cd "${1:?bundle directory}" && pwd)"
PHASES="${2:-env,tests,bench,torch,infer}"
CFG=config/models/cfg/yolov4-tiny.cfg
BATCH="${BATCH:-64}"
SECS="${SECONDS_EACH:-10}"
LOGS="${OUT:-/tmp/argus-out}"
mkdir -p "$LOGS"
T=/tmp/argus-run
mkdir -p "$T"
# the set-up the GPU runners share (this script runs from the repository, beside it)
. "$(cd "$(dirname "$0")" && pwd)/preamble.sh"
has() { [[ ",$PHASES," == *",$1,"* ]]; }

unpack_jre
unpack_classpath
site_packages
NCCL_LIB="$(dirname "$(find "$SP/nvidia" -name 'libnccl.so.2' | head -1)")"
cuda_library_path "$NCCL_LIB"
export ARGUS_KERNEL_CACHE="$T/kernels"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1   # never NVLink multicast here
JOPTS=(-Xmx48g --enable-native-access=ALL-UNNAMED -Djava.awt.headless=true)
argus() { "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli "$@"; }
NGPU=$(nvidia-smi -L | wc -l)
COUNTS=""
for n in ${GPU_COUNTS:-1,2,4}; do :; done
for n in $(echo "${GPU_COUNTS:-1,2,4}" | tr ',' ' '); do [ "$n" -le "$NGPU" ] && COUNTS="$COUNTS${COUNTS:+,}$n"; done

if has env; then
  log "host"
  nvidia-smi --query-gpu=index,name,driver_version,memory.used,memory.total,utilization.gpu --format=csv,noheader
  nvidia-smi topo -m
  lscpu | grep -E '^(Model name|CPU family|Model|CPU\(s\)):'
  echo "NCCL library: $NCCL_LIB; torch NCCL $(python3 -c 'import torch; print(torch.cuda.nccl.version())')"
  "$JAVA" -version 2>&1 | head -1
fi

if has tests; then
  log "GPU tests"
  SELECT=(--select-class io.argus.trainer.cuda.GpuDataParallelTest --select-class io.argus.detector.cuda.GpuWorkersGpuTest
    --select-class io.argus.tools.detector.GpuScalingBenchGpuTest)
  if [ -n "${TESTS:-}" ]; then SELECT=(); for t in $TESTS; do SELECT+=(--select-class "$t"); done; fi
  timeout "${TEST_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    "${SELECT[@]}" --include-tag gpu --exclude-tag gpu-fault --details=tree --disable-banner --disable-ansi-colors 2>&1 | tee "$LOGS/multi-tests.log" \
    | grep -vE '^\s+(at |\.\.\.)' | tail -40
  echo "tests exit: ${PIPESTATUS[0]}"
fi
if has faults; then
  # a JVM of its own: a GPU fault is sticky for the whole process (docs/cuda.md, "Several GPUs")
  log "GPU fault drill in a data-parallel run (GpuRankFaultTest)"
  timeout "${TEST_TIMEOUT:-240}" "$JAVA" "${JOPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --select-class io.argus.trainer.cuda.GpuRankFaultTest --include-tag gpu-fault --details=tree --disable-banner \
    --disable-ansi-colors 2>&1 | tee "$LOGS/multi-faults.log" | grep -vE '^\s+(at |\.\.\.)' | tail -30
  echo "faults exit: ${PIPESTATUS[0]}"
fi

if has bench; then
  log "argus bench train --gpus $COUNTS"
  timeout "${BENCH_TIMEOUT:-300}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli bench train --cfg "$CFG" \
    --width 416 --height 416 --batch "$BATCH" --precision mixed --gpus "$COUNTS" --seconds "$SECS" --warmup 10 \
    2>&1 | grep -v '^WARNING' | tee "$LOGS/multi-bench.log"
fi

if has torch; then
  for n in $(echo "$COUNTS" | tr ',' ' '); do
    log "PyTorch DDP, $n GPU(s)"
    PYTHONUNBUFFERED=1 timeout "${TORCH_TIMEOUT:-150}" torchrun --standalone --nproc_per_node "$n" \
      scripts/gpu/torch_ddp_peer.py --cfg "$CFG" --size 416 --batch "$BATCH" --seconds "$SECS" ${TORCH_COMPILE:+--compile} ${TORCH_COMPILE_MODE:+--compile-mode "$TORCH_COMPILE_MODE"} \
      2>&1 | grep -E '^torch' | tee -a "$LOGS/multi-torch.log"
  done
fi

if has infer; then
  log "inference on all GPUs: ${INFER_CMD:-(no INFER_CMD)}"
  [ -n "${INFER_CMD:-}" ] && timeout "${INFER_TIMEOUT:-240}" bash -c "$(declare -f argus); $(declare -p JAVA JOPTS CP); argus $INFER_CMD" \
    2>&1 | grep -v '^WARNING' | tee "$LOGS/multi-infer.log"
fi

DATA=/tmp/argus-multi
if has feed || has resume; then
  if [ ! -f "$DATA/pack/packed.data" ]; then
    log "synthetic set (1,000 images at 416) and its pack"
    argus dataset synth --out "$DATA/synth" --count "${SYNTH_COUNT:-1000}" --seed 7 --size 416 2>&1 | tail -2
    argus dataset pack --data "$DATA/synth/synth.data" --out "$DATA/pack" 2>&1 | tail -2
  fi
  # yolov4-tiny with the synthetic set's 5 classes
  # yolov4-tiny with the synthetic set's 5 classes; $3: burn_in (the cfg's 1000 keeps the rate near 0 for a short run)
  five() { sed -e 's/^classes=80/classes=5/' -e 's/^filters=255/filters=30/' -e "s/^batch=.*/batch=$1/" \
    -e "s/^subdivisions=.*/subdivisions=$2/" -e "s/^burn_in=.*/burn_in=${3:-1000}/" \
    -e "s/^learning_rate=.*/learning_rate=${4:-0.00261}/" "$CFG"; }
fi

if has feed; then
  for n in $(echo "${FEED_COUNTS:-$COUNTS}" | tr ',' ' '); do
    log "argus train --gpus $n on the pack, $BATCH images per GPU and pass"
    five $((BATCH * n)) "$n" > "$DATA/feed-$n.cfg"
    rm -rf "$DATA/feed-out-$n"
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 250 > "$LOGS/gpu-util-$n.csv" &
    smi=$!
    timeout "${FEED_TIMEOUT:-150}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli train --backend cuda \
      --gpus "$n" --cfg "$DATA/feed-$n.cfg" --data "$DATA/pack/packed.data" --out "$DATA/feed-out-$n" \
      --max-batches "${FEED_ITERATIONS:-200}" --checkpoint-every 100000 2>&1 | grep -v '^WARNING' | tee "$LOGS/feed-$n.log" | tail -6
    kill $smi
    python3 - "$LOGS/gpu-util-$n.csv" "$n" <<'PY'
import sys, statistics
rows = [l.split(",") for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault(int(r[0]), []).append(float(r[1]))
n = int(sys.argv[2])
for g in range(n):
    s = by.get(g, [])
    busy = [v for v in s if v > 0]
    # the samples from the first to the last busy one: set-up and teardown outside
    if busy:
        first = s.index(busy[0]); last = len(s) - 1 - s[::-1].index(busy[-1])
        s = s[first:last + 1]
    print(f"GPU {g}: {len(s)} samples while training, busy median {statistics.median(s) if s else 0:.0f} %, "
          f"mean {statistics.mean(s) if s else 0:.1f} %, samples under 90 %: {sum(v < 90 for v in s)}")
PY
  done
fi

if has resume; then
  IT="${RESUME_ITERATIONS:-120}"
  five 256 4 "${RESUME_BURN_IN:-20}" "${RESUME_LR:-0.00261}" > "$DATA/resume.cfg"   # 4 mini-batches of 64 per iteration: 1, 2 or 4 GPUs share them out
  train() { timeout "${RESUME_TIMEOUT:-200}" "$JAVA" "${JOPTS[@]}" -cp "$CP" io.argus.pipeline.cli.ArgusCli train \
    --backend cuda --cfg "$DATA/resume.cfg" --data "$DATA/pack/packed.data" --checkpoint-every 100000 "$@" 2>&1 \
    | grep -v '^WARNING'; }
  for run in straight again; do
    log "resume: 2 GPUs, $IT iterations ($run)"
    rm -rf "$DATA/r-$run"; train --gpus 2 --out "$DATA/r-$run" --max-batches "$IT" > "$LOGS/resume-$run.log"
    tail -2 "$LOGS/resume-$run.log"
  done
  for to in $(echo "${RESUME_TO:-4,1}" | tr ',' ' '); do
    [ "$to" -le "$NGPU" ] || continue
    log "resume: 2 GPUs to $((IT / 2)), then $to GPU(s) to $IT"
    rm -rf "$DATA/r-to-$to"
    train --gpus 2 --out "$DATA/r-to-$to" --max-batches $((IT / 2)) > "$LOGS/resume-to-$to.log"
    train --gpus "$to" --out "$DATA/r-to-$to" --max-batches "$IT" --resume >> "$LOGS/resume-to-$to.log"
    tail -2 "$LOGS/resume-to-$to.log"
  done
  python3 scripts/gpu/loss_curves_compare.py "$LOGS/resume-straight.log" "$LOGS/resume-again.log" \
    "$LOGS"/resume-to-*.log 2>&1 | tee "$LOGS/resume-summary.txt"
fi
log "done"
