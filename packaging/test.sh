#!/usr/bin/env bash
# Installs what is missing, builds everything with the tests, and runs them all under CTest.
# Usage: bash packaging/test.sh [extra ctest args...]   e.g. -R tst_config  or  -L core
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
pitwall_install_deps
start=$(date +%s)
pitwall_build
echo "pitwall: build took $(( $(date +%s) - start )) s"
export QT_QPA_PLATFORM=offscreen
cd "$PITWALL_BUILD_DIR"
ctest --output-on-failure --timeout 900 "$@"
