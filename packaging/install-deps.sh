#!/usr/bin/env bash
# Installs every Debian 12 package that Pitwall's build, tests and main job need.
# Idempotent: when everything is present it prints one line and changes nothing.
# Usage: packaging/install-deps.sh [--check]   (--check: list what is missing, exit 1 if anything is)
set -euo pipefail

PACKAGES=(
  # toolchain and build speed
  build-essential cmake ninja-build ccache pkg-config
  # the fuzz targets (packaging/fuzz.sh): clang with libFuzzer and the sanitizer runtimes
  clang libclang-rt-dev
  # core
  libyaml-cpp-dev libsqlite3-dev sqlite3 nlohmann-json3-dev
  # the PostgreSQL store: libpq, and the server its tests start (as plain processes); psycopg2 for Optuna's side
  libpq-dev postgresql python3-psycopg2
  # a one-node Slurm cluster for the cluster tests (started by the tests as plain processes)
  slurmctld slurmd slurm-client munge
  # a process with a skewed clock (LD_PRELOAD), for the test that machines with different clocks share a study
  libfaketime
  # engine
  libtorch-dev libgloo-dev libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev
  # an optimised BLAS for LibTorch (Debian points libblas.so.3 at the reference BLAS otherwise)
  libopenblas0-openmp
  # window
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libxkbcommon-dev libgl-dev qt6-qpa-plugins xvfb xauth dbus-daemon
  # reference and interop checks (Debian's python3, /usr/bin/python3)
  python3 python3-optuna python3-torch python3-torchvision python3-yaml python3-pil
  # the package checks (tests/packaging): the desktop entry, the AppStream metadata, lintian; groff for the man pages
  desktop-file-utils appstream lintian groff-base man-db
  # a decimal-comma locale, so the tests check that numbers read the same under it
  locales
)

# de_DE.UTF-8 generated once (the window's and the number parser's tests run under it).
ensure_locale() {
  if locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; then return 0; fi
  [ "${1:-}" = "--check" ] && { echo "pitwall: missing locale de_DE.UTF-8"; return 1; }
  echo "pitwall: generating locale de_DE.UTF-8"
  $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8
}

# Installed packages and the names they provide (Debian 13 folds some -dev packages into others: there
# qt6-base-dev provides libqt6opengl6-dev), one per line.
have=$(dpkg-query -W -f='${db:Status-Abbrev}|${Package}|${Provides}\n' 2>/dev/null |
  awk -F'|' '$1 ~ /^ii/ { print $2; n = split($3, p, /, */); for (i = 1; i <= n; i++) { split(p[i], q, " "); if (q[1] != "") print q[1] } }')
missing=()
for p in "${PACKAGES[@]}"; do
  if ! grep -qxF "$p" <<< "$have"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ "${#missing[@]}" -eq 0 ]; then
  ensure_locale "${1:-}" || exit 1
  echo "pitwall: all ${#PACKAGES[@]} build and test packages are installed"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "pitwall: missing packages: ${missing[*]}"
  exit 1
fi

echo "pitwall: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "pitwall: dependencies installed"
ensure_locale
