#!/usr/bin/env bash
# TransFuser-lite's GPU speed options side by side on one NVIDIA GPU: eager fp32 (the reference), step capture
# ("Compile"), max-autotune, bf16 and fp16. Builds the CUDA configuration as CI does but at -O2
# (packaging/test-cuda.sh: the pinned PyTorch wheel's LibTorch, PITWALL_WITH_CUDA=ON, build-cuda/, no GUI), without
# running its tests, then runs configs/transfuser/gpu.yaml and writes what it printed to OUT_DIR. See README "CUDA
# build".
#
#   tests/bench/gpu_compare.sh [OUT_DIR] [dotted.key=value...]
#
# OUT_DIR defaults to ./gpu-compare. Extra overrides go to every variant (e.g. training.stages.pretrain.epochs=1).
# Environment: those of packaging/test-cuda.sh (PITWALL_CUDA_BUILD_DIR, CUDA_HOME, PITWALL_TORCH_PYTHON,
# PITWALL_DEPS_ROOT); PITWALL_JOBS (default: all cores).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-gpu-compare}")
shift || true
mkdir -p "$out"
build=${PITWALL_CUDA_BUILD_DIR:-$root/build-cuda}

echo "== build ($build)"
# At -O2 (the build type's), not CI's -O1: this run is timed.
export PITWALL_CUDA_TORCH_OPTIMIZATION=
PITWALL_CUDA_BUILD_ONLY=1 bash "$root/packaging/test-cuda.sh" > "$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -n 40 || tail -n 40 "$out/build.log"; exit 1; }
grep -E "^pitwall: |^-- (Pitwall|PyTorch): " "$out/build.log" | tee "$out/torch.txt"
if [ -n "${PITWALL_DEPS_ROOT:-}" ]; then
    export LD_LIBRARY_PATH="$(realpath "$PITWALL_DEPS_ROOT")/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

export PITWALL_PLUGIN_PATH="$build/lib/pitwall/plugins"
"$build/bin/pitwall" devices | tee "$out/devices.txt"
cd "$out"
echo "== variants"
"$build/bin/pitwall" bench variants "$root/configs/transfuser/gpu.yaml" --db "$out/gpu.db" "$@" 2>&1 |
    grep -v "\[#*-*\]" | tee "$out/variants.txt"
