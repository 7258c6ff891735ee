#!/usr/bin/env bash
# CPU training speed, docs/training.md "CPU training speed": `argus bench train --backend cpu` against Debian's Darknet
# (`apt-get install darknet`) on the same cfg, data and batch, REPEATS times interleaved.
#   scripts/measure-cpu-training.sh [OUT_DIR] [OTHER_ARGUS_HOME...]
# Each ARGUS_HOME (default: this checkout; e.g. a build of an older commit as well) is timed on yolov4-tiny and
# yolov3-tiny at 256x256, batch 16; Darknet on yolov3-tiny only (its 2018 code has no grouped routes). Darknet's
# images/s: 16 / the median seconds of its iterations 2..4.
set -u
cd "$(dirname "$0")/.."
OUT="${1:-out/cpu-training-$(date +%Y%m%d-%H%M%S)}"; shift || true
HOMES=("$PWD" "$@")
mkdir -p "$OUT/cfg" "$OUT/backup"
[ -d "$OUT/synth" ] || bin/argus dataset synth --out "$OUT/synth" --count 300 --size 256 --seed 7 >/dev/null
sed "s|^|$PWD/$OUT/synth/|" "$OUT/synth/train.txt" > "$OUT/train-abs.txt"
printf 'classes=5\ntrain=%s\nnames=%s\nbackup=%s\n' "$PWD/$OUT/train-abs.txt" "$PWD/$OUT/synth/synth.names" \
  "$PWD/$OUT/backup" > "$OUT/darknet.data"
for m in yolov3-tiny yolov4-tiny; do
  sed -e 's/^batch=.*/batch=16/' -e 's/^subdivisions=.*/subdivisions=1/' -e 's/^width=.*/width=256/' \
      -e 's/^height=.*/height=256/' -e 's/^filters=255/filters=30/' -e 's/^classes=80/classes=5/' \
      -e 's/^max_batches *=.*/max_batches=4/' -e 's/^random=.*/random=0/' config/models/cfg/$m.cfg > "$OUT/cfg/$m-256.cfg"
done
{
  lscpu | grep -E '^(Model name|CPU family|Model):'
  for r in $(seq "${REPEATS:-3}"); do
    for m in yolov4-tiny yolov3-tiny; do
      for h in "${HOMES[@]}"; do
        echo "### repeat $r $h $m load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
        "$h/bin/argus" bench train --backend cpu --cfg "$OUT/cfg/$m-256.cfg" --batch 16 --seconds 30 --warmup 2 2>&1 \
          | grep argus-train-cpu
      done
    done
    if command -v darknet >/dev/null; then
      echo "### repeat $r darknet yolov3-tiny load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
      (cd "$OUT" && stdbuf -oL darknet detector train darknet.data cfg/yolov3-tiny-256.cfg 2>&1 | grep -E '^[0-9]+: ')
    fi
  done
} | tee "$OUT/cpu-training.txt"
