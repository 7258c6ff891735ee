#!/usr/bin/env bash
# The UDP-behind-jitter experiment (docs/reliability.md, "UDP behind jitter"): where the frames of a UDP camera behind
# 200 +-50 ms of jitter go, with FFmpeg through JavaCV as Argus opens a camera or with the ffmpeg CLI. An experiment,
# not a test: it prints what it saw (one PROBE line per case) and judges nothing. Needs root (a network namespace and
# nftables, as the camera fault tests) and GStreamer's RTSP server (scripts/test.sh installs both).
#   scripts/udp-jitter-probe.sh [--seconds N] CASES
#     CASES: comma-separated ENGINE/dDELAYjJITTERlLOSS[/opt=value;opt=value], e.g.
#            javacv/d200j50l0,javacv/d200j50l0/jcv:maxDelay=100000,cli/d200j50l10   (the class's javadoc says more)
#     --seconds N: the impaired window of each case (default 30)
# The classes come from this checkout's build (-am), the probe from the pipeline's test classes
# (pipeline/src/test/java/io/argus/pipeline/faults/UdpJitterProbe.java).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,10p' "$0"; exit 2; }
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mvn -q -B -pl pipeline -am test-compile dependency:build-classpath -Dmdep.outputFile=target/probe.classpath \
  -Dmdep.includeScope=test >/dev/null
cd pipeline
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g -Djava.awt.headless=true \
  -cp "target/test-classes:target/classes:$(cat target/probe.classpath)" io.argus.pipeline.faults.UdpJitterProbe "$@"
