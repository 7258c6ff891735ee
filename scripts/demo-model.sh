#!/usr/bin/env bash
# The demo model trained from scratch, as config/models/demo.weights began (docs/training.md, "Demo model", step 1):
# yolov4-tiny's layout at a quarter of its widths on 2,000 synthetic scenes (dataset seed 7), 8,000 iterations from
# training seed 1 with 2 worker threads (bit-reproducible for a given thread count), then mAP@0.5 on the dataset's
# validation split (its last tenth, 200 images). PASS when mAP@0.5 >= 0.9 (exit 0), FAIL otherwise (exit 1).
# A long run (about 12 minutes on a quiet 2-core machine, 30 under load), so not part of scripts/test.sh; the shipped
# weights are checked there (trainer's DemoModelTest). Last result: docs/testing.md, "Long runs".
#   scripts/demo-model.sh [--out DIR] [--max-batches N]
#     --out DIR          keep the dataset, the checkpoints and the logs there (default: a new /tmp/argus-demo-model.*)
#     --max-batches N    stop after N iterations: a quick check of the steps, whose gate then fails as it should
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="" MAX_BATCHES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --max-batches) MAX_BATCHES="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "demo-model.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$OUT" ] || OUT="$(mktemp -d /tmp/argus-demo-model.XXXXXX)"
mkdir -p "$OUT"
argus="$ROOT/bin/argus"
cfg="$ROOT/config/models/demo.cfg"
t0=$SECONDS

"$argus" dataset synth --out "$OUT/synth" --count 2000 --seed 7 > "$OUT/dataset.log" 2>&1
echo "demo-model: dataset in $((SECONDS - t0)) s ($OUT/synth)"
t1=$SECONDS
"$argus" train --cfg "$cfg" --data "$OUT/synth/synth.data" --out "$OUT/train" --seed 1 --threads 2 \
  --max-batches "$MAX_BATCHES" > "$OUT/train.log" 2>&1 \
  || { tail -20 "$OUT/train.log" >&2; echo "demo-model: training failed ($OUT/train.log)" >&2; exit 1; }
echo "demo-model: trained in $((SECONDS - t1)) s: $(grep '^wrote ' "$OUT/train.log" | tail -1)"
"$argus" eval --cfg "$cfg" --weights "$OUT/train/demo_last.weights" --data "$OUT/synth/synth.data" > "$OUT/eval.txt" 2>&1
cat "$OUT/eval.txt"
map=$(sed -n 's/^mAP@0.5 = //p' "$OUT/eval.txt")
[ -n "$map" ] || { echo "demo-model: no mAP@0.5 in $OUT/eval.txt" >&2; exit 1; }
sha=$(sha256sum "$OUT/train/demo_last.weights" | cut -c1-16)
if awk -v m="$map" 'BEGIN { exit !(m >= 0.9) }'; then
  echo "demo-model: PASS: mAP@0.5 = $map >= 0.9 after $((SECONDS - t0)) s (weights sha256 $sha..., $OUT)"
else
  echo "demo-model: FAIL: mAP@0.5 = $map < 0.9 after $((SECONDS - t0)) s (weights sha256 $sha..., $OUT)" >&2
  exit 1
fi
