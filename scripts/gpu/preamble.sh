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

# unpack_jre: the bundle's jlink runtime into $T/jre, once per work directory; JAVA is its java
unpack_jre() {
  [ -x "$T/jre/bin/java" ] || tar -xJf "$B/jre.tar.xz" -C "$T"
  JAVA="$T/jre/bin/java"
}

# site_packages: SP, the Python site-packages whose nvidia/ wheels hold the CUDA runtime, NVRTC, cuDNN and NCCL
# (empty where Python cannot say: the host's CUDA install alone is then on the path)
site_packages() { SP="$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || true)"; }

# cuda_library_path [DIR...]: /usr/local/cuda/lib64, the wheels' CUDA and cuDNN libraries (after site_packages), then
# each DIR given (run-multi.sh: NCCL's), all before what LD_LIBRARY_PATH held
cuda_library_path() {
  local extra="" d
  for d in "$@"; do extra="$extra:$d"; done
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64${SP:+:$SP/nvidia/cu13/lib:$SP/nvidia/cudnn/lib}$extra:${LD_LIBRARY_PATH:-}"
}
