#!/usr/bin/env bash
# Soak of the live app (design and measurements in docs/reliability.md, "Soak"). Starts the real
# `bin/argus run` on a config written here (a few looping cameras on the demo model, online training on, with the
# demo model as teacher so every kept frame is labelled and fine-tunes, evaluations and hot swaps keep happening),
# samples every INTERVAL seconds into OUT/soak.csv, stops the app, then writes one PNG per series (gnuplot) and
# OUT/soak.md: per series the median of the first and last third of the samples after warm-up, the change, PASS/FAIL.
# Exit code 1 when a series is not flat (or the app died); 0 when all are.
#
#   scripts/soak.sh --minutes 10 --report-only p99_ms  # the 10-minute cut (a long run: docs/testing.md)
#   scripts/soak.sh --minutes 120 --out /tmp/soak2h   # the acceptance run
#
# Options: --minutes N (default 10), --out DIR (default a new /tmp/argus-soak.XXXXXX), --interval S (10),
#          --warmup-minutes W (default: 20 % of the run, at least 5), --tolerance PCT (5), --cameras N (3),
#          --port P (default: a free one), --report-only S[,S] (series measured, tabled and plotted but not gated:
#          the CI cut reports p99_ms, which ten minutes on a shared 2-core machine cannot judge),
#          --judge-only (no app: judge and plot the soak.csv already in --out again, with the same --minutes and
#          --warmup-minutes as it ran with; scripts/soak-judge-test.sh feeds it made-up series this way).
# Needs: curl, awk, gnuplot (Debian gnuplot-nox; scripts/test.sh installs it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

MINUTES=10 OUT="" INTERVAL=10 WARMUP_MIN="" TOL=5 CAMERAS=3 PORT="" REPORT_ONLY="" JUDGE_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --interval) INTERVAL="$2"; shift 2 ;;
    --warmup-minutes) WARMUP_MIN="$2"; shift 2 ;;
    --tolerance) TOL="$2"; shift 2 ;;
    --cameras) CAMERAS="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --report-only) REPORT_ONLY="$(echo "$2" | tr ',' ' ')"; shift 2 ;;
    --judge-only) JUDGE_ONLY=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
for t in curl awk gnuplot; do
  command -v "$t" >/dev/null || { echo "soak.sh: $t is missing (apt-get install curl gawk gnuplot-nox)" >&2; exit 2; }
done
DURATION=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }')
# Warm-up: 20 % of the run, at least 5 minutes. In it: JIT compilation, oneDNN primitives created and the per-layer
# tuning timed, frame pools and snapshot buffers filled, the sample video generated, the dataset filling to its
# working size (training.collect.maxFrames below) and the first fine-tune, evaluation and hot swap, each of which
# allocates its buffers once (training network, a second detector beside the serving one) and glibc's malloc arenas
# grown to the working set of those threads. What follows is the steady state every series must hold flat. The
# 5 minutes are measured: RSS rose by 30-60 MiB with each of the first 5 fine-tunes (one a minute; half of it G1
# growing the heap it commits, half glibc arenas) and then stayed within 530-580 MiB (docs/reliability.md).
if [ -z "$WARMUP_MIN" ]; then WARMUP=$(awk -v d="$DURATION" 'BEGIN { w = d * 0.2; if (w < 300) w = 300; printf "%d", w }')
else WARMUP=$(awk -v m="$WARMUP_MIN" 'BEGIN { printf "%d", m * 60 }'); fi
[ "$WARMUP" -lt "$DURATION" ] || { echo "soak.sh: the warm-up (${WARMUP}s) leaves nothing to measure in ${DURATION}s" >&2; exit 2; }
[ -n "$OUT" ] || OUT="$(mktemp -d /tmp/argus-soak.XXXXXX)"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
[ -n "$PORT" ] || PORT=$(for p in $(seq 18470 18570); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; break; }; done)
BASE="http://127.0.0.1:$PORT"
M="$ROOT/config/models"

if [ "$JUDGE_ONLY" = 1 ]; then
  [ -s "$OUT/soak.csv" ] || { echo "soak.sh: --judge-only needs $OUT/soak.csv" >&2; exit 2; }
  COLS=$(head -1 "$OUT/soak.csv"); cpu_s="n/a"
