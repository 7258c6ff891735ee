#!/usr/bin/env bash
# The CPU measurements quoted in docs/benchmarks.md, in one go, on an otherwise idle machine: the detector vs OpenCV
# DNN and ONNX Runtime in FP32 and (where the CPU has the instructions) BF16 and INT8 (calibrated on config/samples),
# each REPEATS times; Debian's Darknet (DARKNET=1); the live pipeline (PIPELINE=1).
#   scripts/measure-cpu.sh [OUT_DIR]     (default out/measure-<date>; REPEATS=3, PIPELINE=0)
set -u
cd "$(dirname "$0")/.."
OUT="${1:-out/measure-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
A=bin/argus
C=config/models/cfg
P=fp32
grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && P=$P,bf16
grep -qwE 'avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo && P=$P,int8
run() { echo "### $*  (load $(cut -d' ' -f1-3 /proc/loadavg))"; "$@" 2>&1 | grep -v '^WARNING'; echo; }
{
  lscpu | grep -E '^(Model name|CPU family|Model):'
  echo "ISA: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_vnni|avx_vnni|avx512_bf16|avx512_fp16|amx_bf16|amx_int8)$' | xargs)"
  for r in $(seq "${REPEATS:-3}"); do
    echo "=== repeat $r"
    run $A bench --backend cpu --cfg $C/yolov4-tiny.cfg --width 416 --height 416 --batch 1 --precision $P --vs opencv,onnxruntime --seconds 10
    run $A bench --backend cpu --cfg $C/yolov3.cfg --width 416 --height 416 --batch 1 --precision $P --vs opencv --seconds 10
    run $A bench --backend cpu --cfg $C/yolov4-tiny.cfg --width 416 --height 416 --batch 8 --precision $P --vs opencv --seconds 10
  done
  if [ "${DARKNET:-0}" = 1 ]; then
    run $A bench --backend cpu --cfg $C/yolov3-tiny.cfg --width 416 --height 416 --batch 1 --vs darknet --seconds 10
    run $A bench --backend cpu --cfg $C/yolov3.cfg --width 416 --height 416 --batch 1 --vs darknet --seconds 10
  fi
  if [ "${PIPELINE:-0}" = 1 ]; then
    run $A bench pipeline --cameras "${CAMERAS:-1,2,4,6,8}" --seconds "${PIPELINE_SECONDS:-20}"
  fi
} | tee "$OUT/cpu.txt"
grep -E '^###|^===|ratio|sustained|p99|RSS' "$OUT/cpu.txt"
