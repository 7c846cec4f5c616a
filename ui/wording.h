#pragma once
// Counts in the window's text: "1 study", "2 studies" (never "2 stud(ies)").

#include <QString>

namespace pitwall::ui {

inline QString counted(qint64 n, const char* one, const char* many)
{
    return QString::number(n) + QLatin1Char(' ') + QString::fromUtf8(n == 1 ? one : many);
}

} // namespace pitwall::ui
