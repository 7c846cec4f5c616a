#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, AddressSanitizer and UndefinedBehaviorSanitizer, the engine,
# GUI and tests off) into build-fuzz/ and runs each for a bounded time over its committed corpus.
# Usage: bash packaging/fuzz.sh [target...]   (default: every target; names as in tests/fuzz/CMakeLists.txt)
# PITWALL_FUZZ_SECONDS (default 60) is each target's time; PITWALL_FUZZ_BUILD_DIR the folder. New inputs that
# reach new code go to build-fuzz/corpus/<target>/ (not the committed corpus); a crash leaves
# build-fuzz/crash-<target>-*, which belongs in tests/fuzz/corpus/<target>/ once it is fixed.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PITWALL_BUILD_DIR="${PITWALL_FUZZ_BUILD_DIR:-$PITWALL_ROOT/build-fuzz}"
seconds="${PITWALL_FUZZ_SECONDS:-60}"
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^ *pitwall_add_fuzz_target(\([a-z_]*\).*/\1/p' "$PITWALL_ROOT/tests/fuzz/CMakeLists.txt")
fi
PITWALL_CMAKE_ARGS=(
  -DCMAKE_CXX_COMPILER=clang++ -DPITWALL_BUILD_FUZZERS=ON
  -DPITWALL_BUILD_GUI=OFF -DPITWALL_BUILD_ENGINE=OFF -DPITWALL_BUILD_TESTS=OFF
)
pitwall_build "${targets[@]/#/fuzz_}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
status=0
for t in "${targets[@]}"; do
  work="$PITWALL_BUILD_DIR/corpus/$t"
  mkdir -p "$work"
  echo "pitwall: fuzzing $t for $seconds s"
  "$PITWALL_BUILD_DIR/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$PITWALL_BUILD_DIR/crash-$t-" "$work" "$PITWALL_ROOT/tests/fuzz/corpus/$t" \
    > "$PITWALL_BUILD_DIR/fuzz-$t.log" 2>&1 || { status=1; echo "pitwall: fuzz_$t FAILED (see $PITWALL_BUILD_DIR/fuzz-$t.log)"; }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE' "$PITWALL_BUILD_DIR/fuzz-$t.log" || true
done
exit "$status"
