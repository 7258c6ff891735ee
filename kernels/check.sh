#!/usr/bin/env bash
# Compiles every kernels/*.cu and kernels/bench/*.cu with nvcc for Jetson Orin (sm_87) and Hopper (sm_90), as NVRTC will at run time,
# to catch errors without a GPU. Skips (exit 0) when nvcc is absent.
set -euo pipefail
cd "$(dirname "$0")"
NVCC="${NVCC:-$(command -v nvcc || true)}"
if [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc; fi
if [ -z "$NVCC" ]; then
  echo "kernels/check.sh: nvcc not found, skipping the CUDA kernel compile check"
  exit 0
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for f in *.cu bench/*.cu; do
  for arch in sm_87 sm_90; do
    if ! "$NVCC" -std=c++17 -arch="$arch" -cubin -Werror all-warnings -o "$out/${f//\//_}.$arch.cubin" "$f"; then
      echo "kernels/check.sh: $f failed for $arch" >&2
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "kernels/check.sh: $(ls *.cu bench/*.cu | wc -l) kernel files compiled for sm_87 and sm_90"
exit $status
