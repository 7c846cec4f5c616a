#!/usr/bin/env bash
# Installs the pinned PyTorch wheel with CUDA from PyPI into a virtual environment for the second build
# configuration (packaging/test-cuda.sh). The environment lives in a per-user cache, so a fresh clone on the same
# machine reuses it:  ${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}/venv-cuda-<torch>-py<python>
# and <checkout>/.venv-cuda is a symlink to it (packaging/cached-venv.sh). Idempotent: with the pinned version
# already there it only checks a stamp file and the symlink (no network). Pitwall's build and run never download
# anything; this script is the only step that does, and only the first time on a machine.
# PITWALL_PYTHON picks the interpreter (default python3). Prints the environment's path on its last line.
set -euo pipefail
PITWALL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pin: torch 2.15.0 from PyPI's default index is built against CUDA 13 (its nvidia-* wheels carry CUDA 13.2
# runtime libraries), the same major version as the toolkit on the CI machines (nvcc 13.0); see packaging/README.md, "The CUDA build".
PITWALL_TORCH_VERSION="2.15.0"
python="${PITWALL_PYTHON:-python3}"
source "$PITWALL_ROOT/packaging/cached-venv.sh"
# The stamp holds torch.utils.cmake_prefix_path (packaging/test-cuda.sh reads it).
pitwall_cached_venv cuda torch "$PITWALL_TORCH_VERSION" "
import os, torch, torch.utils
assert torch.version.cuda, 'torch without CUDA'
prefix = torch.utils.cmake_prefix_path
assert os.path.isfile(os.path.join(prefix, 'Torch', 'TorchConfig.cmake')), 'no TorchConfig.cmake under ' + prefix
print(prefix)"
