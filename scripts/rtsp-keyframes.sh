#!/usr/bin/env bash
# Time to a camera's first picture against keyframe intervals (docs/pipeline.md, "First picture and stalls"): a live
# RTSP camera (GStreamer's RTSP server encoding a test pattern: H.264 with x264enc, HEVC with x265enc) with a keyframe
# every 1, 4 and 10 s, read over TCP and UDP by Argus' camera reader with the product's camera settings. A
# measurement, not a test: it prints a line per case, then a Markdown table, and judges nothing (about 2 minutes).
# Needs /usr/bin/python3 with python3-gi, gir1.2-gst-rtsp-server-1.0 and GStreamer's plugins (scripts/test.sh
# installs them).
#   scripts/rtsp-keyframes.sh
# The classes come from this checkout's build (-am), the probe from the pipeline's test classes
# (pipeline/src/test/java/io/argus/pipeline/camera/RtspKeyframeProbe.java).
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mvn -q -B -pl pipeline -am test-compile dependency:build-classpath -Dmdep.outputFile=target/probe.classpath \
  -Dmdep.includeScope=test >/dev/null
cd pipeline
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx1g -Djava.awt.headless=true \
  -cp "target/test-classes:target/classes:$(cat target/probe.classpath)" io.argus.pipeline.camera.RtspKeyframeProbe "$@"
