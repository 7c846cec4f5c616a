#include "ui/theme.h"

#include <cstring>

namespace pitwall::ui {

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
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
