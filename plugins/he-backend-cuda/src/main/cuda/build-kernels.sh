#!/usr/bin/env bash
# Builds the ckks-cuda ring kernels into ONE fatbin: SASS for sm_80 and sm_90 plus compute_90 PTX (JIT for
# newer GPUs). Usage: build-kernels.sh <output.fatbin>. Without nvcc it prints one line, writes nothing and
# exits 0, so a build on a machine without the CUDA toolkit still succeeds. NVCC may name the compiler; NVCC=none
# builds without kernels as such a machine would.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: build-kernels.sh <output.fatbin>}"
nvcc="${NVCC:-$(command -v nvcc || true)}"
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
[ "$nvcc" != none ] || nvcc=
if [ -z "$nvcc" ]; then
    echo "build-kernels.sh: nvcc not found; ckks-cuda kernels not built"
    exit 0
fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
"$nvcc" -fatbin -O3 -std=c++17 -Wno-deprecated-gpu-targets \
    -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=sm_90 \
    -gencode arch=compute_90,code=compute_90 \
    -o "$tmp" "$here/ring_kernels.cu"
mv "$tmp" "$out"
trap - EXIT
echo "build-kernels.sh: wrote $out ($(wc -c < "$out") bytes)"
