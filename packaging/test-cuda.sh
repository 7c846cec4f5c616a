#!/usr/bin/env bash
# The second build configuration: the engine, the CLI, the plugins and the tests (no GUI) against the CUDA LibTorch
# inside the pinned PyTorch wheel (packaging/install-cuda-torch.sh), with the engine's CUDA code compiled
# (PITWALL_WITH_CUDA=ON: step capture into CUDA graphs, NCCL process groups). Builds into build-cuda/ (GCC, ccache
# shared with build/) and runs that build's CTest suite on the CPU: a CUDA LibTorch runs on the CPU when no GPU is
# present, and the GPU-only code keeps its host-side tests. See packaging/README.md, "The CUDA build".
# Usage: bash packaging/test-cuda.sh [extra ctest args...]   e.g. -R tst_trainer  or  -L engine
# Environment: PITWALL_CUDA_BUILD_DIR (default <checkout>/build-cuda); CUDA_HOME, the toolkit (default
# /usr/local/cuda); PITWALL_CUDA_BUILD_ONLY=1 stops after the build (tests/bench/gpu_compare.sh);
# PITWALL_CUDA_TORCH_OPTIMIZATION, the optimisation flag of the torch code (default -O1; empty: the build type's);
# PITWALL_CUDA_TEST_LABELS, the CTest labels built and run (a regular expression, default engine|cli);
# PITWALL_TORCH_PYTHON, a python3 with a CUDA torch of its own to use instead of the pinned wheel (a machine
# without PyPI); PITWALL_DEPS_ROOT, a folder of unpacked Debian packages (dpkg -x) for build dependencies the
# machine lacks (yaml-cpp, SQLite, nlohmann-json, libpng, TurboJPEG, gloo headers), searched like a prefix.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PITWALL_BUILD_DIR="${PITWALL_CUDA_BUILD_DIR:-$PITWALL_ROOT/build-cuda}"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
[[ -x "$cuda_home/bin/nvcc" ]] || { echo "pitwall: no CUDA toolkit at $cuda_home (set CUDA_HOME)" >&2; exit 1; }
if [[ -n "${PITWALL_TORCH_PYTHON:-}" ]]; then
  torch_prefix="$("$PITWALL_TORCH_PYTHON" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')"
else
  venv="$(bash "$PITWALL_ROOT/packaging/install-cuda-torch.sh")"
  # The stamp file holds torch.utils.cmake_prefix_path, written when the wheel was installed: no Python start.
  torch_prefix="$(cat "$venv"/.pitwall-torch-*)"
fi
torch_root="$(cd "$torch_prefix/../.." && pwd)" # site-packages/torch: its lib/ must win over Debian's libtorch.so
prefixes="$torch_prefix;$torch_root"
# No GUI and no benchmarks: what CTest runs, the CLI and the plugins (tests/bench/gpu_compare.sh uses the CLI).
# The code that compiles torch at -O1 (PITWALL_CUDA_TORCH_OPTIMIZATION, default -O1): this configuration checks that
# the CUDA code compiles and links and runs the engine's tests on the CPU, nothing in it is timed, and -O1 compiles a
# third faster (core/engine/train/experiment.cpp: 15.6 s against 23.1 s). tests/bench/gpu_compare.sh, which times,
# sets it empty: the build type's -O2. The torch-free libraries keep -O2 and come from the main build's ccache.
PITWALL_CMAKE_ARGS=(-DPITWALL_BUILD_GUI=OFF -DPITWALL_BUILD_ENGINE=ON -DPITWALL_BUILD_TESTS=ON -DPITWALL_WITH_CUDA=ON
                    -DPITWALL_BUILD_BENCHMARKS=OFF
                    "-DPITWALL_TORCH_OPTIMIZATION=${PITWALL_CUDA_TORCH_OPTIMIZATION--O1}")
