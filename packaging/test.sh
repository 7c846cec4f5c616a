#!/usr/bin/env bash
# Installs what is missing (Debian packages; the newest Optuna's cached venv), builds everything with the tests, and runs them all under CTest.
# Usage: bash packaging/test.sh [extra ctest args...]   e.g. -R tst_config  or  -L core
# Then lists the skipped tests (packaging/check-skips.sh); with CI=true a silent skip fails the run too.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
pitwall_install_deps
# The newest Optuna and optuna-dashboard from PyPI in a cached venv (downloads the first time on a machine only), for
# the interop tests against them (*_newest_optuna, tst_optuna_dashboard). Without it those tests fail, saying so.
bash "$PITWALL_ROOT/packaging/install-optuna.sh" > /dev/null ||
  echo "pitwall: packaging/install-optuna.sh failed: the tests against the newest Optuna will fail" >&2
start=$(date +%s)
pitwall_build
echo "pitwall: build took $(( $(date +%s) - start )) s"
export QT_QPA_PLATFORM=offscreen
cd "$PITWALL_BUILD_DIR"
status=0
junit="$PITWALL_BUILD_DIR/Testing/ctest-junit.xml"
ctest --output-on-failure -j "$PITWALL_TEST_JOBS" --timeout 900 --output-junit "$junit" "$@" || status=$?
if ! bash "$PITWALL_ROOT/packaging/check-skips.sh" "$junit" && [ "${CI:-}" = true ]; then
  status=1
fi
exit "$status"
