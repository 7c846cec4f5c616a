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
