#!/usr/bin/env bash
# Pitwall's main job on built-in data: installs what is missing, builds, then runs the demo.
# With a display it opens the workbench on the demo results database; without one it runs headless and
# prints the status of this machine and of the demo configuration.
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
echo "== demo configuration (LEAD logits + nearest + batch 96), with where each value comes from"
"$bin/pitwall" config show "$PITWALL_ROOT/configs/transfuser/logits_nearest_batch96.yaml" --changed
echo
echo "== results database"
"$bin/pitwall" db migrate
"$bin/pitwall" db info

if [ "${1:-}" != "--headless" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  echo "== opening the workbench on $PITWALL_DB"
  exec "$bin/pitwall-gui" --db "$PITWALL_DB"
fi
echo "(no display: the workbench was not opened; run $bin/pitwall-gui --db $PITWALL_DB on a desktop)"
