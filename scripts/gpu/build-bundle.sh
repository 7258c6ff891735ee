#!/usr/bin/env bash
# Builds a self-contained bundle for running the GPU tests and benchmarks on a GPU host that has no Java. The whole
# must stay under the device tool's 64 MiB together with the working tree (about 10 MB), so the classpath travels as
# one solid xz tarball of the jars' contents, a directory per jar (deflated jars made the bundle 76 MB; xz over their
# contents is 30-40% smaller), unpacked there by the runner (preamble.sh's unpack_classpath), beside a jlink runtime.
#   scripts/gpu/build-bundle.sh [OUT_DIR]       (default: .bundle-cuda in the repository root)
# The default bundle holds every GPU-tagged test of detector, trainer, tools and the pipeline's fine-tune, and the
# benchmarks: the runtime jars of the CLI minus what a GPU host never loads (Hazelcast and BouncyCastle: a clustered
# start only; OpenCV and the OpenBLAS it loads: snapshots and the OpenCV peer; FFmpeg and JavaCV: cameras), oneDNN's
# natives (the CPU reference of the detector's and the trainer's GPU tests and the trainer's CPU layers), the tests
# jars, the JUnit console, and this directory's runners: on the GPU host, from the repository root,
#   OUT_DIR/run-gpu.sh [PHASES]     (tests: all of them; bench, torch, pipeline-train, ...)
#   OUT_DIR/run-train.sh [PHASES]   (the trainer's tests, bench train, its PyTorch peer, loss curves)
#   OUT_DIR/run-onnx.sh [PHASES]    (imported ONNX models: their GPU tests, argus bench, ONNX Runtime and PyTorch)
#   scripts/gpu/run-multi.sh OUT_DIR [PHASES]   (several GPUs)
# BUNDLE=train: the same bundle (the trainer's runner is in every bundle; the name is kept for older commands).
# BUNDLE=live: the live pipeline's bundle (default .bundle-live): `argus run`, `argus bench pipeline [--fine-tune]`
# and the pipeline's online-training end-to-end test on the GPU host: FFmpeg's natives and JavaCV for the cameras
# (minus the ffmpeg and ffprobe programs), oneDNN for the held-out evaluation of a fine-tune, no OpenCV (snapshots
# off), no Hazelcast (a single node), scripts/gpu/run-live.sh: OUT_DIR/run-live.sh PHASES (run16, live-train,
# online-e2e). LIVE_PHASES=run16,live-train leaves out oneDNN (16 MB as xz; a fine-tune of bench pipeline never ends
# inside its window, so never evaluates) and the tests; LIVE_PHASES=nvdec-tests the NVDEC GPU tests without oneDNN
# and the tools jar; LIVE_PHASES=online-e2e is the whole bundle.
# SKIP_BUILD=1: package nothing, take the jars already built under */target.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
case "${BUNDLE:-}" in
  live) OUT="${1:-$ROOT/.bundle-live}" ;;
  ""|train) OUT="${1:-$ROOT/.bundle-cuda}" ;;
  *) echo "build-bundle: BUNDLE is '${BUNDLE}', expected live, train or nothing" >&2; exit 2 ;;
esac
JDK="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JUNIT_CONSOLE=1.14.4
export JAVA_HOME="$JDK"

cd "$ROOT"
# a build starts its lib folder afresh (copy-dependencies only adds); SKIP_BUILD takes it as it is, checked below
[ "${SKIP_BUILD:-0}" = 1 ] || { rm -rf pipeline/target/lib && mvn -B -q package -DskipTests >&2; }
M2="${MAVEN_REPO:-$HOME/.m2/repository}"
console="$M2/org/junit/platform/junit-platform-console-standalone/$JUNIT_CONSOLE/junit-platform-console-standalone-$JUNIT_CONSOLE.jar"
if [ ! -f "$console" ]; then
  mvn -B -q dependency:get -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE >&2
fi

rm -rf "$OUT"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"   # absolute: steps below cd elsewhere
# the live bundle is the tightest fit: it spends minutes on xz's x86 filter (native libraries pack 3% tighter) and a
# dictionary as large as the biggest library; the others take the quick default
XZ="-9 -T0"
[ "${BUNDLE:-}" = live ] && XZ="-T0 --x86 --lzma2=preset=9e,dict=192MiB"

