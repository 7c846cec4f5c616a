#include "ui/theme.h"

#include <cstring>

namespace pitwall::ui {

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

std::optional<ThemeChoice> parseThemeChoice(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("system"))
        return ThemeChoice::System;
    if (n == QLatin1String("light"))
        return ThemeChoice::Light;
    if (n == QLatin1String("dark"))
        return ThemeChoice::Dark;
    return std::nullopt;
}

QString themeChoiceName(ThemeChoice choice)
{
    switch (choice) {
    case ThemeChoice::Light:
        return QStringLiteral("light");
    case ThemeChoice::Dark:
        return QStringLiteral("dark");
    case ThemeChoice::System:
        break;
    }
    return QStringLiteral("system");
}

namespace {
struct PaletteColors {
    QRgb window, windowText, base, alternateBase, text, button, buttonText, brightText, highlight, highlightedText,
        link, linkVisited, toolTipBase, toolTipText, placeholder, light, midlight, mid, dark, shadow, disabledText,
        inactiveHighlight;
};

// Light: near-white surfaces, near-black text; dark: the same hues inverted, never pure black (less glare). The
// highlight is the "complete" blue of stateColor().
constexpr PaletteColors kLight{0xf3f4f6, 0x1f2328, 0xffffff, 0xf6f8fa, 0x1f2328, 0xe9ebef, 0x1f2328, 0xffffff,
                               0x2b6cb0, 0xffffff, 0x0a58ca, 0x6f42c1, 0xfffbe6, 0x1f2328, 0x6e7781, 0xffffff,
                               0xf6f7f9, 0xc4c9d0, 0x9aa1ab, 0x5b626b, 0x767e88, 0xc9d7ea};
constexpr PaletteColors kDark{0x1e2126, 0xe6e8eb, 0x16181c, 0x1d2025, 0xe6e8eb, 0x2a2e35, 0xe6e8eb, 0xffffff,
                              0x3a78c2, 0xffffff, 0x6cb6ff, 0xc297ff, 0x2a2e35, 0xe6e8eb, 0x959da7, 0x3b4048,
                              0x30343b, 0x24272d, 0x121417, 0x050607, 0x7d858f, 0x2f4660};
} // namespace

QPalette pitwallPalette(ColorScheme scheme)
{
    const PaletteColors& c = scheme == ColorScheme::Dark ? kDark : kLight;
    QPalette p;
    const auto set = [&p](QPalette::ColorRole role, QRgb rgb) { p.setColor(role, QColor::fromRgb(rgb)); };
    set(QPalette::Window, c.window);
    set(QPalette::WindowText, c.windowText);
    set(QPalette::Base, c.base);
    set(QPalette::AlternateBase, c.alternateBase);
    set(QPalette::Text, c.text);
    set(QPalette::Button, c.button);
    set(QPalette::ButtonText, c.buttonText);
    set(QPalette::BrightText, c.brightText);
    set(QPalette::Highlight, c.highlight);
    set(QPalette::HighlightedText, c.highlightedText);
    set(QPalette::Link, c.link);
    set(QPalette::LinkVisited, c.linkVisited);
    set(QPalette::ToolTipBase, c.toolTipBase);
    set(QPalette::ToolTipText, c.toolTipText);
    set(QPalette::PlaceholderText, c.placeholder);
    set(QPalette::Light, c.light);
    set(QPalette::Midlight, c.midlight);
    set(QPalette::Mid, c.mid);
    set(QPalette::Dark, c.dark);
    set(QPalette::Shadow, c.shadow);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText,
                                     QPalette::HighlightedText, QPalette::Link})
        p.setColor(QPalette::Disabled, role, QColor::fromRgb(c.disabledText));
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor::fromRgb(c.mid));
    p.setColor(QPalette::Inactive, QPalette::Highlight, QColor::fromRgb(c.inactiveHighlight));
    p.setColor(QPalette::Inactive, QPalette::HighlightedText, QColor::fromRgb(c.text));
    return p;
}

std::optional<ColorScheme> portalColorScheme(uint value)
{
    if (value == 1)
        return ColorScheme::Dark;
    if (value == 2)
        return ColorScheme::Light;
    return std::nullopt;
}

ColorScheme resolveColorScheme(ThemeChoice choice, std::optional<ColorScheme> desktopPreference,
                               const QPalette& platformPalette)
{
    switch (choice) {
    case ThemeChoice::Light:
        return ColorScheme::Light;
    case ThemeChoice::Dark:
        return ColorScheme::Dark;
    case ThemeChoice::System:
        break;
    }
    if (desktopPreference)
        return *desktopPreference;
    return isDark(platformPalette) ? ColorScheme::Dark : ColorScheme::Light;
}

QColor seriesColor(int index, const QPalette& palette)
{
    // Tableau 10, lightened on dark backgrounds.
    static const QRgb kColors[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    QColor c = QColor::fromRgb(kColors[index % 10]);
    if (index >= 10)
        c = c.darker(130);
    return isDark(palette) ? c.lighter(125) : c;
}

QColor stateColor(const char* state, const QPalette& palette)
{
    const bool dark = isDark(palette);
    if (std::strcmp(state, "COMPLETE") == 0)
        return dark ? QColor(0x76, 0xb7, 0xf2) : QColor(0x2b, 0x6c, 0xb0);
    if (std::strcmp(state, "PRUNED") == 0)
        return dark ? QColor(0xf2, 0xb4, 0x5e) : QColor(0xd0, 0x7c, 0x10);
    if (std::strcmp(state, "FAIL") == 0)
        return dark ? QColor(0xff, 0x7a, 0x7a) : QColor(0xc0, 0x30, 0x30);
    if (std::strcmp(state, "BEST") == 0)
        return dark ? QColor(0x8f, 0xe3, 0x88) : QColor(0x2e, 0x8b, 0x3a);
    return palette.color(QPalette::PlaceholderText); // running, waiting
}

} // namespace pitwall::ui

namespace pitwall::ui {

namespace {
QIcon resourceIcon(const QString& name)
{
    // QIcon picks NAME@2x.png beside NAME.png on a high-DPI screen.
    return QIcon(QStringLiteral(":/pitwall/icons/ui/") + name + QStringLiteral(".png"));
}
} // namespace

QIcon stateIcon(const QString& state)
{
    const QString s = state.toUpper();
    if (s == QLatin1String("COMPLETE") || s == QLatin1String("FINISHED") || s == QLatin1String("DONE"))
        return resourceIcon(QStringLiteral("state-complete"));
    if (s == QLatin1String("PRUNED") || s == QLatin1String("CANCELLED"))
        return resourceIcon(QStringLiteral("state-pruned"));
    if (s == QLatin1String("FAIL") || s == QLatin1String("FAILED"))
        return resourceIcon(QStringLiteral("state-failed"));
    if (s == QLatin1String("RUNNING") || s == QLatin1String("STOPPING") || s == QLatin1String("RESUMING"))
        return resourceIcon(QStringLiteral("state-running"));
    if (s == QLatin1String("WAITING") || s == QLatin1String("QUEUED"))
        return resourceIcon(QStringLiteral("state-waiting"));
    return {};
}

QIcon actionIcon(const char* name)
{
    return resourceIcon(QStringLiteral("action-") + QLatin1String(name));
}

QIcon applicationIcon()
{
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/pitwall/icons/pitwall-%1.png").arg(size), QSize(size, size));
    return icon;
}

} // namespace pitwall::ui