else
# ---- the config: looping sample cameras, online training every minute with the demo model as its own teacher ----
{
  echo "# written by scripts/soak.sh"
  echo "http: {host: 127.0.0.1, port: $PORT}"
  echo "models:"
  echo "  - {id: default, cfg: $M/demo.cfg, weights: $M/demo.weights, names: $M/demo.names, backend: cpu, maxBatch: 4, maxWaitMs: 10}"
  echo "cameras:"
  for i in $(seq 1 "$CAMERAS"); do echo "  - {id: cam$i, url: \"sample:\", model: default, loop: true, realtime: true}"; done
  echo "snapshots: {fps: 2}"
  echo "cacheDir: $OUT/cache"
  echo "training:"
  echo "  enabled: true"
  echo "  model: default"
  echo "  dataDir: $OUT/training"
  echo "  schedule: \"0 * * * * *\"   # every minute (runs only when labels changed: the teacher labels every kept frame)"
  echo "  backend: cpu"
  echo "  iterations: 20"
  echo "  batch: 8"
  echo "  subdivisions: 2"
  echo "  cpuShare: 0.5"
  echo "  resume: false"
  echo "  mapTolerance: 1.0         # swap after every run: each run then also exercises the hot swap"
  echo "  collect: {intervalMs: 10000, minSceneChange: 0, maxFrames: 60, valEvery: 4}   # 0: the looping video's scenes repeat"
  echo "  teacher: {cfg: $M/demo.cfg, weights: $M/demo.weights, names: $M/demo.names, threshold: 0.5}"
} > "$OUT/argus.yaml"

