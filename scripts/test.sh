#!/usr/bin/env bash
# The whole test suite in one command, on a fresh Debian 12 machine with a JDK 21+ (README "Set up", command 2;
# .ci/run calls exactly this, in a fresh root made by scripts/fresh-machine-check.sh). The tiers and their budgets:
# docs/testing.md.
#   1. installs the Debian packages the tests use (as root with apt-get; otherwise names them and stops),
#   2. picks a JDK 21+ (JAVA_HOME, then /usr/lib/jvm/*),
#   3. the unit and component tier, `mvn -B test` (surefire), with the reference peers required (a missing peer fails
#      instead of skipping): "unit tier: N s",
#   4. the fuzz tests' seeds and found cases (surefire's execution fuzz-regression alone): "fuzz seeds: N s",
#   5. when they passed, the system tier, `mvn -B verify -Dargus.unit.skip=true` (failsafe: the classes tagged system,
#      several processes, real servers, network faults, a browser, load): "system tier: N s",
#   6. the soak's verdict on made-up series (scripts/soak-judge-test.sh, seconds).
# Each tier ends with its slowest classes. Extra arguments go to every Maven run (e.g. -o). Long runs are not here:
# the soak (scripts/soak.sh), the fuzz campaigns (scripts/fuzz.sh), the demo model from scratch
# (scripts/demo-model.sh), the cluster soak and the benchmarks (docs/testing.md, "Long runs").
set -euo pipefail
cd "$(dirname "$0")/.."

# Why each package:
#   maven                      builds and runs the tests
#   gcc libc6-dev              compile the Darknet harness (detector tests); gcc alone brings no C headers
#   darknet                    Debian's C Darknet: reference peer for the engine
#   ffmpeg                     makes the test videos
#   chromium                   dashboard tests in headless Chromium
#   python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-{good,bad,ugly} gstreamer1.0-libav
#                              the real RTSP server (GStreamer, driven by /usr/bin/python3)
#   iproute2                   network namespaces for the cluster partition test and the camera fault tests
#   nftables                   10% packet loss in the kernel for the camera fault tests (no sch_netem on our kernel)
#   mosquitto mosquitto-clients the MQTT broker and a real subscriber (mosquitto_sub) for the MQTT output tests
#   wrk                        REST at a steady rate (Lua delay hook) in the 500-WebSocket-client load test (WebSocketLoadTest)
#   nodejs npm                 ONNX Runtime (onnxruntime-node from npm, scripts/onnxruntime): the peer that runs our
#                              ONNX export (only when no node/npm is on the PATH: another Node.js install will do);
#                              OpenVINO (openvino-node, scripts/openvino) where its runtime can be downloaded
#   gnuplot-nox curl           the soak's verdict (scripts/soak-judge-test.sh plots its made-up series with
#                              scripts/soak.sh); scraping /metrics in the soak itself
#   + config/system-packages.txt: what `argus run` itself needs (FFmpeg's libavdevice links libpulse0, ...)
TEST_PACKAGES="maven gcc libc6-dev darknet ffmpeg chromium python3-gi gir1.2-gst-rtsp-server-1.0 \
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav iproute2 \
  nftables mosquitto mosquitto-clients wrk gnuplot-nox curl"
RUN_PACKAGES="$(sed 's/#.*//' config/system-packages.txt | xargs)"

missing=""
for p in $TEST_PACKAGES $RUN_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
command -v node >/dev/null && command -v npm >/dev/null || missing="$missing nodejs npm"
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test.sh: missing Debian packages:$missing" >&2
    echo "test.sh: install them with: sudo apt-get install --no-install-recommends$missing" >&2
    exit 1
  fi
  echo "test.sh: installing Debian packages:$missing" >&2
  t0=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
  echo "test.sh: installed in $((SECONDS - t0)) s" >&2
fi

