#!/usr/bin/env bash
# The CPU measurements quoted in the closing notes, in one go, on an otherwise idle machine:
# detector vs OpenCV DNN and Debian's Darknet (issues 2, 3), the live pipeline (issue 5).
#   scripts/measure-cpu.sh [OUT_DIR]     (default out/measure-<date>)
set -u
cd "$(dirname "$0")/.."
OUT="${1:-out/measure-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
A=bin/argus
C=config/models/cfg
run() { echo "### $*  (load $(cut -d' ' -f1-3 /proc/loadavg))"; "$@" 2>&1 | grep -v '^WARNING'; echo; }
{
  run $A bench --backend cpu --cfg $C/yolov4-tiny.cfg --width 416 --height 416 --batch 1 --vs opencv --seconds 10
  run $A bench --backend cpu --cfg $C/yolov3.cfg --width 416 --height 416 --batch 1 --vs opencv --seconds 10
  run $A bench --backend cpu --cfg $C/yolov4-tiny.cfg --width 416 --height 416 --batch 8 --vs opencv --seconds 10
  run $A bench --backend cpu --cfg $C/yolov3-tiny.cfg --width 416 --height 416 --batch 1 --vs darknet --seconds 10
  run $A bench --backend cpu --cfg $C/yolov3.cfg --width 416 --height 416 --batch 1 --vs darknet --seconds 10
  run $A bench pipeline --cameras "${CAMERAS:-1,2,4,6,8}" --seconds "${PIPELINE_SECONDS:-20}"
} | tee "$OUT/cpu.txt"
grep -E '^###|ratio|sustained|p99|RSS' "$OUT/cpu.txt"
