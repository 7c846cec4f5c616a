#!/usr/bin/env bash
# Builds the Debian package: pitwall_<version>_amd64.deb, with its Depends from the binaries (dpkg-shlibdeps), the
# Python pieces as Recommends, and its contents checked (tests/packaging/check_package.sh: files, Depends, the desktop
# entry and AppStream metadata, lintian). Installs what is missing and builds first, like packaging/test.sh.
# Usage: bash packaging/build-deb.sh [OUT_DIR]          (default: <build>/package)
# Then: sudo apt install ./OUT_DIR/pitwall_<version>_amd64.deb   (packaging/test-deb.sh tries it on a clean Debian 12)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
pitwall_install_deps
pitwall_build
out="${1:-$PITWALL_BUILD_DIR/package}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
PITWALL_BINARY_DIR="$PITWALL_BUILD_DIR" bash "$PITWALL_ROOT/tests/packaging/check_package.sh" "$out"
ls -l "$out"/pitwall_*_amd64.deb
