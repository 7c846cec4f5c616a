#!/usr/bin/env bash
# Pitwall's main job on built-in data: installs what is missing, builds, then runs the demo study — four of
# LEAD's TransFuser speed variants trained on freshly synthesised driving data, each driven in closed loop
# (configs/transfuser/demo.yaml), recorded in build-demo/demo.db.
# With a display the workbench opens on that database while the study runs in the background (closing the
# window does not stop it; its log is build-demo/demo.log). Without a display (or with --headless) the study
# runs in the terminal with progress and prints the final table.
# Usage: bash packaging/demo.sh [--headless]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
pitwall_install_deps
pitwall_build pitwall pitwall-gui all_plugins
bin="$PITWALL_BUILD_DIR/bin"
demo_dir="${PITWALL_DEMO_DIR:-$PITWALL_ROOT/build-demo}"
mkdir -p "$demo_dir"
export PITWALL_DB="$demo_dir/demo.db"
study=(bench variants "$PITWALL_ROOT/configs/transfuser/demo.yaml")

echo "== devices"
"$bin/pitwall" devices
echo
cd "$demo_dir"
if [ "${1:-}" != "--headless" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  "$bin/pitwall" db migrate >/dev/null
  echo "== demo study running in the background: pitwall ${study[*]} (log: $demo_dir/demo.log)"
  "$bin/pitwall" "${study[@]}" >"$demo_dir/demo.log" 2>&1 &
  echo "== opening the workbench on $PITWALL_DB"
  exec "$bin/pitwall-gui" --db "$PITWALL_DB"
fi
echo "== demo study (no display, or --headless): pitwall ${study[*]}"
"$bin/pitwall" "${study[@]}"
echo
echo "== results database"
"$bin/pitwall" db info
echo "(on a desktop, open the results with: $bin/pitwall-gui --db $PITWALL_DB)"