pick_jdk() {
  local c v
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [ -n "$c" ] && [ -x "$c/bin/javac" ] || continue
    v=$("$c/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ -n "$v" ] && [ "${v%%.*}" -ge 21 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}
JAVA_HOME="$(pick_jdk)" || { echo "test.sh: no JDK 21+ found (set JAVA_HOME)" >&2; exit 1; }
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
java -version 2>&1 | head -1

# ONNX Runtime for the ONNX export test: the CPU provider ships in the package ("skip": its install script would only
# fetch the CUDA provider, from outside npm).
if [ ! -d scripts/onnxruntime/node_modules/onnxruntime-node ]; then
  t0=$SECONDS
  npm ci --prefix scripts/onnxruntime --onnxruntime-node-install=skip --no-audit --no-fund >/dev/null
  echo "test.sh: onnxruntime-node installed in $((SECONDS - t0)) s" >&2
fi

# OpenVINO for its test (OpenVinoNodeTest) and `argus bench --vs openvino`. openvino-node from npm is JavaScript only:
# its install step downloads OpenVINO's runtime from OpenVINO's own server, not from npm. Where that server cannot be
# reached (machines that reach only the package registries) npm rolls the install back, this says so and the test
# skips, naming why; it is tried again on the next run.
if [ ! -e scripts/openvino/node_modules/openvino-node/bin/ov_node_addon.node ]; then
  t0=$SECONDS
  if timeout 600 npm ci --prefix scripts/openvino --no-audit --no-fund >/dev/null 2>&1; then
    echo "test.sh: openvino-node installed in $((SECONDS - t0)) s" >&2
  else
    echo "test.sh: openvino-node not installed ($((SECONDS - t0)) s): its install step could not download OpenVINO's" \
      "runtime; OpenVinoNodeTest skips" >&2
  fi
fi

# CUDA kernels: compile every one for Jetson Orin (sm_87) and Hopper (sm_90) when nvcc is present.
if [ -x kernels/check.sh ]; then kernels/check.sh; fi

# The slowest classes of a tier, from the reports it wrote (surefire's or failsafe's): where its time went.
tier_start="$(mktemp)"; trap 'rm -f "$tier_start"' EXIT
slowest() {   # REPORT_DIR_NAME
  find */target/"$1" -name '*.txt' -newer "$tier_start" -exec cat {} + 2>/dev/null | sed -n 's/.*Time elapsed: \([0-9.,]*\) s.* in \(.*\)$/\1 \2/p' | tr -d , \
    | sort -rn | awk 'NR <= 5 { printf "  %7.1f s  %s\n", $1, $2 }'   # awk reads all: head would end sort with SIGPIPE (141)
}

# The unit and component tier: surefire (every module's tests but the system ones, then the fuzz tests' seeds and found
# cases in a JVM of their own). A class over its @Budget fails here with its name and time.
t0=$SECONDS
rc=0
touch "$tier_start"
ARGUS_REQUIRE_PEERS=1 mvn -B test -Dargus.fuzz.regression.skip=true "$@" || rc=$?
echo "unit tier: $((SECONDS - t0)) s$([ $rc = 0 ] || echo ", FAILED (exit $rc)")"
slowest surefire-reports
[ $rc = 0 ] || exit $rc

# The fuzz tests' seeds and found cases: surefire's execution fuzz-regression alone, each module's in a JVM of its own
# (Jazzer's agent stays in the JVM that loaded it); the classes are compiled already.
t0=$SECONDS
rc=0
ARGUS_REQUIRE_PEERS=1 mvn -B test -Dargus.unit.skip=true -Dargus.fuzz.regression.skip=false "$@" || rc=$?
echo "fuzz seeds: $((SECONDS - t0)) s$([ $rc = 0 ] || echo ", FAILED (exit $rc)")"
[ $rc = 0 ] || exit $rc

# The system tier: failsafe, the classes tagged system (docs/testing.md lists them with why), after packaging; the
# unit tier is not run again.
t0=$SECONDS
rc=0
touch "$tier_start"
ARGUS_REQUIRE_PEERS=1 mvn -B verify -Dargus.unit.skip=true "$@" || rc=$?
echo "system tier: $((SECONDS - t0)) s$([ $rc = 0 ] || echo ", FAILED (exit $rc)")"
slowest failsafe-reports
[ $rc = 0 ] || exit $rc

# The soak's gate on made-up series it must pass and fail (seconds); the soak itself is a long run (scripts/soak.sh).
scripts/soak-judge-test.sh
