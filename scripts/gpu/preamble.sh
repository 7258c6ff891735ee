# The set-up every GPU runner shares (scripts/gpu/run-gpu.sh, run-live.sh, run-train.sh, run-multi.sh and
# scripts/nvdec/run-nvdec.sh), sourced by them, never run: the log line, the bundle's Java runtime unpacked once, and
# the CUDA 13 runtime, NVRTC and cuDNN 9 found on a GPU host without Java: the host's CUDA install, then the libraries
# of the pip wheels PyTorch brings (nvidia/cu13, nvidia/cudnn). Only functions: each runner calls them in its own
# order, so it sets nothing the runner did not ask for.
#
# The runner sets B (its bundle directory) and T (its work directory) before calling them. The bundles carry a copy
# of this file beside their runner (build-bundle.sh); from the repository root a runner falls back to this one.

log() { echo "=== $* ($(date +%T))"; }

# unpack_once TARBALL DIR PRESENT: unpacks the xz tarball TARBALL into DIR unless the directory PRESENT (one it holds)
# exists
unpack_once() { [ -d "$3" ] || tar -xJf "$1" -C "$2"; }

# unpack_fresh NAME: the bundle's NAME.tar.xz into $T/NAME, again when the tarball is newer than the last unpacking
# (a warm host keeps $T between runs of different bundles); under a lock, so that two runners started at once on two
# GPUs do not unpack over each other (one found the other's half-written classpath)
unpack_fresh() {
  mkdir -p "$T"
  (
    flock 9
    if [ ! -d "$T/$1" ] || [ "$B/$1.tar.xz" -nt "$T/$1" ]; then
      rm -rf "${T:?}/$1"
      tar -xJf "$B/$1.tar.xz" -C "$T" || { echo "cannot unpack $B/$1.tar.xz" >&2; exit 1; }
      touch "$T/$1"
    fi
  ) 9>"$T/.$1.lock" || exit 1
}

# unpack_jre: the bundle's jlink runtime into $T/jre; JAVA is its java
unpack_jre() {
  unpack_fresh jre
  JAVA="$T/jre/bin/java"
}

# unpack_classpath: the bundle's classpath (build-bundle.sh packs the jars' contents, a directory per jar, as one xz
# tarball) into $T/classpath; CP lists its directories
unpack_classpath() {
  unpack_fresh classpath
  CP="$(ls -d "$T"/classpath/* | tr '\n' ':')"
  CP="${CP%:}"
}

# junit_tests NAME SELECTOR...: the JUnit console on the GPU-tagged tests SELECTOR picks (--select-class C,
# --select-package P), in a JVM of its own (a CUDA fault is sticky for its process), less the fault drills (tag
# gpu-fault: run alone); the console's tree in $LOGS/NAME.log, its XML reports in $LOGS/NAME/ (junit_summary.py
# counts them per class); TEST_JOPTS adds JVM options, TEST_TIMEOUT bounds it (s, default 480). Prints its exit status.
junit_tests() {
  local name="$1" rc
  shift
  rm -rf "${LOGS:?}/$name"
  timeout "${TEST_TIMEOUT:-480}" "$JAVA" "${JOPTS[@]}" ${TEST_JOPTS:-} -cp "$CP" \
    org.junit.platform.console.ConsoleLauncher execute "$@" --include-tag gpu --exclude-tag gpu-fault \
    --details=tree --disable-banner --disable-ansi-colors --reports-dir "$LOGS/$name" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  echo "$name exit: $rc"
  return 0
}

# site_packages: SP, the Python site-packages whose nvidia/ wheels hold the CUDA runtime, NVRTC, cuDNN and NCCL
# (empty where Python cannot say: the host's CUDA install alone is then on the path)
site_packages() { SP="$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || true)"; }

# cuda_library_path [DIR...]: /usr/local/cuda/lib64, the wheels' CUDA and cuDNN libraries (after site_packages), then
# each DIR given, then NCCL's wheel library when there is one (the data-parallel tests of any runner load it), all
# before what LD_LIBRARY_PATH held
cuda_library_path() {
  local extra="" d nccl
  for d in "$@"; do extra="$extra:$d"; done
  nccl="$( [ -n "${SP:-}" ] && [ -d "$SP/nvidia" ] && find "$SP/nvidia" -name 'libnccl.so.2' 2>/dev/null | head -1)"
  [ -n "$nccl" ] && extra="$extra:$(dirname "$nccl")"
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64${SP:+:$SP/nvidia/cu13/lib:$SP/nvidia/cudnn/lib}$extra:${LD_LIBRARY_PATH:-}"
}