# ---- start ----
# The heap fixed and touched up front (-Xms = -Xmx, AlwaysPreTouch), as a service that runs for months is deployed:
# RSS then moves only with native memory (code, metaspace, malloc, JavaCPP), which is what a leak outside the heap
# grows, instead of with G1 committing and uncommitting heap (it swung RSS by 40-80 MiB within minutes in the 2-hour
# run, and a 10-minute cut judged its growth). A leak in the heap ends in OutOfMemoryError: the app dies, the soak fails.
ARGUS_JAVA_OPTS="${ARGUS_JAVA_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}" "$ROOT/bin/argus" run --config "$OUT/argus.yaml" > "$OUT/argus.log" 2>&1 &
PID=$!   # bin/argus execs java: this is the JVM
stop_app() {
  kill "$PID" 2>/dev/null || return 0
  for _ in $(seq 1 30); do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
  kill -9 "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}
trap stop_app EXIT
for _ in $(seq 1 600); do   # the first start may build the project and generate the sample video
  curl -sf "$BASE/ready" >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { echo "soak.sh: argus exited before ready:" >&2; tail -40 "$OUT/argus.log" >&2; exit 1; }
  sleep 1
done
curl -sf "$BASE/ready" >/dev/null || { echo "soak.sh: argus not ready after 600 s" >&2; tail -40 "$OUT/argus.log" >&2; exit 1; }
echo "soak.sh: argus ready (pid $PID, port $PORT); ${MINUTES} min, a sample every ${INTERVAL} s, warm-up ${WARMUP} s; out: $OUT"

# ---- sampling ----
# Gated series (columns 2..8) and context (9..): see docs/reliability.md for what each is and where it comes from.
COLS="t_s,rss_mib,native_mib,threads,fds,eventbus_pending,batcher_queue,p99_ms,heap_used_mib,fps,frames_processed,dataset_frames,training_runs,swaps,load1,others_cpu_pct,batch_mean,inference_ms"
NCPU=$(nproc)
# CPU time of the machine (busy ticks over all CPUs) and of the app, at the previous sample: what other processes
# used in between is the difference, in % of one core (p99 is judged only when that did not change, below)
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
app_ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat" 2>/dev/null || echo 0; }
read -r PREV_BUSY PREV_ALL < <(cpu_ticks); PREV_APP=$(app_ticks)
echo "$COLS" > "$OUT/soak.csv"
PREV="$OUT/.latency.prev"; : > "$PREV"
METRICS="$OUT/.metrics"
t0=$(date +%s); next=$t0
set +e   # a failed scrape or an empty grep is a missing value in one sample, not the end of an hours-long run
while :; do
  now=$(date +%s); t=$((now - t0))
  [ "$t" -le "$DURATION" ] || break
  kill -0 "$PID" 2>/dev/null || { echo "soak.sh: argus died at t=${t}s" >&2; tail -40 "$OUT/argus.log" >&2; exit 1; }
  rss=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$PID/status")
  threads=$(awk '/^Threads:/ { print $2 }' "/proc/$PID/status")
  fds=$(find "/proc/$PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  curl -sf -m 5 "$BASE/metrics" > "$METRICS" || : > "$METRICS"
  # p99 of the end-to-end latency (argus_latency_seconds, all cameras) over the last interval: the histogram's bucket
  # counts minus the previous sample's, interpolated linearly inside the bucket (as Prometheus' histogram_quantile)
  p99=$(awk -v prev="$PREV" '
    FILENAME == prev { before[$1] = $2; next }
    /^argus_latency_seconds_bucket\{/ {
      le = $0; sub(/.*le="/, "", le); sub(/".*/, "", le); n[le] += $NF
    }
    END {
      m = 0
      for (le in n) { if (le != "+Inf") keys[++m] = le + 0 }
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (keys[j] < keys[i]) { x = keys[i]; keys[i] = keys[j]; keys[j] = x }
      first = !("+Inf" in before)   # (testing membership before any before[...] reference creates the key)
      total = n["+Inf"] - before["+Inf"]
      for (le in n) printf "%s %s\n", le, n[le] > prev
      if (first || total <= 0) { print ""; exit }
      want = 0.99 * total; lo = 0; below = 0
      for (i = 1; i <= m; i++) {
        k = sprintf("%g", keys[i]); c = 0
        for (le in n) if (le != "+Inf" && le + 0 == keys[i]) c = n[le] - before[le]
        if (c >= want) { printf "%.2f", 1000 * (lo + (keys[i] - lo) * (want - below) / (c - below > 0 ? c - below : 1)); exit }
        lo = keys[i]; below = c
      }
      printf "%.2f", 1000 * lo   # beyond the last finite bucket: its bound (a floor)
    }' "$PREV" "$METRICS")
  vals=$(awk '
    function v(name) { return (name in s) ? s[name] : 0 }
    /^#/ { next }
    { name = $1; sub(/\{.*/, "", name); lbl = $1 }
    name == "argus_native_bytes" { s[name] += $NF }
    name == "vertx_eventbus_pending" { s[name] += $NF }
    name == "argus_queue_depth" && lbl ~ /queue="batcher"/ { s["batcher"] += $NF }
    name == "jvm_memory_used_bytes" && lbl ~ /area="heap"/ { s["heap"] += $NF }
    name == "argus_camera_fps" { s["fps"] += $NF }
    name == "argus_latency_seconds_count" { s["processed"] += $NF }
    name == "argus_batch_size_sum" || name == "argus_batch_size_count" { s[name] += $NF }
    name == "argus_inference_seconds_sum" || name == "argus_inference_seconds_count" { s[name] += $NF }
    END { printf "%.1f,%d,%d,%.1f,%.1f,%d,%.0f,%.0f,%.6f,%.0f", v("argus_native_bytes") / 1048576, v("vertx_eventbus_pending"),
                 v("batcher"), v("heap") / 1048576, v("fps"), v("processed"), v("argus_batch_size_sum"),
                 v("argus_batch_size_count"), v("argus_inference_seconds_sum"), v("argus_inference_seconds_count") }' "$METRICS")
  native=${vals%%,*}; rest=${vals#*,}
  ds=$(curl -sf -m 5 "$BASE/api/training/dataset" | grep -o '"frames":[0-9]*' | head -1 | cut -d: -f2 || true)
  runs_json=$(curl -sf -m 5 "$BASE/api/training/runs" || true)
  runs=$(printf '%s' "$runs_json" | grep -o '"id":[0-9]*' | cut -d: -f2 | sort -n | tail -1)   # the list: last 20 only
  swaps=$(curl -sf -m 5 "$BASE/api/models/default/versions" | grep -o '"state":"accepted"' | wc -l)
  load1=$(cut -d' ' -f1 /proc/loadavg)
  read -r busy all < <(cpu_ticks); app=$(app_ticks)
  others=$(awk -v b=$((busy - PREV_BUSY)) -v a=$((all - PREV_ALL)) -v p=$((app - PREV_APP)) -v n="$NCPU" \
    'BEGIN { if (a > 0) { o = 100 * (b - p) / (a / n); printf "%.0f", o < 0 ? 0 : o } }')
  PREV_BUSY=$busy PREV_ALL=$all PREV_APP=$app
  IFS=, read -r eb batcher heap fps processed bsum bcount isum icount <<< "$rest"
  # Over the interval: frames per detector call and detector time per call. They tell a latency step caused by how
  # the cameras' frames fall into batches (their phases: a paced file camera that falls a second behind starts again
  # from then) from one caused by the detector itself getting slower (the CPU shared, the JIT) (docs/reliability.md).
  read -r batch_mean infer_ms < <(awk -v bs="$bsum" -v bc="$bcount" -v is="$isum" -v ic="$icount" \
      -v pbs="${PREV_BSUM:-}" -v pbc="${PREV_BCOUNT:-}" -v pis="${PREV_ISUM:-}" -v pic="${PREV_ICOUNT:-}" 'BEGIN {
    b = (pbc != "" && bc - pbc > 0) ? sprintf("%.3f", (bs - pbs) / (bc - pbc)) : "-"
    i = (pic != "" && ic - pic > 0) ? sprintf("%.2f", 1000 * (is - pis) / (ic - pic)) : "-"
    print b, i }')
  [ "$batch_mean" = - ] && batch_mean=""; [ "$infer_ms" = - ] && infer_ms=""
  PREV_BSUM=$bsum PREV_BCOUNT=$bcount PREV_ISUM=$isum PREV_ICOUNT=$icount
  echo "$t,$rss,$native,$threads,$fds,$eb,$batcher,$p99,$heap,$fps,$processed,${ds:-},${runs:-0},$swaps,$load1,$others,$batch_mean,$infer_ms" >> "$OUT/soak.csv"
  printf 't=%4ds rss=%s MiB native=%s MiB threads=%s fds=%s eb_pending=%s batcher=%s p99=%s ms fps=%s frames=%s runs=%s load=%s others=%s%% batch=%s infer=%s ms\n' \
    "$t" "$rss" "$native" "$threads" "$fds" "$eb" "$batcher" "${p99:--}" "$fps" "${ds:--}" "${runs:-0}" "$load1" "${others:--}" \
    "${batch_mean:--}" "${infer_ms:--}"
  # Keep the dataset turning over: labelled frames are never evicted (only a person deletes them), so once
  # maxFrames are labelled collection would stop, and with it new labels and scheduled runs. As a user curating the
  # dataset would, delete the oldest few when it is nearly full.
  if [ -n "${ds:-}" ] && [ "$ds" -ge 48 ]; then
    curl -sf -m 5 "$BASE/api/training/frames?limit=500" | grep -o '"id":"[^"]*"' | cut -d'"' -f4 | tail -n 6 \
      | while read -r id; do curl -sf -m 5 -X DELETE "$BASE/api/training/frames/$id" >/dev/null || true; done
  fi
  next=$((next + INTERVAL)); sleep $(( next > $(date +%s) ? next - $(date +%s) : 0 ))
done
set -e
cpu_s=$(awk '{ printf "%.0f", ($14 + $15) / 100 }' "/proc/$PID/stat")   # utime + stime, clock ticks of 1/100 s
stop_app; trap - EXIT
rm -f "$PREV" "$METRICS"

fi

# ---- verdict: first and last third of the samples after warm-up ----
# A series passes when |median(last third) - median(first third)| <= TOL % of median(first third). The median, not
# the mean: a sample is one instant, and the fine-tune that runs every minute holds its working set (15 MiB of
# JavaCPP native memory, one more thread) for 5-10 s of it, so one sample in six catches it. Which samples do is an
# accident of timing: the CI cut's thirds of ten samples caught it twice and once (native 21.2 -> 19.7 MiB, -7.2 %,
# a FAIL on 2026-11-28 with every baseline sample at 18.2 MiB). A leak or a growing queue lifts every sample, so it
# lifts the median as much as the mean; a periodic transient does not.
# Queue depths are counts near zero, where a percentage means nothing (0.1 -> 0.2 items is +100 %): they pass when
# the change is also at most two items (floor_q): each sample is one instant of a queue that 75 messages a second
# pass through (0-4 seen in a sound run), while a queue that does not drain grows by thousands a minute. Latency is
# judged on the same thirds of its per-interval p99, when the machine's other processes used about the same CPU in
# both (within OTHERS_LIMIT % of a core): on a shared 2-core machine a neighbour's build moved this app's p99 from 20
# to 32 ms and back within minutes (docs/reliability.md); a p99 that moved while the neighbours' load moved says
# nothing of the app, and the verdict then says NOT JUDGED and why, without failing.
GATED="rss_mib native_mib threads fds eventbus_pending batcher_queue p99_ms"
awk -F, -v warm="$WARMUP" -v tol="$TOL" -v gated="$GATED" -v out="$OUT" -v minutes="$MINUTES" -v interval="$INTERVAL" \
    -v cpu="$cpu_s" -v floor_q=2 -v others_limit=25 -v report_only=" $REPORT_ONLY " '
  # The median of column c over rows lo..hi (empty cells skipped); sets median_n to the count. Insertion sort: a
  # third holds at most a few hundred samples, and plain awk (mawk) has no asort.
  function median(c, lo, hi,    r, m, i, j, x, v) {
    m = 0
    for (r = lo; r <= hi; r++) if (val[r, c] != "") {
      x = val[r, c] + 0
      for (i = m; i > 0 && v[i] > x; i--) v[i + 1] = v[i]
      v[i + 1] = x; m++
    }
    median_n = m
    if (m == 0) return 0
    return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $1 + 0 >= warm { n++; for (i = 1; i <= NF; i++) val[n, i] = $i }
  END {
    k = split(gated, g, " "); fail = 0
    printf "| series | first third (median) | last third (median) | change | verdict | plot |\n|---|---|---|---|---|---|\n" > out "/soak.md.table"
    third = int(n / 3)
    # The neighbours: their mean CPU per third (a load that comes and goes counts by how long it stayed).
    oc = col["others_cpu_pct"]; oa = 0; ona = 0; ob = 0; onb = 0
    for (r = 1; r <= third; r++) if (val[r, oc] != "") { oa += val[r, oc]; ona++ }
    for (r = n - third + 1; r <= n; r++) if (val[r, oc] != "") { ob += val[r, oc]; onb++ }
    oa = ona ? oa / ona : 0; ob = onb ? ob / onb : 0
    for (j = 1; j <= k; j++) {
      c = col[g[j]]
      a = median(c, 1, third); na = median_n
      b = median(c, n - third + 1, n); nb = median_n
      if (third < 1 || na == 0 || nb == 0) { verdict = "FAIL (no samples)"; fail = 1; a = b = 0; pct = "n/a" }
      else {
        d = b - a
        pct = (a != 0) ? sprintf("%+.1f %%", 100 * d / a) : (d == 0 ? "0 %" : "n/a")
        ok = (a != 0 && (d < 0 ? -d : d) <= tol / 100 * (a < 0 ? -a : a)) || d == 0
        if (!ok && (g[j] == "eventbus_pending" || g[j] == "batcher_queue") && (d < 0 ? -d : d) <= floor_q) {
          ok = 1; pct = pct " (<= " floor_q " items)"
        }
        verdict = ok ? "PASS" : "FAIL"
        if (!ok && g[j] == "p99_ms" && (ob - oa > others_limit || oa - ob > others_limit)) {
          ok = 1; verdict = sprintf("NOT JUDGED (other processes: %.0f -> %.0f %% of a core)", oa, ob)
        }
        if (!ok && index(report_only, " " g[j] " ") > 0) {
          ok = 1; verdict = "REPORTED (" verdict ", not gated in this run: --report-only)"
        }
        if (!ok) fail = 1
      }
      printf "| %s | %.2f | %.2f | %s | %s | ![%s](%s.png) |\n", g[j], a, b, pct, verdict, g[j], g[j] > out "/soak.md.table"
    }
    printf "%d %d %d\n", n, third, fail > out "/soak.md.counts"
  }' "$OUT/soak.csv"
read -r NPOST THIRD FAIL < "$OUT/soak.md.counts"

# ---- plots: one PNG per series (gnuplot), the warm-up shaded, the two thirds' medians drawn ----
NCOL=$(head -1 "$OUT/soak.csv" | tr ',' '\n' | wc -l)
for i in $(seq 2 "$NCOL"); do
  name=$(head -1 "$OUT/soak.csv" | cut -d, -f"$i")
  line=$(grep "^| $name |" "$OUT/soak.md.table" || true)
  a=NaN b=NaN   # the thirds' medians, for the gated series
  [ -n "$line" ] && read -r a b < <(echo "$line" | awk -F'|' '{ gsub(/ /, ""); print $3, $4 }')
  gnuplot <<EOF || echo "soak.sh: no plot of $name (gnuplot failed: no values?)" >&2
set terminal pngcairo size 800,300 font ",9" noenhanced
set output "$OUT/$name.png"
set datafile separator ","
set title "$name (every ${INTERVAL} s; shaded: warm-up)"
set xlabel "minutes"
set grid
set key bottom right
set yrange [0:*]
set object 1 rect from 0, graph 0 to $WARMUP / 60.0, graph 1 fc rgb "#dddddd" fs solid 0.5 noborder behind
a = $a; b = $b
plot "$OUT/soak.csv" every ::1 using (\$1/60):$i with linespoints pt 7 ps 0.3 lw 1 title "$name", \
     a with lines dt 2 lw 1.5 lc rgb "#22aa77" title "first third median", b with lines dt 2 lw 1.5 lc rgb "#cc3333" title "last third median"
EOF
done

# ---- the report ----
HOST_CPU=$(lscpu 2>/dev/null | awk -F: '/^Model name/ { gsub(/^ +/, "", $2); m = $2 } /^CPU family/ { gsub(/ /, "", $2); f = $2 }
  /^Model:/ { gsub(/ /, "", $2); mo = $2 } END { printf "%s (family %s, model %s)", m, f, mo }')
LAST=$(tail -1 "$OUT/soak.csv")
{
  echo "# Soak $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "\`scripts/soak.sh --minutes $MINUTES\`, commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'), $CAMERAS sample cameras, online training on; CPU: $HOST_CPU, $(nproc) cores"
  echo
  echo "Samples every ${INTERVAL} s; warm-up ${WARMUP} s (excluded); after it ${NPOST} samples, thirds of ${THIRD}."
  echo "A series passes when its last third's median is within ${TOL} % of its first third's (queues: or within 2 items;"
  echo "p99: judged when the other processes' CPU changed by at most 25 % of a core between the thirds)."
  [ -z "$REPORT_ONLY" ] || echo "Reported, not gated in this run (--report-only): $REPORT_ONLY."
  echo
  cat "$OUT/soak.md.table"
  echo
  echo "At the end (last sample): $(echo "$LAST" | awk -F, -v cols="$COLS" 'BEGIN { split(cols, c, ",") } { for (i = 9; i <= NF; i++) printf "%s %s%s", c[i], $i, (i < NF ? ", " : "") }');"
  [ "$JUDGE_ONLY" = 1 ] && echo "judged again (--judge-only) from $OUT/soak.csv." \
    || echo "process CPU time ${cpu_s} s over $((DURATION + 0)) s sampled."
  echo
  echo "Context series (not gated), plotted too: $(for c in $(echo "$COLS" | cut -d, -f9- | tr ',' ' '); do printf '[%s](%s.png) ' "$c" "$c"; done)"
} > "$OUT/soak.md"
rm -f "$OUT/soak.md.table" "$OUT/soak.md.counts"
cat "$OUT/soak.md"
if [ "$FAIL" -ne 0 ]; then echo "soak.sh: FAIL: a series is not flat within ${TOL} % (above; $OUT)" >&2; exit 1; fi
echo "soak.sh: PASS ($OUT)"
