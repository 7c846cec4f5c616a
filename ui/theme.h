#pragma once
// Colours that follow the window's palette (light or dark). Charts and hand-painted views take their
// colours from here and re-apply them when the widget receives QEvent::PaletteChange. The palettes themselves are
// Pitwall's own, light and dark; ui/themecontroller.h picks one as the desktop prefers, or as the user chose.

#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QString>

#include <optional>

namespace pitwall::ui {

enum class ColorScheme { Light, Dark };
// What the user chose (View > Theme, pitwall-gui --theme): follow the desktop, or always light or dark.
enum class ThemeChoice { System, Light, Dark };
std::optional<ThemeChoice> parseThemeChoice(const QString& name); // "system", "light", "dark"
QString themeChoiceName(ThemeChoice choice);

// Pitwall's palette for a scheme: every role of the active, inactive and disabled groups set, text on its background
// at a contrast ratio of at least 4.5 (WCAG AA) in the active group.
QPalette pitwallPalette(ColorScheme scheme);

// The scheme `choice` gives: Light and Dark as they say; System: the desktop's stated preference (the XDG desktop
// portal's org.freedesktop.appearance color-scheme: 1 prefers dark, 2 prefers light, 0 or none states nothing), else
// the platform theme's palette (dark when its window colour is dark).
ColorScheme resolveColorScheme(ThemeChoice choice, std::optional<ColorScheme> desktopPreference,
                               const QPalette& platformPalette);
// The portal's color-scheme value as a preference: 1 dark, 2 light, anything else none.
std::optional<ColorScheme> portalColorScheme(uint value);

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
