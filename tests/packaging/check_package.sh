#!/usr/bin/env bash
# The Debian package as CI checks it: cpack builds pitwall_<version>_amd64.deb from this build, then its contents
# (the files a user needs), its Depends (from dpkg-shlibdeps) and Recommends, the desktop entry and AppStream
# metadata it carries (desktop-file-validate, appstreamcli), and lintian's verdict (no error). Installing it on a
# clean Debian 12 takes minutes: packaging/test-deb.sh does that by hand.
# Usage: PITWALL_BINARY_DIR=<build> bash tests/packaging/check_package.sh [OUT_DIR]   (ctest -R '^package$')
set -euo pipefail
: "${PITWALL_BINARY_DIR:?the build folder (ctest sets it)}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$PITWALL_BINARY_DIR/package}
fail() { echo "package: FAIL: $*" >&2; exit 1; }

rm -rf "$out"
cpack --config "$PITWALL_BINARY_DIR/CPackConfig.cmake" -G DEB -B "$out" > "$out.log" 2>&1 ||
  { cat "$out.log"; fail "cpack failed"; }
deb=$(ls "$out"/pitwall_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$out.log"; fail "cpack wrote no pitwall_<version>_amd64.deb into $out"; }
echo "package: $(basename "$deb"), $(( $(stat -c %s "$deb") / 1024 )) KiB"

files=$(dpkg-deb -c "$deb" | awk '{print $6}')
need=(
  ./usr/bin/pitwall ./usr/bin/pitwall-gui
  ./usr/lib/pitwall/libpitwall_core.so ./usr/lib/pitwall/libpitwall_ui.so
  ./usr/lib/pitwall/pitwall_cli_engine.so ./usr/lib/pitwall/engine-commands.tsv
  ./usr/lib/pitwall/plugins/transfuser.so ./usr/lib/pitwall/plugins/transfuser.schema.yaml
  ./usr/lib/pitwall/plugins/transfuser.plugin.json ./usr/lib/pitwall/plugins/autospeed.so
  ./usr/lib/pitwall/plugins/autospeed.schema.yaml ./usr/lib/pitwall/plugins/autospeed.plugin.json
  ./usr/share/pitwall/configs/transfuser/smoke.yaml ./usr/share/pitwall/configs/autospeed/smoke.yaml
  ./usr/share/man/man1/pitwall.1.gz ./usr/share/man/man1/pitwall-train.1.gz ./usr/share/man/man1/pitwall-gui.1.gz
  ./usr/share/applications/org.pitwall.Pitwall.desktop ./usr/share/metainfo/org.pitwall.Pitwall.metainfo.xml
  ./usr/share/icons/hicolor/scalable/apps/org.pitwall.Pitwall.svg
  ./usr/share/icons/hicolor/48x48/apps/org.pitwall.Pitwall.png
  ./usr/share/bash-completion/completions/pitwall
  ./usr/share/doc/pitwall/copyright ./usr/share/doc/pitwall/changelog.gz ./usr/share/doc/pitwall/README.md
  ./usr/share/doc/pitwall/guide/README.md ./usr/share/doc/pitwall/guide/getting-started.md
  ./usr/share/doc/pitwall/guide/images/train-live.png
)
for f in "${need[@]}"; do
  grep -qxF "$f" <<< "$files" || fail "the package lacks $f"
done
echo "package: all ${#need[@]} expected files are in it ($(wc -l <<< "$files") entries)"

depends=$(dpkg-deb -f "$deb" Depends)
for d in libtorch libqt6widgets6 libqt6charts6 libsqlite3-0 libyaml-cpp libturbojpeg0 qt6-qpa-plugins 'libc6 (>='; do
  grep -qF "$d" <<< "$depends" || fail "Depends lacks $d: $depends"
done
recommends=$(dpkg-deb -f "$deb" Recommends)
grep -qF python3-optuna <<< "$recommends" || fail "Recommends lacks python3-optuna: $recommends"
echo "package: Depends: $depends"
echo "package: Recommends: $recommends"

unpacked=$out/unpacked
dpkg-deb -x "$deb" "$unpacked"
desktop-file-validate "$unpacked/usr/share/applications/org.pitwall.Pitwall.desktop" ||
  fail "desktop-file-validate refuses the desktop entry"
appstreamcli validate --no-net "$unpacked/usr/share/metainfo/org.pitwall.Pitwall.metainfo.xml" > "$out/appstream.log" 2>&1 ||
  { cat "$out/appstream.log"; fail "appstreamcli refuses the metainfo"; }
echo "package: the desktop entry and the AppStream metadata validate"

# lintian: no error. Warnings and infos are printed for the reader.
lintian --fail-on error --suppress-tags-from-file "$here/lintian-accepted.txt" "$deb" > "$out/lintian.log" 2>&1 ||
  { cat "$out/lintian.log"; fail "lintian reports errors"; }
echo "package: lintian: $(grep -c '^E:' "$out/lintian.log" || true) errors, $(grep -c '^W:' "$out/lintian.log" || true) warnings"
sed -n 's/^\(W: .*\)/package:   \1/p' "$out/lintian.log" | sort | uniq -c | sort -rn | head -20
echo "package: pass"
