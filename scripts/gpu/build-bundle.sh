#!/usr/bin/env bash
# Builds a self-contained bundle for running the GPU tests and benchmarks on a GPU host that has no Java:
# a jlink runtime (xz tarball), the jars (detector + tests, pipeline and tools + tests for `argus bench`, JavaCPP + the
# CUDA JNI bindings, oneDNN's natives for the CPU reference as an xz tarball, the JUnit console), this directory's
# scripts.
# No FFmpeg, no OpenCV. The whole must stay under the device tool's 64 MiB.
#   scripts/gpu/build-bundle.sh [OUT_DIR]       (default: .bundle-cuda in the repository root)
# Then on the GPU host, from the repository root: OUT_DIR/run-gpu.sh [PHASES] (tests,bench,torch; pipeline-train)
# BUNDLE=train: the CUDA trainer's bundle instead (trainer tests, OpenBLAS for their CPU reference instead of
# oneDNN, scripts/gpu/run-train.sh and the PyTorch training peer): OUT_DIR/run-train.sh
# BUNDLE=live: the live pipeline's bundle (default .bundle-live): `argus run`, `argus bench pipeline [--fine-tune]`
# and the pipeline's online-training end-to-end test on the GPU host: the classpath as one xz tarball (FFmpeg's natives
# and JavaCV for the cameras, oneDNN for the held-out evaluation of a fine-tune, no OpenCV: snapshots off, no
# Hazelcast: a single node), scripts/gpu/run-live.sh: OUT_DIR/run-live.sh PHASES (run16, live-train, online-e2e)
# SKIP_BUILD=1: package nothing, take the jars already built under */target.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
case "${BUNDLE:-}" in
  live) OUT="${1:-$ROOT/.bundle-live}" ;;
  *) OUT="${1:-$ROOT/.bundle-cuda}" ;;
esac
JDK="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JUNIT_CONSOLE=1.14.4
export JAVA_HOME="$JDK"

cd "$ROOT"
[ "${SKIP_BUILD:-0}" = 1 ] || mvn -B -q package -DskipTests >&2
M2="${MAVEN_REPO:-$HOME/.m2/repository}"
console="$M2/org/junit/platform/junit-platform-console-standalone/$JUNIT_CONSOLE/junit-platform-console-standalone-$JUNIT_CONSOLE.jar"
if [ ! -f "$console" ]; then
  mvn -B -q dependency:get -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE >&2
fi

