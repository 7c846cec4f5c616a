#pragma once
// Colours that follow the system palette (light or dark). Charts and hand-painted views take their
// colours from here and re-apply them when the widget receives QEvent::PaletteChange.

#include <QColor>
#include <QPalette>

namespace pitwall::ui {

bool isDark(const QPalette& palette);
// A qualitative colour for series `index`, readable on the palette's base colour.
QColor seriesColor(int index, const QPalette& palette);
// Fixed meanings: complete / pruned / failed / running trials, and the "best so far" line.
QColor stateColor(const char* state, const QPalette& palette);

} // namespace pitwall::ui
