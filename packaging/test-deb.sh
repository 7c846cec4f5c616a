#!/usr/bin/env bash
# Installs the package on a clean Debian 12: a fresh root made with debootstrap (bookworm, minbase), into which apt
# installs only the package and its Depends; then, inside it, `pitwall --version`, `pitwall plugins --check`, the
# smoke training on the installed example config, `pitwall-gui --screenshot` (offscreen) on its database and, in a
# folder without one, of the start page the desktop menu opens on. Takes minutes and
# downloads Debian's packages, so CI does not run it (CI checks the package's contents: tests/packaging).
# Usage: sudo bash packaging/test-deb.sh [DEB]        (default: the one packaging/build-deb.sh wrote)
#   PITWALL_DEB_ROOT=DIR keeps the root there (default: a temporary folder, removed at the end)
#   PITWALL_DEB_MIRROR=URL the Debian mirror (default: http://deb.debian.org/debian)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
deb="${1:-$(ls "$PITWALL_BUILD_DIR"/package/pitwall_*_amd64.deb 2>/dev/null | head -1)}"
[ -f "$deb" ] || { echo "test-deb: no package: run packaging/build-deb.sh first, or give the .deb" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test-deb: needs root (debootstrap and chroot): sudo bash $0" >&2; exit 2; }
command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
mirror="${PITWALL_DEB_MIRROR:-http://deb.debian.org/debian}"
root="${PITWALL_DEB_ROOT:-$(mktemp -d /var/tmp/pitwall-deb-root.XXXXXX)}"
cleanup() {
  for m in proc dev/pts dev sys; do umount "$root/$m" 2> /dev/null || true; done
  [ -n "${PITWALL_DEB_ROOT:-}" ] || rm -rf "$root"
}
trap cleanup EXIT
start=$(date +%s)
if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "test-deb: debootstrap bookworm (minbase) into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; exit 1; }
fi
mount -t proc proc "$root/proc"; mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
mount --bind /sys "$root/sys"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
echo "test-deb: apt install ./$(basename "$deb") (its Depends only, no Recommends)"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" \
  > "$root/tmp/apt.log" 2>&1 || { tail -30 "$root/tmp/apt.log"; exit 1; }
echo "test-deb: installed $(in_root dpkg-query -W -f='${Package} ${Version}' pitwall) with $(in_root dpkg-query -W | wc -l) packages in the root"
in_root sh -euc '
  cd /tmp && mkdir -p smoke && cd smoke
  pitwall --version
  pitwall plugins --check | tail -3
  pitwall train /usr/share/pitwall/configs/transfuser/smoke.yaml --db smoke.db \
    training.stages.pretrain.epochs=1 training.stages.posttrain.epochs=1 > train.log 2>&1 || { tail -20 train.log; exit 1; }
  tail -2 train.log
  pitwall study list --db smoke.db
  QT_QPA_PLATFORM=offscreen pitwall-gui --db smoke.db --screenshot /tmp/smoke/window.png
  ls -l /tmp/smoke/window.png
  mkdir -p /tmp/empty && cd /tmp/empty
  QT_QPA_PLATFORM=offscreen pitwall-gui --screenshot /tmp/smoke/start.png  # no database here: the start page
  cd /tmp/smoke
  test -f /usr/share/man/man1/pitwall-train.1.gz && echo "man page: /usr/share/man/man1/pitwall-train.1.gz"
'
shot="${PITWALL_DEB_SCREENSHOT:-/tmp/pitwall-deb-window.png}"
cp "$root/tmp/smoke/window.png" "$shot"
cp "$root/tmp/smoke/start.png" "${shot%.png}-start.png"
echo "test-deb: pass in $(( $(date +%s) - start )) s; the window's screenshot: ${PITWALL_DEB_SCREENSHOT:-/tmp/pitwall-deb-window.png}"