rm -rf "$OUT"
mkdir -p "$OUT/lib"
# the live bundle is the tightest fit: it spends minutes on xz's x86 filter and a dictionary as large as the biggest
# library; the others take the quick default
XZ_NATIVE="-9 -T0"
[ "${BUNDLE:-}" = live ] && XZ_NATIVE="-T0 --x86 --lzma2=preset=9e,dict=192MiB"
OUT="$(cd "$OUT" && pwd)"   # absolute: steps below cd elsewhere
if [ "${BUNDLE:-}" = live ]; then
  # Everything on the classpath as one solid xz tarball of the jars' contents, a directory per jar (unpacked there by
  # run-live.sh): deflated jars made the bundle 77 MiB, xz over their contents 30-40% less. The CLI's runtime jars
  # minus OpenCV (only JPEG snapshots use it: the runs set snapshots.fps 0) with the OpenBLAS it loads, and Hazelcast
  # (a clustered start only), plus the tools (`argus bench pipeline`, LiveRunProbe); FFmpeg (natives, minus the ffmpeg
  # and ffprobe programs) and JavaCV for the cameras;
  # oneDNN for a fine-tune's held-out evaluation; the pipeline's tests and the JUnit console for online-e2e.
  # The device tool carries the working tree (about 5 MB) too, and the whole bundle just fits beside it (63 of 64 MiB):
  # LIVE_PHASES=run16,live-train leaves out oneDNN (16 MB as xz; a fine-tune of bench pipeline never ends inside its
  # window, so never evaluates) and the tests; LIVE_PHASES=online-e2e is the whole bundle.
  slim=""
  case "${LIVE_PHASES:-all}" in *online-e2e*|all) ;; *) slim=1 ;; esac
  stage="$(mktemp -d)"
  mkdir -p "$stage/classpath"
  jars=()
  for j in pipeline/target/lib/*.jar; do
    case "$(basename "$j")" in opencv-*|openblas-*|hazelcast-*|vertx-hazelcast-*) continue ;; esac
    if [ -n "$slim" ]; then case "$(basename "$j")" in dnnl-*) continue ;; esac; fi
    jars+=("$ROOT/$j")
  done
  for j in "$ROOT"/pipeline/target/argus-pipeline-*.jar "$ROOT"/tools/target/argus-tools-*.jar; do
    case "$j" in *-tests.jar) ;; *) jars+=("$j") ;; esac   # the pipeline's tests: test-classes below
  done
  [ -n "$slim" ] || jars+=("$ROOT"/detector/target/argus-detector-*-tests.jar "$ROOT"/testkit/target/argus-testkit-*.jar "$console")
  for a in vertx-web-client vertx-uri-template; do
    jars+=("$(ls "$M2"/io/vertx/$a/*/$a-*.jar | grep -v -- '-sources' | sort | tail -1)")
  done
  for j in "${jars[@]}"; do
    unzip -q -o "$j" -d "$stage/classpath/$(basename "$j" .jar)"
  done
  [ -n "$slim" ] || cp -r pipeline/target/test-classes "$stage/classpath/argus-pipeline-tests"
  rm -f "$stage"/classpath/ffmpeg-*-linux-x86_64/org/bytedeco/ffmpeg/linux-x86_64/{ffmpeg,ffprobe}
  rm -rf "$stage"/classpath/dnnl-*-linux-x86_64/org/bytedeco/dnnl/linux-x86_64/include
  # of the CUDA bindings' JNI libraries argus loads cudart, cuDNN and NVRTC, and cuBLAS because JavaCPP initializes
  # the presets cuDNN inherits (NPP, cuSOLVER, cuSPARSE, ... are 26 of their 32 MB)
  find "$stage"/classpath/cuda-*-linux-x86_64/org/bytedeco/cuda/linux-x86_64 -name 'libjni*.so' \
    ! -name libjnicudart.so ! -name libjnicublas.so ! -name libjnicudnn.so ! -name libjninvrtc.so -delete
  # Prometheus' protobuf exposition (a shaded protobuf, found by reflection) is served on request only: text suffices;
  # the JUnit console's JUnit 4, Vintage and Suite engines run none of our tests
  rm -rf "$stage"/classpath/prometheus-metrics-exposition-formats-*
  (cd "$stage"/classpath/junit-platform-console-standalone-* 2>/dev/null &&
    rm -rf junit org/hamcrest org/junit/vintage org/junit/platform/suite org/junit/runner org/junit/runners \
      org/junit/internal org/junit/experimental org/junit/rules org/junit/matchers org/junit/validator \
      org/junit/function org/junit/*.class &&
    sed -i '/Vintage\|Suite/d' META-INF/services/org.junit.platform.engine.TestEngine) || true
  # stand-ins for PulseAudio, ALSA and XCB, which libavdevice links (scripts/gpu/ffmpeg-stubs.sh says why)
  scripts/gpu/ffmpeg-stubs.sh "$stage"/classpath/ffmpeg-*-linux-x86_64/org/bytedeco/ffmpeg/linux-x86_64/libavdevice.so.* \
    "$OUT/ffmpeg-stubs" >/dev/null
  # xz's x86 filter before LZMA2 packs the native libraries (most of the bytes) 3% tighter
  tar -C "$stage" -cf - classpath | xz $XZ_NATIVE > "$OUT/classpath.tar.xz"
  rm -rf "$stage"
  rmdir "$OUT/lib"
  cp scripts/gpu/run-live.sh scripts/gpu/preamble.sh "$OUT/"
  chmod +x "$OUT/run-live.sh"
else
# runtime jars of the CLI (gpu, detector, trainer, javacpp, cuda, dnnl for the CPU reference), minus Hazelcast (no
# cluster on the GPU host), OpenCV (and the
# OpenBLAS it loads) and FFmpeg
for j in pipeline/target/lib/*.jar; do
  case "$(basename "$j")" in opencv-*|ffmpeg-*|javacv-*|openblas-*|hazelcast-*|vertx-hazelcast-*) continue ;; esac
  cp "$j" "$OUT/lib/"
done
# oneDNN's native jar is 27 MB deflated, 16 MB as xz: ship its contents as a tarball, unpacked there onto the classpath
dnnl_jar=$(ls "$OUT"/lib/dnnl-*-linux-x86_64.jar)
if [ "${BUNDLE:-}" = train ]; then
  # the trainer's CPU reference needs OpenBLAS (5 MB as xz), not oneDNN
  rm -f "$dnnl_jar"
  mkdir -p "$OUT/openblas-natives"
  openblas_jar="$ROOT/$(ls pipeline/target/lib/openblas-*-linux-x86_64.jar)"
  (cd "$OUT/openblas-natives" && unzip -q "$openblas_jar" \
    'org/bytedeco/openblas/linux-x86_64/lib*.so*' 'META-INF/*')
  # from a directory JavaCPP links openblas_nolapack in its cache, where the JNI library's $ORIGIN rpath cannot see it
  ln -s libopenblas.so.0 "$OUT/openblas-natives/org/bytedeco/openblas/linux-x86_64/libopenblas_nolapack.so.0"
  tar -C "$OUT" -cf - openblas-natives | xz -9 -T0 > "$OUT/openblas-natives.tar.xz"
  rm -rf "$OUT/openblas-natives"
  cp $(ls pipeline/target/lib/openblas-*.jar | grep -v linux-) "$OUT/lib/"
  cp trainer/target/argus-trainer-*-tests.jar "$OUT/lib/"
  cp scripts/gpu/run-train.sh scripts/gpu/torch_train_peer.py scripts/gpu/train_summary.py "$OUT/"
else
mkdir -p "$OUT/dnnl-natives"
(cd "$OUT/dnnl-natives" && unzip -q "$dnnl_jar")
tar -C "$OUT" -cf - dnnl-natives | xz -9 -T0 > "$OUT/dnnl-natives.tar.xz"
rm -rf "$OUT/dnnl-natives" "$dnnl_jar"
fi
# the pipeline and its tests (run-gpu.sh pipeline-train runs its GPU-tagged fine-tune); the tools (`argus bench`,
# `bench train`, `bench loader`) and their tests (run-multi.sh runs GpuScalingBenchGpuTest)
cp pipeline/target/argus-pipeline-*.jar tools/target/argus-tools-*.jar "$OUT/lib/"
cp detector/target/argus-detector-*-tests.jar gpu/target/argus-gpu-*-tests.jar "$OUT/lib/"
cp testkit/target/argus-testkit-*.jar "$OUT/lib/"   # the tests' waits and budgets (Waits, Pace, Budget)
cp "$console" "$OUT/lib/"
cp scripts/gpu/run-gpu.sh scripts/gpu/preamble.sh scripts/gpu/torch_peer.py scripts/gpu/summarize.py "$OUT/"
chmod +x "$OUT/run-gpu.sh"
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
tar -C "$OUT" -cf - jre | xz $XZ_NATIVE > "$OUT/jre.tar.xz"
rm -rf "$OUT/jre"

# the device tool carries at most 64 MiB in all: this bundle and the working tree (tracked and untracked files)
size=$(du -sb "$OUT" | cut -f1)
tree=$(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cat 2>/dev/null | wc -c)
echo "bundle: $size bytes + working tree $tree = $(((size + tree) / 1048576)) MiB of the 64 MiB the device tool carries" >&2
[ $((size + tree)) -le $((64 * 1048576)) ] || { echo "build-bundle: $OUT and the working tree are over 64 MiB" >&2; exit 1; }
echo "$OUT"
