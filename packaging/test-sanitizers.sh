#!/usr/bin/env bash
# The core tests (label `core`: no LibTorch, no window) under AddressSanitizer and UndefinedBehaviorSanitizer.
# Builds into build-asan/ (GCC, ccache, the engine and the GUI off) and runs `ctest -L core` there; any
# sanitizer report fails the test that triggered it (undefined behaviour does not recover).
# Usage: bash packaging/test-sanitizers.sh [extra ctest args...]   e.g. -R tst_config
# PITWALL_ASAN_BUILD_DIR changes the folder (default <checkout>/build-asan).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PITWALL_BUILD_DIR="${PITWALL_ASAN_BUILD_DIR:-$PITWALL_ROOT/build-asan}"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -O1, as AddressSanitizer's documentation suggests: instrumented code at -O2 took 43 % longer to compile
# (core/store/jobstore.cpp: 21.5 s against 12.2 s) for nothing these tests need.
PITWALL_CMAKE_ARGS=(
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  -DPITWALL_BUILD_GUI=OFF -DPITWALL_BUILD_ENGINE=OFF -DPITWALL_BUILD_TESTS=ON -DPITWALL_BUILD_BENCHMARKS=OFF
  "-DCMAKE_CXX_FLAGS=$sanitize" "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize"
  "-DCMAKE_MODULE_LINKER_FLAGS=$sanitize"
)
start=$(date +%s)
pitwall_build
echo "pitwall: sanitizer build took $(( $(date +%s) - start )) s"
export QT_QPA_PLATFORM=offscreen
# detect_leaks stays on, without suppressions: a leak in Pitwall's code is a finding too. (Qt Test's watchdog thread is
# waited for before the leak check: tests/support/sanitizer_exit.cpp.)
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$PITWALL_BUILD_DIR"
start=$(date +%s)
status=0
ctest --output-on-failure -j "$PITWALL_TEST_JOBS" --timeout 900 -L core "$@" || status=$?
echo "pitwall: sanitizer tests took $(( $(date +%s) - start )) s"
exit "$status"