# the jars of the classpath: the CLI's runtime jars but those named by the pattern $1, then the jars given after it
jars=()
runtime_jars() {
  local skips j p keep
  IFS='|' read -ra skips <<<"$1"
  shift
  for j in pipeline/target/lib/*.jar; do
    keep=1
    for p in "${skips[@]}"; do
      # shellcheck disable=SC2053
      [[ "$(basename "$j")" == $p ]] && keep=""
    done
    [ -z "$keep" ] || jars+=("$ROOT/$j")
  done
  for j in "$@"; do jars+=("$j"); done
  # pipeline/target/lib keeps the jars of earlier builds (copy-dependencies adds, never removes): two versions of one
  # artifact there put the older one first on the classpath, as a stale protobuf-java once did to the ONNX reader
  local stale
  stale=$(for j in pipeline/target/lib/*.jar; do basename "$j" .jar | sed -E 's/-[0-9][^-]*(-[A-Za-z0-9.]+)?$//'; done \
    | sort | uniq -d)
  if [ -n "$stale" ]; then
    echo "build-bundle: pipeline/target/lib holds two versions of: $stale (left by an earlier build); build again" \
      "without SKIP_BUILD (it starts the folder afresh)" >&2
    exit 1
  fi
}
main_jar() { ls "$ROOT"/$1/target/argus-$1-*.jar | grep -v -- '-tests\.jar$'; }
tests_jar() { ls "$ROOT"/$1/target/argus-$1-*-tests.jar; }
vertx_test_jars() {   # the pipeline's tests' own dependencies (its HTTP client)
  local a
  for a in vertx-web-client vertx-uri-template; do
    jars+=("$(ls "$M2"/io/vertx/$a/*/$a-*.jar | grep -v -- '-sources' | sort | tail -1)")
  done
}

