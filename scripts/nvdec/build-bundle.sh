#!/usr/bin/env bash
# The NVDEC slice's GPU tests for a GPU host without Java or FFmpeg: a jlink runtime, the jars they load and FFmpeg's
# natives (scripts/gpu's bundle leaves FFmpeg out), xz-compressed to ~54 MB so it travels with the working tree.
#   scripts/nvdec/build-bundle.sh [OUT]      (default .bundle-nvdec; then on the GPU host: OUT/run-nvdec.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${1:-$ROOT/.bundle-nvdec}"
JDK="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export JAVA_HOME="$JDK"
JUNIT_CONSOLE=1.14.4
cd "$ROOT"
mvn -B -q -o package -DskipTests >&2
M2="${MAVEN_REPO:-$HOME/.m2/repository}"
console="$M2/org/junit/platform/junit-platform-console-standalone/$JUNIT_CONSOLE/junit-platform-console-standalone-$JUNIT_CONSOLE.jar"
[ -f "$console" ] || mvn -B -q dependency:get -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE >&2

rm -rf "$OUT"
mkdir -p "$OUT/lib"
# only what the NVDEC tests load: no web server, cluster, metrics, OpenCV, OpenBLAS or oneDNN
for j in pipeline/target/lib/*.jar; do
  case "$(basename "$j")" in
    opencv-*|openblas-*|dnnl-*|hazelcast-*|vertx-*|netty-*|prometheus-*|micrometer-*|HdrHistogram-*|LatencyUtils-*) continue ;;
    jackson-*|snakeyaml-*|opencl-*|slf4j-*|cron-utils-*|ffmpeg-*-linux-x86_64.jar) continue ;;
    sqlite-jdbc-*) continue ;;   # the recording index: the NVDEC tests write segments, not the index
    bcprov-*|bcpkix-*|bcutil-*|protobuf-java-*|jts-core-*|jgrapht-*|jheaps-*|apfloat-*|picocli-*) continue ;;   # TLS, ONNX, zones, the CLI
  esac
  cp "$j" "$OUT/lib/"
done
# the pipeline's jar and its tests jar (argus-pipeline-*-tests.jar: the NVDEC tests)
cp pipeline/target/argus-pipeline-*.jar detector/target/argus-detector-*-tests.jar "$console" "$OUT/lib/"
# FFmpeg's natives as a class-path directory (JavaCPP finds them there), xz instead of the jar's zip
natives="$(mktemp -d)"
ffmpeg_jar="$ROOT/$(ls pipeline/target/lib/ffmpeg-*-linux-x86_64.jar)"
(cd "$natives" && unzip -q "$ffmpeg_jar" 'org/*' 'META-INF/*' -x '*/linux-x86_64/ffmpeg' '*/linux-x86_64/ffprobe')
tar -C "$natives" -cf - org META-INF | xz -6 -T0 > "$OUT/ffmpeg-natives.tar.xz"
rm -rf "$natives"
"$JDK/bin/jlink" --add-modules java.base,java.desktop,java.logging,java.management,java.naming,java.sql,java.xml,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress zip-0 --output "$OUT/jre"
rm -f "$OUT"/jre/lib/server/*.jsa
tar -C "$OUT" -cf - jre | xz -9 -T0 > "$OUT/jre.tar.xz"
rm -rf "$OUT/jre"
cp scripts/nvdec/run-nvdec.sh scripts/gpu/preamble.sh "$OUT/"
du -sh "$OUT" >&2
echo "$OUT"
