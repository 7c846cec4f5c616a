#include "ui/study/internal/studywidgets.h"
#include "ui/wording.h"

#include "ui/charts/axisscale.h"
#include "ui/exporting.h"
#include "ui/theme.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace pitwall::ui {

TrialTimeline::TrialTimeline(QWidget* parent) : QWidget(parent)
{
    setObjectName("trialTimeline");
    setMinimumSize(240, 100);
    addPngExportMenu(this);
}

void TrialTimeline::setBars(std::vector<Bar> bars)
{
    m_bars = std::move(bars);
    m_lanes.clear();
    m_t0 = m_t1 = 0;
    bool first = true;
    QHash<QString, int> seen; // lane -> order of first appearance
    m_barLanes.clear();
    m_barLanes.reserve(m_bars.size());
    const QString* last = nullptr; // bars of one lane tend to follow each other: one lookup per run of them
    int lastIndex = 0;
    for (const Bar& b : m_bars) {
        if (!last || *last != b.lane) {
            auto it = seen.constFind(b.lane);
            if (it == seen.constEnd()) {
                it = seen.insert(b.lane, static_cast<int>(m_lanes.size()));
                m_lanes << b.lane;
            }
            last = &b.lane;
            lastIndex = *it;
        }
        m_barLanes.push_back(lastIndex);
        m_t0 = first ? b.start : std::min(m_t0, b.start);
        m_t1 = first ? b.end : std::max(m_t1, b.end);
        first = false;
    }
    const QStringList appearance = m_lanes;
    m_lanes.sort();
    m_laneIndex.clear();
    for (int i = 0; i < m_lanes.size(); ++i)
        m_laneIndex.insert(m_lanes[i], i);
    std::vector<int> sortedIndex(static_cast<std::size_t>(appearance.size()));
    for (int i = 0; i < appearance.size(); ++i)
        sortedIndex[static_cast<std::size_t>(i)] = m_laneIndex.value(appearance[i]);
    for (int& lane : m_barLanes)
        lane = sortedIndex[static_cast<std::size_t>(lane)];
    if (m_t1 <= m_t0)
        m_t1 = m_t0 + 1;
    m_barsStale = true;
    update();
}

void TrialTimeline::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        m_barsStale = true;
}

void TrialTimeline::drawBars(const QSizeF& plot, double laneHeight, double scale)
{
    const qreal ratio = devicePixelRatioF();
    m_barsImage = QImage((plot * ratio).toSize(), QImage::Format_ARGB32_Premultiplied);
    m_barsImage.setDevicePixelRatio(ratio);
    m_barsImage.fill(Qt::transparent);
    const QPalette pal = palette();
    QHash<QString, QRgb> colors; // per state, not per bar: thousands of bars share a handful
    const int width = m_barsImage.width(), height = m_barsImage.height();
    std::vector<std::vector<QRgb>> rows(static_cast<std::size_t>(m_lanes.size())); // per lane, 0: transparent
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const Bar& b = m_bars[i];
        std::vector<QRgb>& row = rows[static_cast<std::size_t>(m_barLanes[i])];
        if (row.empty())
            row.assign(static_cast<std::size_t>(width), 0);
        auto color = colors.constFind(b.state);
        if (color == colors.constEnd())
            color = colors.insert(b.state, qPremultiply(stateColor(b.state.toLatin1().constData(), pal).rgba()));
        const int x0 = std::clamp(static_cast<int>(std::floor((b.start - m_t0) * scale * ratio)), 0, width - 1);
        const int x1 = std::clamp(static_cast<int>(std::ceil((b.end - m_t0) * scale * ratio)), x0 + 1, width);
        std::fill(row.begin() + x0, row.begin() + x1, *color);
    }
    for (std::size_t lane = 0; lane < rows.size(); ++lane) {
        if (rows[lane].empty())
            continue;
        const double top = (static_cast<double>(lane) + 0.15) * laneHeight * ratio;
        const int y0 = std::clamp(static_cast<int>(std::lround(top)), 0, height);
        const int y1 = std::max(std::clamp(static_cast<int>(std::lround(top + 0.7 * laneHeight * ratio)), 0, height),
                                std::min(y0 + 1, height));
        for (int y = y0; y < y1; ++y)
            std::copy(rows[lane].begin(), rows[lane].end(), reinterpret_cast<QRgb*>(m_barsImage.scanLine(y)));
    }
    m_barsStale = false;
}

