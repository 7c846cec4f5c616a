#include "ui/charts/axisscale.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace pitwall::ui {

namespace {
double stepFor(double span, int intervals)
{
    const double raw = span / intervals;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (raw <= m * magnitude * (1 + 1e-12))
            return m * magnitude;
    return 10 * magnitude;
}
} // namespace

AxisScale niceScale(double lo, double hi, int maxIntervals, double minStep)
{
    maxIntervals = std::max(1, maxIntervals);
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return {0, 1, stepFor(1, maxIntervals)};
    if (hi < lo)
        std::swap(lo, hi);
    const bool nonNegative = lo >= 0, nonPositive = hi <= 0;
    if (hi == lo) {
        const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
        lo -= pad, hi += pad;
    }
    // The fewest-interval 1-2-5 step whose rounded-out range still fits the budget.
    double step = std::max(stepFor(hi - lo, maxIntervals), minStep);
    // A range across zero takes two intervals at least (ticks are multiples of the step); one across another round
    // number may need a much larger step than its span suggests.
    const int most = lo < 0 && hi > 0 ? std::max(maxIntervals, 2) : maxIntervals;
    for (int guard = 0; guard < 40; ++guard) {
        const double a = std::floor(lo / step + 1e-9) * step, b = std::ceil(hi / step - 1e-9) * step;
        if (std::lround((b - a) / step) <= most)
            break;
        step = stepFor(step * 1.0001 * maxIntervals, maxIntervals);
    }
    AxisScale s{std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, step};
    if (nonNegative)
        s.lo = std::max(0.0, s.lo);
    if (nonPositive)
        s.hi = std::min(0.0, s.hi);
    if (std::abs(s.lo) < step * 1e-9)
        s.lo = 0;
    if (std::abs(s.hi) < step * 1e-9)
        s.hi = 0;
    return s;
}

QString axisLabel(double value, double step)
{
    step = std::abs(step);
    if (!std::isfinite(value))
        return QString::number(value);
    if (std::abs(value) < 1e-12 || (step > 0 && std::abs(value) < step * 1e-6))
        return QStringLiteral("0");
    const double a = std::abs(value);
    const auto decimalsFor = [](double s) {
        return s > 0 ? std::clamp(static_cast<int>(-std::floor(std::log10(s) + 1e-9)), 0, 9) : 3;
    };
    if (a >= 1e4) {
        static const std::pair<double, const char*> units[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
        for (const auto& [unit, suffix] : units)
            if (a >= unit) {
                const int decimals = decimalsFor(step / unit);
                QString text = QString::number(value / unit, 'f', decimals);
                return text + QLatin1String(suffix);
            }
    }
    if (a < 1e-3) {
        // Mantissa digits enough to tell ticks apart: the step's magnitude below the value's.
        const int exponent = static_cast<int>(std::floor(std::log10(a)));
        const int digits = step > 0 ? std::clamp(exponent - static_cast<int>(std::floor(std::log10(step) + 1e-9)), 0, 6)
                                    : 2;
        QString text = QString::number(value, 'e', digits); // 3.4e-04
        const int e = static_cast<int>(text.indexOf(QLatin1Char('e')));
        QString mantissa = text.left(e);
        QString power = text.mid(e + 1);
        const bool negative = power.startsWith(QLatin1Char('-'));
        power.remove(0, 1);
        while (power.size() > 1 && power.startsWith(QLatin1Char('0')))
            power.remove(0, 1);
        return mantissa + QLatin1Char('e') + (negative ? QStringLiteral("-") : QString()) + power;
    }
    return QString::number(value, 'f', decimalsFor(step));
}

AxisScale fittingScale(double lo, double hi, double pixels, double charWidth, int maxIntervals, double minStep)
{
    for (int n = std::max(1, maxIntervals); n > 1; --n) {
        const AxisScale s = niceScale(lo, hi, n, minStep);
        const int intervals = std::max(1, static_cast<int>(std::lround((s.hi - s.lo) / s.step)));
        qsizetype widest = 0;
        for (int i = 0; i <= intervals; ++i)
            widest = std::max(widest, axisLabel(s.lo + i * s.step, s.step).size());
        if (static_cast<double>(widest) * charWidth + 14 <= pixels / intervals)
            return s;
    }
    return niceScale(lo, hi, 1, minStep);
}

double niceTimeStep(double span, int ticks)
{
    static const double steps[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
                                   3600, 7200, 10800, 21600, 43200, 86400};
    const double raw = std::max(span, 1e-9) / std::max(1, ticks);
    for (double step : steps)
        if (raw <= step)
            return step;
    return std::ceil(raw / 86400) * 86400;
}

QString timeLabel(double seconds, double step)
{
    if (step < 1) {
        const int decimals = step < 0.1 - 1e-12 ? 2 : 1;
        return QString::number(std::abs(seconds) < step * 1e-6 ? 0.0 : seconds, 'f', decimals) + QStringLiteral(" s");
    }
    const auto s = static_cast<long long>(std::llround(seconds));
    if (std::llabs(s) >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg(std::llabs(s) / 60 % 60, 2, 10, QLatin1Char('0'))
            .arg(std::llabs(s) % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(std::llabs(s) % 60, 2, 10, QLatin1Char('0'));
}

double timeOrigin(double near, double step, TimeAxis kind)
{
    if (kind != TimeAxis::Clock || !std::isfinite(near))
        return 0;
    const int offset = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(near * 1000)).offsetFromUtc();
    return step >= 60 ? -static_cast<double>(offset) : 0;
}

AxisScale timeScale(double lo, double hi, double pixels, double charWidth, TimeAxis kind)
{
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return {0, 1, 0.2};
    if (hi < lo)
        std::swap(lo, hi);
    if (hi == lo)
        hi = lo + 1;
    const int ticks = charWidth > 0 && pixels > 0 ? std::clamp(static_cast<int>(pixels / (10 * charWidth + 14)), 1, 10) : 5;
    const double step = niceTimeStep(hi - lo, ticks);
    const double origin = timeOrigin(lo, step, kind);
    AxisScale s{origin + std::floor((lo - origin) / step + 1e-9) * step, origin + std::ceil((hi - origin) / step - 1e-9) * step,
                step};
    if (kind == TimeAxis::Elapsed && lo >= 0)
        s.lo = std::max(0.0, s.lo);
    return s;
}

QString clockLabel(double unixSeconds, double step)
{
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(std::llround(unixSeconds * 1000)));
    if (step >= 86400)
        return at.toString(QStringLiteral("d MMM"));
    if (step >= 60)
        return at.toString(QStringLiteral("HH:mm"));
    if (step >= 1)
        return at.toString(QStringLiteral("HH:mm:ss"));
    return at.toString(QStringLiteral("HH:mm:ss")) + QLatin1Char('.') + QString::number(at.time().msec() / 100);
}

TickBudget tickBudget(QSizeF plot, double labelHeight)
{
    if (plot.width() <= 0 || plot.height() <= 0 || labelHeight <= 0)
        return {};
    TickBudget b;
    b.charWidth = 0.62 * labelHeight;
    b.xPixels = plot.width();
    b.y = std::clamp(static_cast<int>(plot.height() / (1.8 * labelHeight)), 1, 8);
    b.x = 10;
    return b;
}

} // namespace pitwall::ui
