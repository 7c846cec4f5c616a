#!/usr/bin/env bash
# Installs the pinned PyTorch wheel with CUDA from PyPI into a virtual environment for the second build
# configuration (packaging/test-cuda.sh). The environment lives in a per-user cache, so a fresh clone on the same
# machine reuses it:  ${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}/venv-cuda-<torch>-py<python>
# and <checkout>/.venv-cuda is a symlink to it. Idempotent: with the pinned version already there it only checks a
# stamp file and the symlink (no Python start, no network). Pitwall's build and run never download anything; this
# script is the only step that does, and only the first time on a machine.
# PITWALL_PYTHON picks the interpreter (default python3). Prints the environment's path on its last line.
set -euo pipefail
PITWALL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pin: torch 2.15.0 from PyPI's default index is built against CUDA 13 (its nvidia-* wheels carry CUDA 13.2
# runtime libraries), the same major version as the toolkit on the CI machines (nvcc 13.0); see README "CUDA build".
PITWALL_TORCH_VERSION="2.15.0"
python="${PITWALL_PYTHON:-python3}"
cache="${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}"
# The Python minor version is part of the key (a venv is tied to its interpreter): one bare Python start (~30 ms).
pyver="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
venv="$cache/venv-cuda-$PITWALL_TORCH_VERSION-py$pyver"
stamp="$venv/.pitwall-torch-$PITWALL_TORCH_VERSION"
link="$PITWALL_ROOT/.venv-cuda"

if [[ ! -f "$stamp" ]]; then
  start=$(date +%s)
  mkdir -p "$cache"
  # Built beside its final place and moved there once complete, so an interrupted download leaves no half venv.
  tmp="$venv.partial.$$"
  rm -rf "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  "$python" -m venv "$tmp"
  "$tmp/bin/python" -m pip install --quiet --no-input --progress-bar off "torch==$PITWALL_TORCH_VERSION"
  rm -rf "$venv"
  mv "$tmp" "$venv"
  trap - EXIT
  # A venv's scripts name their own path; the moved venv is used only through bin/python, which is a symlink to
  # the interpreter and works from anywhere, and through torch's files.
  prefix="$(PYTHONWARNINGS=ignore "$venv/bin/python" -c 'import torch, torch.utils; assert torch.version.cuda, "torch without CUDA"; print(torch.utils.cmake_prefix_path)')"
  [[ -f "$prefix/Torch/TorchConfig.cmake" ]] || { echo "pitwall: no TorchConfig.cmake under $prefix" >&2; exit 1; }
  echo "$prefix" > "$stamp"
  echo "pitwall: installed torch $PITWALL_TORCH_VERSION into $venv in $(( $(date +%s) - start )) s" >&2
fi
if [[ "$(readlink "$link" 2>/dev/null)" != "$venv" ]]; then
  rm -rf "$link"
  ln -s "$venv" "$link"
fi
echo "$venv"
