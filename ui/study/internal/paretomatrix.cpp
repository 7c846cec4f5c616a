#include "ui/study/internal/paretomatrix.h"

#include "ui/theme.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pitwall::ui {

namespace {

constexpr int kMargin = 4;
constexpr qreal kPointRadius = 2.5;

QString number(double v)
{
    return QString::number(v, 'g', 4);
}

} // namespace

ParetoMatrix::ParetoMatrix(QWidget* parent) : QWidget(parent)
{
    setObjectName("paretoMatrix");
    setMouseTracking(true);
    setMinimumSize(120, 120);
}

void ParetoMatrix::setData(std::vector<Point> points, QStringList names, std::vector<StudyDirection> directions,
                           std::pair<int, int> chosen)
{
    m_points = std::move(points);
    m_names = std::move(names);
    m_directions = std::move(directions);
    m_chosen = chosen;
    m_ranges.clear();
    m_extents.clear();
    for (int o = 0; o < objectives(); ++o) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const Point& p : m_points)
            if (o < static_cast<int>(p.values.size())) {
                lo = std::min(lo, p.values[o]);
                hi = std::max(hi, p.values[o]);
            }
        if (!std::isfinite(lo))
            lo = 0, hi = 1;
        m_extents.emplace_back(lo, hi);
        const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(std::abs(lo) * 0.05, 0.5);
        m_ranges.emplace_back(lo - pad, hi + pad);
    }
    update();
}

QSize ParetoMatrix::cellSize() const
{
    // The whole page: cells as wide and as tall as it allows (a short row of the Study view still reads).
    const int k = std::max(1, objectives());
    return {std::max(10, (width() - 2 * kMargin) / k), std::max(10, (height() - 2 * kMargin) / k)};
}

QRect ParetoMatrix::cellRect(int row, int column) const
{
    const QSize s = cellSize();
    return QRect(kMargin + column * s.width(), kMargin + row * s.height(), s.width() - 2, s.height() - 2);
}

std::optional<std::pair<int, int>> ParetoMatrix::cellAt(const QPoint& pos) const
{
    for (int r = 0; r < objectives(); ++r)
        for (int c = 0; c < objectives(); ++c)
            if (cellRect(r, c).contains(pos))
                return std::pair{r, c};
    return std::nullopt;
}

std::pair<double, double> ParetoMatrix::range(int objective) const
{
    return objective < static_cast<int>(m_ranges.size()) ? m_ranges[objective] : std::pair{0.0, 1.0};
}

QPointF ParetoMatrix::position(int row, int column, double x, double y) const
{
    const QRectF cell = QRectF(cellRect(row, column)).adjusted(3, 3, -3, -3);
    const auto [x0, x1] = range(column);
    const auto [y0, y1] = range(row);
    return {cell.left() + (x - x0) / (x1 - x0) * cell.width(), cell.bottom() - (y - y0) / (y1 - y0) * cell.height()};
}

std::optional<int> ParetoMatrix::trialAt(const QPoint& pos) const
{
    const auto cell = cellAt(pos);
    if (!cell || cell->first == cell->second)
        return std::nullopt;
    const auto [row, column] = *cell;
    std::optional<int> best;
    double bestDistance = 6.0 * 6.0;
    // Later kinds are drawn on top: the front wins a tie.
    for (Kind kind : {Kind::Front, Kind::Infeasible, Kind::Dominated})
        for (const Point& p : m_points) {
            if (p.kind != kind)
                continue;
            const QPointF at = position(row, column, p.values[column], p.values[row]);
            const double d = std::pow(at.x() - pos.x(), 2) + std::pow(at.y() - pos.y(), 2);
            if (d < bestDistance) {
                bestDistance = d;
                best = p.trial;
            }
        }
    return best;
}

void ParetoMatrix::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QColor colours[] = {stateColor("COMPLETE", pal), pal.color(QPalette::PlaceholderText),
                              stateColor("BEST", pal)};
    if (objectives() < 3) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("A study with three or more objectives shows every pair here."));
        return;
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.5, font().pointSizeF() * 0.85));
    painter.setFont(small);
    for (int r = 0; r < objectives(); ++r)
        for (int c = 0; c < objectives(); ++c) {
            const QRect cell = cellRect(r, c);
            const bool chosen = c == m_chosen.first && r == m_chosen.second;
            painter.setPen(QPen(chosen ? colours[2] : pal.color(QPalette::Mid), chosen ? 2 : 1));
            painter.setBrush(r == c ? pal.color(QPalette::AlternateBase) : pal.color(QPalette::Base));
            painter.drawRect(cell);
            if (r == c) { // the objective, its direction and the range every cell of its row and column draws
                const auto [lo, hi] = m_extents[r];
                const bool down = m_directions.size() > static_cast<std::size_t>(r) &&
                                  m_directions[r] == StudyDirection::Minimize;
                painter.setPen(pal.color(QPalette::Text));
                const QRect inside = cell.adjusted(3, 2, -3, -2);
                const QFontMetrics metrics(painter.font());
                const QString lines = metrics.elidedText(m_names.value(r), Qt::ElideMiddle, inside.width()) +
                                      QLatin1Char('\n') +
                                      metrics.elidedText((down ? tr("↓ lower is better") : tr("↑ higher is better")),
                                                         Qt::ElideRight, inside.width()) +
                                      QLatin1Char('\n') +
                                      metrics.elidedText(number(lo) + tr(" to ") + number(hi), Qt::ElideRight,
                                                         inside.width());
                painter.drawText(inside, Qt::AlignCenter, lines);
                continue;
            }
            painter.save();
            painter.setClipRect(cell.adjusted(1, 1, -1, -1));
            for (Kind kind : {Kind::Dominated, Kind::Infeasible, Kind::Front}) {
                const QColor colour = colours[static_cast<int>(kind)];
                painter.setPen(Qt::NoPen);
                painter.setBrush(colour);
                for (const Point& p : m_points)
                    if (p.kind == kind)
                        painter.drawEllipse(position(r, c, p.values[c], p.values[r]), kPointRadius, kPointRadius);
            }
            painter.restore();
        }
}

void ParetoMatrix::mouseReleaseEvent(QMouseEvent* event)
{
    const auto cell = cellAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && cell && cell->first != cell->second) {
        m_chosen = {cell->second, cell->first};
        update();
        Q_EMIT pairChosen(cell->second, cell->first);
    }
    QWidget::mouseReleaseEvent(event);
}

bool ParetoMatrix::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const auto cell = cellAt(help->pos());
    QString text;
    if (const auto trial = trialAt(help->pos())) {
        for (const Point& p : m_points)
            if (p.trial == *trial) {
                QStringList values;
                for (int o = 0; o < objectives(); ++o)
                    values << m_names.value(o) + QStringLiteral(" ") + number(p.values[o]);
                text = tr("#%1%2: %3")
                           .arg(*trial)
                           .arg(p.kind == Kind::Front ? tr(" (front)")
                                                      : p.kind == Kind::Infeasible ? tr(" (infeasible)") : QString())
                           .arg(values.join(QStringLiteral(", ")));
            }
    } else if (cell && cell->first != cell->second) {
        text = tr("x: %1, y: %2. Click to draw this pair on the Pareto front.")
                   .arg(m_names.value(cell->second), m_names.value(cell->first));
    } else if (cell) {
        text = m_names.value(cell->first);
    }
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, this);
    return true;
}

} // namespace pitwall::ui
