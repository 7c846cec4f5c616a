#pragma once
// Colours that follow the system palette (light or dark). Charts and hand-painted views take their
// colours from here and re-apply them when the widget receives QEvent::PaletteChange.

#include <QColor>
#include <QIcon>
#include <QPalette>

namespace pitwall::ui {

bool isDark(const QPalette& palette);
// A qualitative colour for series `index`, readable on the palette's base colour.
QColor seriesColor(int index, const QPalette& palette);
// Fixed meanings: complete / pruned / failed / running trials, and the "best so far" line.
QColor stateColor(const char* state, const QPalette& palette);

// Icons from the window's resources (resources/pitwall.qrc). stateIcon: a trial's or job's state, by the names the
// store uses ("COMPLETE", "PRUNED", "FAIL", "RUNNING", "WAITING"; a job's "queued", "running", "stopping", "finished",
// "failed" and "cancelled" too), a null icon for any other. actionIcon: "open", "new", "start", "stop", "resume",
// "refresh", "export". applicationIcon: Pitwall's own, at every size.
QIcon stateIcon(const QString& state);
QIcon actionIcon(const char* name);
QIcon applicationIcon();

} // namespace pitwall::ui
