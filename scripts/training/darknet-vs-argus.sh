#!/usr/bin/env bash
# Darknet's training and Argus's side by side (docs/training.md, "Darknet and Argus training side by side"): Debian's
# `darknet detector train` (pjreddie's 2018 code) and `argus train` on the same cfg (scripts/training/
# yolov3-tiny-q416.cfg: yolov3-tiny at a quarter of its widths, 416x416, random=1), the same synthetic dataset and the
# same initial weights (Darknet's initialisation, written by a 0-iteration Darknet run), RUNS runs of each with
# different data-order seeds (Darknet: srand(time(0)); Argus: --seed 101, 102, ...). Then, for every run, at
# iterations 0, 100, 200, ... and the last:
#   - mAP@0.5 on the held-out validation split: `argus eval` at 416x416 on each tool's .weights;
#   - a common loss: Darknet's own training loss (sum of squared deltas per image) of those weights on the validation
#     images at 416x416, learning rate 0, no augmentation but Darknet's flip (PROBE_ITERATIONS batches);
# and each tool's own training loss, averaged per 10 iterations (the two tools define it differently: see the doc).
# The table: scripts/training/darknet-vs-argus-summary.py OUT.
#   scripts/training/darknet-vs-argus.sh [OUT]        (default out/darknet-vs-argus-<time>)
# Environment: RUNS (3), ITERATIONS (300), BATCH (8), COUNT (400 images, a quarter for validation), PROBE_ITERATIONS
# (13), ARGUS_THREADS (2), MULTI_SCALE (on), FIXED (0; 1: random=0 in the cfg and --multi-scale off, both tools at
# 416 throughout). An OUT that already holds synth/ and init.weights keeps them (the same data and initial weights). Runs alternate: darknet 1, argus 1, darknet 2, ...
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
OUT="${1:-out/darknet-vs-argus-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
RUNS="${RUNS:-3}" ITERATIONS="${ITERATIONS:-300}" BATCH="${BATCH:-8}" COUNT="${COUNT:-400}"
PROBE_ITERATIONS="${PROBE_ITERATIONS:-13}" ARGUS_THREADS="${ARGUS_THREADS:-2}" MULTI_SCALE="${MULTI_SCALE:-on}"
FIXED="${FIXED:-0}" RANDOM_SIZES=1
[ "$FIXED" = 0 ] || { RANDOM_SIZES=0; MULTI_SCALE=off; }
argus="$ROOT/bin/argus"
command -v darknet >/dev/null || { echo "darknet-vs-argus: no darknet (apt-get install darknet)" >&2; exit 2; }
log() { echo "darknet-vs-argus: $(date -u +%T) $*" | tee -a "$OUT/progress.txt"; }

{ date -u +'date %Y-%m-%dT%H:%M:%SZ'; lscpu | grep -E '^(Model name|CPU family|Model|CPU\(s\)):';
  echo "RUNS=$RUNS ITERATIONS=$ITERATIONS BATCH=$BATCH COUNT=$COUNT PROBE_ITERATIONS=$PROBE_ITERATIONS"\
       "ARGUS_THREADS=$ARGUS_THREADS MULTI_SCALE=$MULTI_SCALE FIXED=$FIXED";
  echo "darknet $(dpkg-query -W -f='${Version}' darknet 2>/dev/null || echo '?')"; echo "argus $(git rev-parse --short HEAD)"
} > "$OUT/setup.txt"

# The dataset: 256x256 scenes, the last quarter held out.
[ -f "$OUT/synth/synth.data" ] || "$argus" dataset synth --out "$OUT/synth" --count "$COUNT" --size 256 --seed 7 \
  --val-fraction 0.25 > /dev/null
sed "s|^|$OUT/synth/|" "$OUT/synth/train.txt" > "$OUT/train-abs.txt"
sed "s|^|$OUT/synth/|" "$OUT/synth/val.txt" > "$OUT/val-abs.txt"

# The cfg: ITERATIONS, steps at 80 % and 90 %, BATCH. The probe cfg: the same at 416 without resizing or augmentation
# (random=0, jitter=0, hue 0, saturation and exposure 1) and learning rate 0.
s1=$((ITERATIONS * 8 / 10)) s2=$((ITERATIONS * 9 / 10))
sed -e "s/^max_batches=.*/max_batches=$ITERATIONS/" -e "s/^steps=.*/steps=$s1,$s2/" -e "s/^batch=.*/batch=$BATCH/" \
  -e "s/^random=.*/random=$RANDOM_SIZES/" scripts/training/yolov3-tiny-q416.cfg > "$OUT/q.cfg"
sed -e "s/^max_batches=.*/max_batches=$PROBE_ITERATIONS/" -e 's/^learning_rate=.*/learning_rate=0/' \
  -e 's/^burn_in=.*/burn_in=0/' -e 's/^random=.*/random=0/' -e 's/^jitter=.*/jitter=0/' -e 's/^hue=.*/hue=0/' \
  -e 's/^saturation=.*/saturation=1/' -e 's/^exposure=.*/exposure=1/' "$OUT/q.cfg" > "$OUT/probe.cfg"
