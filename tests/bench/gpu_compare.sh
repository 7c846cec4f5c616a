#!/usr/bin/env bash
# TransFuser-lite's GPU speed options side by side on one NVIDIA GPU: eager fp32 (the reference), step capture
# ("Compile"), max-autotune, bf16 and fp16. Builds the engine and the CLI (no GUI, no tests) against the LibTorch
# inside the machine's PyTorch, then runs configs/transfuser/gpu.yaml and writes what it printed to OUT_DIR.
#
#   tests/bench/gpu_compare.sh [OUT_DIR] [dotted.key=value...]
#
# OUT_DIR defaults to ./gpu-compare. Extra overrides go to every variant (e.g. training.stages.pretrain.epochs=1).
# Environment: PYTHON (the python3 that has torch), PITWALL_GPU_BUILD (build folder, default build-gpu), and
# PITWALL_DEPS_ROOT, a folder of unpacked Debian packages (dpkg -x) for build dependencies the machine lacks
# (yaml-cpp, SQLite, nlohmann-json, libpng, TurboJPEG, gloo headers): its usr/ is searched like an install prefix.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-gpu-compare}")
shift || true
mkdir -p "$out"
python=${PYTHON:-python3}
build=${PITWALL_GPU_BUILD:-$root/build-gpu}

"$python" - <<'EOF' | tee "$out/torch.txt"
import torch
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU {gpu}")
EOF
prefixes=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
flags=()
if [ -n "${PITWALL_DEPS_ROOT:-}" ]; then
    deps=$(realpath "$PITWALL_DEPS_ROOT")
    prefixes="$prefixes;$deps/usr"
    flags+=("-DCMAKE_CXX_FLAGS=-isystem $deps/usr/include"
            "-DCMAKE_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu")
    export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

echo "== configure ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPITWALL_BUILD_GUI=OFF -DPITWALL_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$prefixes" "${flags[@]}" > "$out/configure.log" 2>&1 ||
    { tail -n 40 "$out/configure.log"; exit 1; }
grep -E "Pitwall:|Found Torch|CUDA" "$out/configure.log" || true
echo "== build"
cmake --build "$build" -j "$(nproc)" --target pitwall all_plugins > "$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -n 40; exit 1; }

export PITWALL_PLUGIN_PATH="$build/lib/pitwall/plugins"
"$build/bin/pitwall" devices | tee "$out/devices.txt"
cd "$out"
echo "== variants"
"$build/bin/pitwall" bench variants "$root/configs/transfuser/gpu.yaml" --db "$out/gpu.db" "$@" 2>&1 |
    grep -v "\[#*-*\]" | tee "$out/variants.txt"
