#!/usr/bin/env bash
# Renders the PNGs of the icons from their SVG sources (rsvg-convert, Debian's librsvg2-bin): the application icon
# at the desktop's sizes, the window's state and action icons at 16 px and 32 px (@2x, for high-DPI screens).
# Run after editing an SVG; the PNGs are committed so that neither the build nor the window needs an SVG renderer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for size in 16 32 48 64 128 256; do rsvg-convert -w $size -h $size pitwall.svg -o pitwall-$size.png; done
for svg in ui/*.svg; do
  rsvg-convert -w 16 -h 16 "$svg" -o "${svg%.svg}.png"
  rsvg-convert -w 32 -h 32 "$svg" -o "${svg%.svg}@2x.png"
done
echo "rendered $(ls ui/*.png pitwall-*.png | wc -l) PNGs"