if [[ -n "${PITWALL_DEPS_ROOT:-}" ]]; then
  deps="$(realpath "$PITWALL_DEPS_ROOT")"
  prefixes="$prefixes;$deps/usr"
  PITWALL_CMAKE_ARGS+=("-DCMAKE_CXX_FLAGS=-isystem $deps/usr/include"
                       "-DCMAKE_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu")
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# Torch's CMake config enables the CUDA language and finds the toolkit itself; these name which one.
PITWALL_CMAKE_ARGS+=("-DCMAKE_PREFIX_PATH=$prefixes" "-DCMAKE_CUDA_COMPILER=$cuda_home/bin/nvcc"
                     "-DCUDA_TOOLKIT_ROOT_DIR=$cuda_home" "-DCUDAToolkit_ROOT=$cuda_home")
# Built and run: the CLI with its engine module and plugins, and the tests labelled engine or cli (they link the
# engine or drive the CLI that loads it). The core tests link no LibTorch: packaging/test.sh and
# packaging/test-sanitizers.sh run them, and here they would only repeat those.
labels="${PITWALL_CUDA_TEST_LABELS:-engine|cli}"
start=$(date +%s)
pitwall_build pitwall all_plugins pitwall_engine_index
echo "pitwall: CUDA build of the CLI took $(( $(date +%s) - start )) s"
grep -E "^-- (Found Torch|PyTorch: CUDA detected|Pitwall): " "$PITWALL_BUILD_DIR/configure.log" || true
# One CUDA runtime per process, the one torch was built against: where the wheel carries its own (site-packages/
# nvidia), the engine's CUDA libraries must resolve there and not to the toolkit's (see packaging/README.md, "The CUDA build").
site="$(dirname "$torch_root")"
if [[ -d "$site/nvidia" ]]; then
  resolved="$(ldd "$PITWALL_BUILD_DIR/lib/libpitwall_engine.so")"
  for lib in libtorch_cuda.so libcudart.so libnvrtc.so; do
    where="$(awk -v lib="$lib" 'index($1, lib) == 1 { print $3 }' <<< "$resolved")"
    echo "pitwall: $lib -> ${where:-not linked}"
    [[ -z "$where" && "$lib" != libtorch_cuda.so ]] || [[ "$where" == "$site"/* ]] ||
      { echo "pitwall: $lib must come from $site" >&2; exit 1; }
  done
fi
# The wheel has gloo compiled into libtorch_cpu.so but ships no gloo headers, so the c10d code compiles against
# Debian's older libgloo-dev (ProcessGroupGloo.hpp leaves out what that gloo lacks). That is safe only while the
# engine defines no gloo code of its own, which would then stand beside torch's under the same names.
if nm -C --defined-only "$PITWALL_BUILD_DIR/lib/libpitwall_engine.so" | grep " gloo::" > /dev/null; then
  echo "pitwall: libpitwall_engine.so defines gloo symbols compiled from /usr/include/gloo" >&2
  exit 1
fi
[[ "${PITWALL_CUDA_BUILD_ONLY:-}" = 1 ]] && exit 0
mapfile -t tests < <(cd "$PITWALL_BUILD_DIR" && ctest -N -L "$labels" | sed -n 's/^ *Test *#[0-9]*: //p')
targets=()
for t in "${tests[@]}"; do targets+=(--target "$t"); done # each test executable is named after its test
cmake --build "$PITWALL_BUILD_DIR" --parallel "$PITWALL_JOBS" "${targets[@]}"
echo "pitwall: CUDA build took $(( $(date +%s) - start )) s in all (${#tests[@]} test executables)"
export QT_QPA_PLATFORM=offscreen
# The wheel's OpenMP threads spin while they wait for work; on a shared CI machine they spin against the other
# builds (tst_trainer's first test: 40 s spinning, 15 s passive, while 4 other builds ran).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
cd "$PITWALL_BUILD_DIR"
start=$(date +%s)
status=0
junit="$PITWALL_BUILD_DIR/Testing/ctest-junit.xml"
ctest --output-on-failure -j "$PITWALL_TEST_JOBS" --timeout 900 --output-junit "$junit" -L "$labels" "$@" || status=$?
echo "pitwall: CUDA build tests took $(( $(date +%s) - start )) s"
if ! bash "$PITWALL_ROOT/packaging/check-skips.sh" "$junit" && [ "${CI:-}" = true ]; then
  status=1
fi
exit "$status"