sed -e 's/^max_batches=.*/max_batches=0/' "$OUT/q.cfg" > "$OUT/init.cfg"

# The initial weights: Darknet's initialisation, saved by a run of 0 iterations (seen = 0).
if [ ! -f "$OUT/init.weights" ]; then
  mkdir -p "$OUT/init"
  printf 'classes=5\ntrain=%s\nnames=%s\nbackup=%s\n' "$OUT/train-abs.txt" "$OUT/synth/synth.names" "$OUT/init" \
    > "$OUT/init/darknet.data"
  (cd "$OUT/init" && darknet detector train darknet.data ../init.cfg > init.log 2>&1)
  mv "$OUT/init/init_final.weights" "$OUT/init.weights"
fi

darknet_run() { # run index
  local d="$OUT/darknet-$1"; rm -rf "$d"; mkdir -p "$d/backup"
  printf 'classes=5\ntrain=%s\nnames=%s\nbackup=%s\n' "$OUT/train-abs.txt" "$OUT/synth/synth.names" "$d/backup" \
    > "$d/darknet.data"
  log "darknet run $1"
  local t0=$SECONDS
  (cd "$d" && stdbuf -oL darknet detector train darknet.data "$OUT/q.cfg" "$OUT/init.weights" > train.log 2>&1)
  echo "wall_s $((SECONDS - t0))" > "$d/time.txt"
  for i in $(seq 100 100 $((ITERATIONS - 1))); do ln -f "$d/backup/q_$i.weights" "$d/w$i.weights"; done
  ln -f "$d/backup/q_final.weights" "$d/w$ITERATIONS.weights"
}

argus_run() { # run index
  local d="$OUT/argus-$1"; rm -rf "$d"; mkdir -p "$d/keep"
  log "argus run $1 (--seed $((100 + $1)))"
  # Every 100 iterations a checkpoint; the run keeps the last two, so each is linked aside as it appears.
  ( while :; do for f in "$d"/train/q_ckpt*.weights; do [ -f "$f" ] && ln -f "$f" "$d/keep/" 2>/dev/null; done
      sleep 1; done ) & local watcher=$!
  local t0=$SECONDS
  # On a terminal (script) the progress line is drawn at every iteration, so the log has every iteration's loss.
  script -qefc "'$argus' train --cfg '$OUT/q.cfg' --data '$OUT/synth/synth.data' --out '$d/train' \
    --weights '$OUT/init.weights' --burn-in $(sed -n 's/^burn_in=//p' "$OUT/q.cfg") --multi-scale $MULTI_SCALE \
    --seed $((100 + $1)) --threads $ARGUS_THREADS --checkpoint-every 100" /dev/null > "$d/train.log" 2>&1
  echo "wall_s $((SECONDS - t0))" > "$d/time.txt"
  kill "$watcher"; wait "$watcher" 2>/dev/null || true
  for f in "$d"/train/q_ckpt*.weights; do ln -f "$f" "$d/keep/"; done
  for f in "$d"/keep/q_ckpt*.weights; do local n="${f##*_ckpt}"; ln -f "$f" "$d/w${n%.weights}.weights"; done
}

probe() { # weights -> "probe_loss X" (mean of Darknet's per-iteration loss over PROBE_ITERATIONS batches)
  local p; p="$(mktemp -d "$OUT/probe.XXXXXX")"
  printf 'classes=5\ntrain=%s\nnames=%s\nbackup=%s\n' "$OUT/val-abs.txt" "$OUT/synth/synth.names" "$p" > "$p/p.data"
  (cd "$p" && darknet detector train p.data "$OUT/probe.cfg" "$1" -clear > probe.log 2>&1)
  awk -F'[:,]' '/^[0-9]+: /{s+=$2; n++} END{if(n) printf "probe_loss %.4f %d\n", s/n, n}' "$p/probe.log"
  rm -rf "$p"
}

measure() { # dir: mAP@0.5 and the probe loss of each w<N>.weights
  local d="$1" w n
  for w in "$d"/w*.weights; do
    n="${w##*/w}"; n="${n%.weights}"
    [ -f "$d/eval-$n.txt" ] || "$argus" eval --cfg "$OUT/q.cfg" --weights "$w" --data "$OUT/synth/synth.data" \
      > "$d/eval-$n.txt" 2>&1
    [ -f "$d/probe-$n.txt" ] || probe "$w" > "$d/probe-$n.txt"
  done
}

mkdir -p "$OUT/initial"; ln -f "$OUT/init.weights" "$OUT/initial/w0.weights"
for r in $(seq "$RUNS"); do
  darknet_run "$r"
  argus_run "$r"
done
log "measuring"
measure "$OUT/initial"
for r in $(seq "$RUNS"); do measure "$OUT/darknet-$r"; measure "$OUT/argus-$r"; done
log "done"
python3 "$ROOT/scripts/training/darknet-vs-argus-summary.py" "$OUT" | tee "$OUT/summary.txt"
