#!/usr/bin/env bash
# Pitwall's main job on built-in data: installs what is missing, builds, then runs the demo.
# It trains TransFuser-lite (both stages) on freshly synthesised driving data and records the run in
# build-demo/demo.db; with a display it then opens the workbench on that database.
# Usage: bash packaging/demo.sh [--headless]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
pitwall_install_deps
pitwall_build pitwall pitwall-gui all_plugins
bin="$PITWALL_BUILD_DIR/bin"
demo_dir="${PITWALL_DEMO_DIR:-$PITWALL_ROOT/build-demo}"
mkdir -p "$demo_dir"
export PITWALL_DB="$demo_dir/demo.db"

echo "== devices"
"$bin/pitwall" devices
echo
echo "== training TransFuser-lite on the built-in synthetic driving world (configs/transfuser/smoke.yaml)"
cd "$demo_dir"
"$bin/pitwall" train "$PITWALL_ROOT/configs/transfuser/smoke.yaml"
echo
echo "== results database"
"$bin/pitwall" db info

if [ "${1:-}" != "--headless" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  echo "== opening the workbench on $PITWALL_DB"
  exec "$bin/pitwall-gui" --db "$PITWALL_DB"
fi
echo "(no display: the workbench was not opened; on a desktop run: $bin/pitwall-gui --db $PITWALL_DB)"