# pack_classpath: the jars' contents, a directory per jar, as OUT/classpath.tar.xz, minus what no run loads
pack_classpath() {
  local stage j
  stage="$(mktemp -d)"
  mkdir -p "$stage/classpath"
  for j in "${jars[@]}"; do
    unzip -q -o "$j" -d "$stage/classpath/$(basename "$j" .jar)"
  done
  [ -z "${classes_dir:-}" ] || cp -r "$classes_dir" "$stage/classpath/argus-pipeline-tests"
  rm -f "$stage"/classpath/ffmpeg-*-linux-x86_64/org/bytedeco/ffmpeg/linux-x86_64/{ffmpeg,ffprobe}
  rm -rf "$stage"/classpath/dnnl-*-linux-x86_64/org/bytedeco/dnnl/linux-x86_64/include
  # SQLite's JDBC driver carries natives for every platform: a GPU host is x86-64 Linux (glibc)
  find "$stage"/classpath/sqlite-jdbc-*/org/sqlite/native -mindepth 1 -maxdepth 1 ! -name Linux -exec rm -rf {} + \
    2>/dev/null || true
  find "$stage"/classpath/sqlite-jdbc-*/org/sqlite/native/Linux -mindepth 1 -maxdepth 1 ! -name x86_64 \
    -exec rm -rf {} + 2>/dev/null || true
  # of the CUDA bindings' JNI libraries argus loads cudart, cuDNN and NVRTC, NCCL (data-parallel training on several
  # GPUs), and cuBLAS because JavaCPP initializes the presets cuDNN inherits (NPP, cuSOLVER, cuSPARSE, ... are 26 of
  # their 32 MB)
  find "$stage"/classpath/cuda-*-linux-x86_64/org/bytedeco/cuda/linux-x86_64 -name 'libjni*.so' \
    ! -name libjnicudart.so ! -name libjnicublas.so ! -name libjnicudnn.so ! -name libjninvrtc.so \
    ! -name libjninccl.so -delete
  # Prometheus' protobuf exposition (a shaded protobuf, found by reflection) is served on request only: text suffices;
  # the JUnit console's JUnit 4, Vintage and Suite engines run none of our tests
  rm -rf "$stage"/classpath/prometheus-metrics-exposition-formats-*
  (cd "$stage"/classpath/junit-platform-console-standalone-* 2>/dev/null &&
    rm -rf junit org/hamcrest org/junit/vintage org/junit/platform/suite org/junit/runner org/junit/runners \
      org/junit/internal org/junit/experimental org/junit/rules org/junit/matchers org/junit/validator \
      org/junit/function org/junit/*.class &&
    sed -i '/Vintage\|Suite/d' META-INF/services/org.junit.platform.engine.TestEngine) || true
  if [ "${BUNDLE:-}" = live ]; then
    # stand-ins for PulseAudio, ALSA and XCB, which libavdevice links (scripts/gpu/ffmpeg-stubs.sh says why)
    scripts/gpu/ffmpeg-stubs.sh "$stage"/classpath/ffmpeg-*-linux-x86_64/org/bytedeco/ffmpeg/linux-x86_64/libavdevice.so.* \
      "$OUT/ffmpeg-stubs" >/dev/null
  fi
  tar -C "$stage" -cf - classpath | xz $XZ > "$OUT/classpath.tar.xz"
  rm -rf "$stage"
}

if [ "${BUNDLE:-}" = live ]; then
  # The device tool carries the working tree too, and the whole bundle just fits beside it.
  slim=""
  case "${LIVE_PHASES:-all}" in *online-e2e*|all) ;; *) slim=1 ;; esac
  skip='opencv-*|openblas-*|hazelcast-*|vertx-hazelcast-*'
  [ -n "$slim" ] && skip="$skip|dnnl-*"
  # LIVE_PHASES=nvdec-tests: the NVDEC GPU tests alone, without oneDNN and the benchmarks' tools jar (to fit)
  nvdec_tests=""
  [ "${LIVE_PHASES:-all}" = nvdec-tests ] && nvdec_tests=1
  if [ -n "$nvdec_tests" ]; then runtime_jars "$skip" "$(main_jar pipeline)"
  else runtime_jars "$skip" "$(main_jar pipeline)" "$(main_jar tools)"; fi
  # the pipeline's tests as their classes directory
  [ -n "$slim" ] && [ -z "$nvdec_tests" ] || { classes_dir="$ROOT/pipeline/target/test-classes"
    jars+=("$(tests_jar detector)" "$(ls "$ROOT"/testkit/target/argus-testkit-*.jar)" "$console"); }
  vertx_test_jars
  pack_classpath
  cp scripts/gpu/run-live.sh scripts/gpu/preamble.sh "$OUT/"
  chmod +x "$OUT/run-live.sh"
else
  # no FFmpeg, JavaCV, OpenCV, OpenBLAS, Hazelcast or BouncyCastle (above); the pipeline and tools jars for `argus
  # bench`, `bench train`, `bench loader` and the pipeline's fine-tune test
  runtime_jars 'opencv-*|openblas-*|ffmpeg-*|javacv-*|hazelcast-*|vertx-hazelcast-*|bcprov-*|bcpkix-*|bcutil-*' \
    "$(main_jar pipeline)" "$(main_jar tools)"
  for m in detector gpu trainer tools pipeline; do jars+=("$(tests_jar $m)"); done
  jars+=("$(ls "$ROOT"/testkit/target/argus-testkit-*.jar)" "$console")   # the tests' waits and budgets
  vertx_test_jars
  pack_classpath
  cp scripts/gpu/run-gpu.sh scripts/gpu/run-train.sh scripts/gpu/run-onnx.sh scripts/gpu/preamble.sh \
    scripts/gpu/junit_summary.py scripts/gpu/torch_peer.py scripts/gpu/onnx_peers.py scripts/gpu/summarize.py \
    scripts/gpu/torch_train_peer.py scripts/gpu/train_summary.py scripts/gpu/ncu_summary.py "$OUT/"
  # the imported models' runner writes its models with the families' script (the repository's, if the bundle lacks it)
  [ ! -f scripts/onnx/yolo_models.py ] || cp scripts/onnx/yolo_models.py "$OUT/"
  chmod +x "$OUT/run-gpu.sh" "$OUT/run-train.sh" "$OUT/run-onnx.sh"
fi

# a Java runtime with only the modules these jars use
rm -rf "$OUT/jre"
# (jdk.management: com.sun.management's process CPU time, which `argus bench pipeline` reports)
"$JDK/bin/jlink" --add-modules java.base,java.desktop,java.logging,java.management,java.naming,java.sql,java.xml,jdk.management,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress zip-0 --output "$OUT/jre"
rm -f "$OUT"/jre/lib/server/*.jsa
# headless runs: no splash screen, X11 toolkit or sound; libjvm's symbol table is for debuggers (4 MB of 29)
rm -f "$OUT"/jre/lib/{libsplashscreen.so,libawt_xawt.so,libjsound.so}
strip --strip-unneeded "$OUT/jre/lib/server/libjvm.so"
tar -C "$OUT" -cf - jre | xz $XZ > "$OUT/jre.tar.xz"
rm -rf "$OUT/jre"

# the device tool carries at most 64 MiB in all: this bundle and the working tree (tracked and untracked files)
size=$(du -sb "$OUT" | cut -f1)
tree=$(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cat 2>/dev/null | wc -c)
echo "bundle: $size bytes + working tree $tree = $(((size + tree) / 1048576)) MiB of the 64 MiB the device tool carries" >&2
[ $((size + tree)) -le $((64 * 1048576)) ] || { echo "build-bundle: $OUT and the working tree are over 64 MiB" >&2; exit 1; }
echo "$OUT"
