#!/usr/bin/env bash
# On the GPU host, from the repository root: the NVDEC slice's tests (kernel vs CPU reference, NVDEC vs CPU decode,
# the reference vs swscale). Needs the NVIDIA driver with its video decode library (libnvcuvid.so.1: containers need
# NVIDIA_DRIVER_CAPABILITIES to include "video"), the CUDA 13 runtime, cuDNN 9 and NVRTC as for scripts/gpu.
# env: CLASSES (test classes, default the three), TEST_TIMEOUT (s), OUT (where the log goes).
set -u
B="$(cd "$(dirname "$0")" && pwd)"
T=/tmp/argus-nvdec
mkdir -p "$T/natives"
# the set-up the GPU runners share: beside this script in a bundle, else in the repository
if [ -f "$B/preamble.sh" ]; then . "$B/preamble.sh"; else . scripts/gpu/preamble.sh; fi
unpack_jre
unpack_once "$B/ffmpeg-natives.tar.xz" "$T/natives" "$T/natives/org"
site_packages
cuda_library_path
export ARGUS_KERNEL_CACHE="$T/kernels"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls /usr/lib/x86_64-linux-gnu/libnvcuvid* /usr/local/nvidia/lib64/libnvcuvid* 2>&1 | head -3
ldconfig -p | grep -i "nvcuvid\|libcuda.so" | head
SEL=()
for c in ${CLASSES:-io.argus.detector.cuda.GpuNv12InputTest io.argus.pipeline.video.GpuNvdecDecodeTest io.argus.pipeline.video.Nv12ReferenceTest}; do SEL+=(--select-class "$c"); done
timeout "${TEST_TIMEOUT:-500}" "$T/jre/bin/java" -Xmx8g --enable-native-access=ALL-UNNAMED -cp "$B/lib/*:$T/natives" \
  org.junit.platform.console.ConsoleLauncher execute "${SEL[@]}" --details=tree --disable-banner \
  --disable-ansi-colors 2>&1 | tee "${OUT:-/tmp}/nvdec-tests.log" | grep -v "^\s*$" | tail -150
echo "tests exit: ${PIPESTATUS[0]}"
