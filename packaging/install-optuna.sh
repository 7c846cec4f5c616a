#!/usr/bin/env bash
# Installs the pinned Optuna release and optuna-dashboard from PyPI (with what they pull: numpy, SQLAlchemy, alembic,
# bottle, ...) into a clean virtual environment, for the interop tests against the newest Optuna (packaging/test.sh
# runs this before CTest: the tests named *_newest_optuna and tst_optuna_dashboard) and for benchmarks that compare
# Pitwall with it (tests/bench/bench_mo). The
# environment lives in a per-user cache, so a fresh clone on the same machine reuses it:
#   ${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}/venv-optuna-<optuna>-py<python>
# and <checkout>/.venv-optuna is a symlink to it (packaging/cached-venv.sh). Idempotent: with the pinned version
# already there it only checks a stamp file and the symlink (no network). Pitwall's build and run never download
# anything; this script (like packaging/install-cuda-torch.sh) downloads, and only the first time on a machine.
# PITWALL_PYTHON picks the interpreter (default /usr/bin/python3, Debian's, which the tests run). Prints the
# environment's path on its last line.
set -euo pipefail
PITWALL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$PITWALL_ROOT/packaging/cached-venv.sh"
# The pins: the newest Optuna and optuna-dashboard on PyPI when this was written. The interop tests run against both
# this Optuna and Debian's python3-optuna (3.1).
PITWALL_OPTUNA_VERSION="5.1.0"
PITWALL_OPTUNA_DASHBOARD_VERSION="0.21.0"
python="${PITWALL_PYTHON:-/usr/bin/python3}"
pitwall_cached_venv optuna optuna "$PITWALL_OPTUNA_VERSION" "
import optuna, optuna_dashboard
assert optuna.__version__ == '$PITWALL_OPTUNA_VERSION', optuna.__version__
assert optuna_dashboard.__version__ == '$PITWALL_OPTUNA_DASHBOARD_VERSION', optuna_dashboard.__version__
print(optuna.__version__)" "optuna-dashboard==$PITWALL_OPTUNA_DASHBOARD_VERSION"
