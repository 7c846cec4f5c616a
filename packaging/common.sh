# Sourced by the packaging scripts: where things are and how to build them fast.
# PITWALL_BUILD_DIR (default <checkout>/build) and PITWALL_BUILD_TYPE (default RelWithDebInfo) may be set.
set -euo pipefail
PITWALL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PITWALL_BUILD_DIR="${PITWALL_BUILD_DIR:-$PITWALL_ROOT/build}"
PITWALL_BUILD_TYPE="${PITWALL_BUILD_TYPE:-RelWithDebInfo}"
PITWALL_JOBS="${PITWALL_JOBS:-$(nproc)}"
# Tests CTest runs at once (packaging/test*.sh): the suites start real processes and wait on them, so two at a time
# on two cores finishes sooner than one (97 tests: 366 s against 604 s).
PITWALL_TEST_JOBS="${PITWALL_TEST_JOBS:-$(nproc)}"

# ccache keyed on paths relative to the checkout, so another clone of the repository hits the same cache;
# the sloppiness settings let it cache the engine's precompiled header and the files that use it.
export CCACHE_BASEDIR="$PITWALL_ROOT"
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
export CCACHE_COMPILERCHECK=content
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-16G}"
# Also the cache's own setting, so a plain `cmake --build` (without this environment) does not trim it back to
# ccache's 5 GB default: three configurations (main, sanitizers, CUDA) together need about 10 GB.
if command -v ccache > /dev/null; then ccache --set-config=max_size="$CCACHE_MAXSIZE" > /dev/null 2>&1 || true; fi

pitwall_install_deps() {
  bash "$PITWALL_ROOT/packaging/install-deps.sh"
}

# RelWithDebInfo with line tables only (-g1): backtraces, sanitizer reports and profilers still name the file and
# line, and a cold build takes a third less than with full -g (core/store/jobstore.cpp: 11 s against 20 s).
# PITWALL_BUILD_TYPE=Debug gives full debug information.
# pitwall_build [target...]: configures (everything on: GUI, engine, tests) and builds the targets, or all.
# PITWALL_CMAKE_ARGS (an array, set by the sanitizer and fuzzing scripts) comes after these and overrides them.
pitwall_build() {
  mkdir -p "$PITWALL_BUILD_DIR"
  local extra=()
  if declare -p PITWALL_CMAKE_ARGS > /dev/null 2>&1; then extra=("${PITWALL_CMAKE_ARGS[@]}"); fi
  cmake -S "$PITWALL_ROOT" -B "$PITWALL_BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE="$PITWALL_BUILD_TYPE" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DPITWALL_BUILD_GUI=ON -DPITWALL_BUILD_ENGINE=ON -DPITWALL_BUILD_TESTS=ON \
    "${extra[@]}" \
    > "$PITWALL_BUILD_DIR/configure.log" 2>&1 || { cat "$PITWALL_BUILD_DIR/configure.log"; return 1; }
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$PITWALL_BUILD_DIR" --parallel "$PITWALL_JOBS" "${targets[@]}"
}
