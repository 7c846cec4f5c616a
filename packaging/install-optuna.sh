#!/usr/bin/env bash
# Installs the pinned Optuna release from PyPI (with what it pulls: numpy, SQLAlchemy, alembic, ...) into a clean
# virtual environment, for benchmarks that compare Pitwall with the newest Optuna (tests/bench/bench_mo). The
# environment lives in a per-user cache, so a fresh clone on the same machine reuses it:
#   ${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}/venv-optuna-<optuna>-py<python>
# and <checkout>/.venv-optuna is a symlink to it (packaging/cached-venv.sh). Idempotent: with the pinned version
# already there it only checks a stamp file and the symlink (no network). Pitwall's build, tests and CI never
# download anything and never call this script; only benchmarks do, and only the first time on a machine.
# PITWALL_PYTHON picks the interpreter (default /usr/bin/python3, Debian's, which the tests run). Prints the
# environment's path on its last line.
set -euo pipefail
PITWALL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$PITWALL_ROOT/packaging/cached-venv.sh"
# The pin: the newest Optuna on PyPI when this was written (5.1.0). Debian's python3-optuna (3.1) stays the
# reference of the tests; this one is for comparisons only.
PITWALL_OPTUNA_VERSION="5.1.0"
python="${PITWALL_PYTHON:-/usr/bin/python3}"
pitwall_cached_venv optuna optuna "$PITWALL_OPTUNA_VERSION" \
  "import optuna; assert optuna.__version__ == '$PITWALL_OPTUNA_VERSION', optuna.__version__; print(optuna.__version__)"
