#!/usr/bin/env bash
# CTest test tst_optuna_dashboard: optuna-dashboard (from the newest Optuna's environment, packaging/install-optuna.sh)
# serves a results file that Pitwall's CLI wrote, and its JSON API shows every study and trial as Pitwall wrote
# them (tests/core/store/dashboard_interop.py). Environment: PITWALL_CLI, PITWALL_TEST_OPTUNA_PYTHON.
set -euo pipefail
python="${PITWALL_TEST_OPTUNA_PYTHON:?set by CTest: the newest Optuna environment\'s python}"
if [ ! -x "$python" ]; then
  echo "tst_optuna_dashboard: FAIL: missing installed component: the newest Optuna with optuna-dashboard:" \
       "$python does not exist (bash packaging/install-optuna.sh makes it; packaging/test.sh runs that first)" >&2
  exit 1
fi
folder="$(mktemp -d "${TMPDIR:-/tmp}/pitwall-dashboard.XXXXXX")"
trap 'rm -rf "$folder"' EXIT
cd "$folder"
PYTHONNOUSERSITE=1 PYTHONWARNINGS=ignore "$python" "$(dirname "${BASH_SOURCE[0]}")/dashboard_interop.py" \
  "$PITWALL_CLI" "$folder"