void TrialTimeline::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::Text));
    const QFontMetrics fm(font());
    p.drawText(QRectF(0, 0, width(), fm.height() + 4), Qt::AlignCenter, tr("Trials per logical device"));
    if (m_bars.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No trial has started yet."));
        return;
    }
    int labelWidth = 0;
    for (const QString& lane : m_lanes)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(lane));
    const QRectF plot(labelWidth + 12, fm.height() + 8, std::max(10, width() - labelWidth - 24),
                      std::max(10, height() - 2 * fm.height() - 16));
    const double laneHeight = plot.height() / m_lanes.size();
    const double scale = plot.width() / (m_t1 - m_t0);
    for (int i = 0; i < m_lanes.size(); ++i) {
        const double y = plot.top() + i * laneHeight;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(4, y, labelWidth + 4, laneHeight), Qt::AlignVCenter | Qt::AlignLeft, m_lanes[i]);
        p.setPen(pal.color(QPalette::Midlight));
        p.drawLine(QPointF(plot.left(), y + laneHeight), QPointF(plot.right(), y + laneHeight));
    }
    const qreal ratio = devicePixelRatioF();
    if (m_barsStale || m_barsImage.size() != (plot.size() * ratio).toSize() || m_barsImage.devicePixelRatio() != ratio)
        drawBars(plot.size(), laneHeight, scale);
    p.drawImage(plot.topLeft(), m_barsImage);
    if (m_bars.size() <= 400) { // trial numbers on bars wide enough for them
        p.setPen(pal.color(QPalette::Base));
        for (const Bar& b : m_bars) {
            const int lane = m_laneIndex.value(b.lane);
            const QRectF bar(plot.left() + (b.start - m_t0) * scale, plot.top() + lane * laneHeight + laneHeight * 0.15,
                             std::max(1.0, (b.end - b.start) * scale), laneHeight * 0.7);
            if (bar.width() > fm.horizontalAdvance(QString::number(b.trial)) + 4)
                p.drawText(bar, Qt::AlignCenter, QString::number(b.trial));
        }
    }
    // Time axis, relative to the first start.
    p.setPen(pal.color(QPalette::Text));
    const double step = niceTimeStep(m_t1 - m_t0, std::max(2, static_cast<int>(plot.width() / 90)));
    for (double t = 0; t <= m_t1 - m_t0 + 1e-9; t += step) {
        const double x = plot.left() + t * scale;
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   timeLabel(t, step));
    }
}

ImportanceBars::ImportanceBars(QWidget* parent) : QWidget(parent)
{
    setObjectName("parameterImportance");
    setMinimumSize(200, 100);
    addPngExportMenu(this);
}

void ImportanceBars::setValues(std::vector<std::pair<QString, double>> values, const QString& method, int trials)
{
    std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    m_values = std::move(values);
    m_method = method;
    m_trials = trials;
    setToolTip(caption());
    update();
}

QString ImportanceBars::caption() const
{
    const QString basis = counted(m_trials, "complete trial", "complete trials");
    if (!settled())
        return tr("From %1 only: not settled below %2. ").arg(basis).arg(kSettledTrials) + m_method;
    return tr("From %1. ").arg(basis) + m_method;
}

void ImportanceBars::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm(font());
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(0, 0, width(), fm.height() + 4), Qt::AlignCenter, tr("Parameter importance"));
    if (m_values.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Needs parameters and 3 complete trials."));
        return;
    }
    int labelWidth = 0;
    for (const auto& [name, v] : m_values)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(name) + 2);
    labelWidth = std::min(labelWidth, width() / 2);
    const double top = fm.height() + 8;
    const double bottom = height() - fm.height() - 6;
    // Rows never shrink below a line of text: the bars that do not fit are counted, not squeezed.
    const double rowHeight =
        std::max<double>(fm.height() + 2, std::min<double>(fm.height() + 8, (bottom - top) / m_values.size()));
    const auto fitting = static_cast<std::size_t>(std::max(0.0, (bottom - top) / rowHeight));
    const std::size_t shown = fitting >= m_values.size() ? m_values.size() : fitting > 0 ? fitting - 1 : 0;
    const double barLeft = labelWidth + 12, barWidth = std::max(10.0, width() - barLeft - 52);
    if (shown < m_values.size()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRectF(4, top + shown * rowHeight, width() - 8, rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("+%n more (enlarge to see them)", nullptr, static_cast<int>(m_values.size() - shown)));
    }
    for (std::size_t i = 0; i < shown; ++i) {
        const double y = top + i * rowHeight;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(4, y, labelWidth, rowHeight), Qt::AlignVCenter | Qt::AlignRight,
                   fm.elidedText(m_values[i].first, Qt::ElideMiddle, labelWidth));
        p.fillRect(QRectF(barLeft, y + rowHeight * 0.15, barWidth * m_values[i].second, rowHeight * 0.7),
                   settled() ? seriesColor(0, pal) : pal.color(QPalette::Mid)); // grey: not settled
        p.drawText(QRectF(barLeft + barWidth * m_values[i].second + 4, y, 48, rowHeight),
                   Qt::AlignVCenter | Qt::AlignLeft, QString::number(m_values[i].second, 'f', 2));
    }
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(4, bottom, width() - 8, fm.height() + 4), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(caption(), Qt::ElideRight, width() - 8));
}

} // namespace pitwall::ui
