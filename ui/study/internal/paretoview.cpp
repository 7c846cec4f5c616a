#include "ui/study/internal/paretoview.h"

#include "ui/charts/chartview.h"
#include "ui/charts/markerlayer.h"
#include "ui/theme.h"

#include "core/hpo/hypervolume.h"
#include "core/store/pareto.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pitwall::ui {

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 4);
}

// The front's edge in the plane of objectives x and y: from each front point along x to the next one's x, then to
// it, with the points in x's better-first order (the corner (next x, this y) is where the dominated region bends).
QList<QPointF> staircaseOf(QList<QPointF> front, StudyDirection xDirection)
{
    std::sort(front.begin(), front.end(), [xDirection](const QPointF& a, const QPointF& b) {
        return xDirection == StudyDirection::Minimize ? a.x() < b.x() : a.x() > b.x();
    });
    QList<QPointF> line;
    for (qsizetype i = 0; i < front.size(); ++i) {
        if (i > 0)
            line << QPointF(front[i].x(), front[i - 1].y());
        line << front[i];
    }
    return line;
}

} // namespace

ParetoFrame computeParetoFrame(const std::vector<TrialRecord>& trials, const std::vector<StudyDirection>& directions,
                               int x, int y, const std::vector<TrialLabel>& labels)
{
    ParetoFrame frame;
    const int objectives = static_cast<int>(directions.size());
    if (objectives < 2)
        return frame;
    frame.x = std::clamp(x, 0, objectives - 1);
    frame.y = std::clamp(y, 0, objectives - 1);
    const std::vector<std::size_t> front = paretoFrontIndices(trials, directions);
    std::vector<bool> onFront(trials.size(), false);
    for (std::size_t i : front)
        onFront[i] = true;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const TrialRecord& t = trials[i];
        if (!countsForFront(t, directions.size()))
            continue;
        const QPointF p(t.values[frame.x], t.values[frame.y]);
        if (!std::isfinite(p.x()) || !std::isfinite(p.y()))
            continue;
        frame.hits.emplace_back(p, t.number);
        if (objectives > 2)
            frame.matrix.push_back({t.values, t.number,
                                    onFront[i]      ? ParetoMatrix::Kind::Front
                                    : isFeasible(t) ? ParetoMatrix::Kind::Dominated
                                                    : ParetoMatrix::Kind::Infeasible});
        if (!labels.empty()) {
            if (frame.named.empty())
                for (const TrialLabel& l : labels)
                    frame.named.push_back({QString::fromStdString(l.name), {}, {}});
            for (const std::string& name : labelsOf(t, labels))
                for (ParetoFrame::Named& n : frame.named)
                    if (n.name == QString::fromStdString(name)) {
                        n.points << p;
                        n.trials.push_back(t.number);
                    }
        }
        if (onFront[i]) {
            frame.front << p;
            frame.frontTrials.push_back(t.number);
        } else if (isFeasible(t)) {
            frame.dominated << p;
        } else {
            frame.infeasible << p;
        }
    }
    std::erase_if(frame.named, [](const ParetoFrame::Named& n) { return n.points.isEmpty(); });
    if (objectives == 2)
        frame.staircase = staircaseOf(frame.front, directions[frame.x]);
    std::vector<std::vector<double>> minimised;
    for (std::size_t i : front)
        minimised.push_back(minimisedValues(trials[i].values, directions));
    if (const auto knee = kneeIndex(minimised)) {
        const TrialRecord& t = trials[front[*knee]];
        frame.kneeTrial = t.number;
        frame.knee = QPointF(t.values[frame.x], t.values[frame.y]);
    }
    frame.reference = defaultReference(trials, directions);
    if (!frame.reference.empty())
        for (const auto& [trial, volume] : hypervolumeHistory(trials, directions, frame.reference))
            if (std::isfinite(volume))
                frame.hypervolume << QPointF(trial, volume);
    return frame;
}

ParetoView::ParetoView(QWidget* parent) : QWidget(parent)
{
    setObjectName("paretoView");
    m_front = new ChartView(tr("Pareto front"), this);
    m_front->setObjectName("paretoFront");
    m_front->setEmptyText(tr("Complete trials appear here, the Pareto front in green, as the search tells them."));
    m_markers = new MarkerLayer(m_front);
    m_front->setPadX(true);
    m_hypervolume = new ChartView(tr("Hypervolume"), this);
    m_hypervolume->setObjectName("hypervolumeHistory");
    m_hypervolume->setAxisTitles(tr("trial"), tr("hypervolume"));
    m_hypervolume->setEmptyText(tr("The front's hypervolume after each complete trial appears here."));
    m_hypervolume->chart()->legend()->hide();
    m_matrix = new ParetoMatrix(this);
    m_matrix->hide();
    connect(m_matrix, &ParetoMatrix::pairChosen, this, [this](int x, int y) {
        m_xPick->setCurrentIndex(x);
        m_yPick->setCurrentIndex(y);
        Q_EMIT axesChanged();
        Q_EMIT frontWanted();
    });
    m_xPick = new QComboBox(this);
    m_xPick->setObjectName("paretoX");
    m_yPick = new QComboBox(this);
    m_yPick->setObjectName("paretoY");
    m_pickers = new QWidget(this);
    auto* pickers = new QHBoxLayout(m_pickers);
    pickers->setContentsMargins(0, 0, 0, 0);
    pickers->addWidget(new QLabel(tr("x:"), m_pickers));
    pickers->addWidget(m_xPick, 1);
    pickers->addWidget(new QLabel(tr("y:"), m_pickers));
    pickers->addWidget(m_yPick, 1);
    m_pickers->setToolTip(tr("The two objectives drawn; the front and the knee count every objective."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pickers);
    layout->addWidget(m_front, 1);
    m_pickers->hide();
    for (QComboBox* pick : {m_xPick, m_yPick})
        connect(pick, &QComboBox::activated, this, [this] { Q_EMIT axesChanged(); });
    connect(m_front, &ChartView::clicked, this, [this](const QPoint& at) {
        if (const auto trial = trialAt(at))
            Q_EMIT trialActivated(*trial);
    });
}

std::pair<int, int> ParetoView::axes() const
{
    if (m_xPick->count() == 0) // nothing drawn yet: the first two
        return {0, 1};
    return {std::max(0, m_xPick->currentIndex()), std::max(0, m_yPick->currentIndex())};
}

QString ParetoView::objectiveLabel(const std::vector<std::string>& names, const std::vector<StudyDirection>& directions,
                                   int index)
{
    const QString name = index < static_cast<int>(names.size()) ? QString::fromStdString(names[index])
                                                                 : tr("objective %1").arg(index + 1);
    const bool min = index < static_cast<int>(directions.size()) && directions[index] == StudyDirection::Minimize;
    return tr("%1 (%2)").arg(name, min ? tr("minimised") : tr("maximised"));
}

QStringList ParetoView::objectiveLabels(const std::vector<std::string>& names,
                                        const std::vector<StudyDirection>& directions)
{
    QStringList labels;
    for (int i = 0; i < static_cast<int>(directions.size()); ++i)
        labels << objectiveLabel(names, directions, i);
    return labels;
}

void ParetoView::setPickerItems(QComboBox* pick, const QStringList& items, int index)
{
    QStringList current;
    for (int i = 0; i < pick->count(); ++i)
        current << pick->itemText(i);
    if (current != items) {
        pick->clear();
        pick->addItems(items);
    }
    pick->setCurrentIndex(index);
}

// Named points: a ring per trial with the label's number beside it (names would print over each other), the legend
// naming each label and its trials; the series made for an earlier frame are reused or emptied.
void ParetoView::drawNamed(const QPalette& pal)
{
    for (std::size_t i = 0; i < std::max(m_frame.named.size(), m_namedSeries); ++i) {
        const QString key = QStringLiteral("named:%1").arg(i);
        auto* series = qobject_cast<QScatterSeries*>(m_front->find(key));
        if (!series) {
            series = new QScatterSeries;
            series->setMarkerSize(14);
            series->setColor(Qt::transparent);
            series->setPointLabelsClipping(false);
            series->setPointLabelsVisible(true);
            m_front->addSeries(key, series);
            ++m_namedSeries;
        }
        const bool used = i < m_frame.named.size();
        QStringList trials;
        if (used)
            for (int t : m_frame.named[i].trials)
                trials << QStringLiteral("#%1").arg(t);
        series->setBorderColor(pal.color(QPalette::Text));
        series->setPointLabelsColor(pal.color(QPalette::Text));
        series->setPointLabelsFormat(QString::number(i + 1));
        series->setName(used ? QStringLiteral("%1  %2 (%3)").arg(i + 1).arg(m_frame.named[i].name, trials.join(", "))
                             : QString());
        m_front->setPoints(series, used ? m_frame.named[i].points : QList<QPointF>{});
        for (QLegendMarker* marker : m_front->chart()->legend()->markers(series))
            marker->setVisible(used);
    }
}

void ParetoView::setFrame(ParetoFrame frame, const std::vector<StudyDirection>& directions,
                          const std::vector<std::string>& names)
{
    m_frame = std::move(frame);
    // The pickers list the objectives; shown only when there are more than two to choose from.
    const QStringList labels = objectiveLabels(names, directions);
    setPickerItems(m_xPick, labels, m_frame.x);
    setPickerItems(m_yPick, labels, m_frame.y);
    m_pickers->setVisible(directions.size() > 2);
    QStringList plainNames;
    for (std::size_t i = 0; i < directions.size(); ++i)
        plainNames << (i < names.size() ? QString::fromStdString(names[i]) : tr("objective %1").arg(i + 1));
    m_matrix->setData(m_frame.matrix, plainNames, directions, {m_frame.x, m_frame.y});

    const QPalette pal = palette();
    const QColor dominatedColor = stateColor("COMPLETE", pal);
    const QColor frontColor = stateColor("BEST", pal);
    const QColor infeasibleColor = pal.color(QPalette::PlaceholderText);
    QLineSeries* dominated = MarkerLayer::legendEntry(m_front, QStringLiteral("dominated"), tr("dominated"), dominatedColor);
    QLineSeries* infeasible =
        MarkerLayer::legendEntry(m_front, QStringLiteral("infeasible"), tr("infeasible"), infeasibleColor);
    QLineSeries* onFront = MarkerLayer::legendEntry(m_front, QStringLiteral("front"),
                                                    tr("front (%1)").arg(m_frame.front.size()), frontColor);
    onFront->setName(tr("front (%1)").arg(m_frame.front.size()));
    QLineSeries* edge = m_front->line(QStringLiteral("edge"));
    edge->setPen(QPen(frontColor, 1.5, Qt::DashLine));
    auto* knee = qobject_cast<QScatterSeries*>(m_front->find(QStringLiteral("knee")));
    if (!knee) {
        knee = new QScatterSeries;
        knee->setMarkerShape(QScatterSeries::MarkerShapeStar);
        knee->setMarkerSize(18);
        m_front->addSeries(QStringLiteral("knee"), knee);
    }
    knee->setColor(frontColor.darker(140));
    knee->setBorderColor(pal.color(QPalette::Base));
    knee->setName(m_frame.kneeTrial ? tr("knee: #%1").arg(*m_frame.kneeTrial) : tr("knee"));
    m_front->setBoundsOnly(dominated, m_frame.dominated);
    m_front->setBoundsOnly(infeasible, m_frame.infeasible);
    m_front->setBoundsOnly(onFront, m_frame.front);
    m_front->setPoints(edge, m_frame.staircase);
    m_front->setPoints(knee, m_frame.kneeTrial ? QList<QPointF>{m_frame.knee} : QList<QPointF>{});
    for (QLegendMarker* marker : m_front->chart()->legend()->markers(edge))
        marker->setVisible(false);
    for (QLegendMarker* marker : m_front->chart()->legend()->markers(infeasible))
        marker->setVisible(!m_frame.infeasible.isEmpty());
    for (QLegendMarker* marker : m_front->chart()->legend()->markers(knee))
        marker->setVisible(m_frame.kneeTrial.has_value());
    drawNamed(pal);
    const QString xLabel = objectiveLabel(names, directions, m_frame.x);
    const QString yLabel = objectiveLabel(names, directions, m_frame.y);
    m_front->setAxisTitles(xLabel, yLabel);
    // A small chart drops its axis titles (ChartView::fitTitles): the tooltip always names both.
    // The named points too: a short chart's legend may not have room for all of them.
    QStringList named;
    for (std::size_t i = 0; i < m_frame.named.size(); ++i) {
        QStringList trials;
        for (int t : m_frame.named[i].trials)
            trials << QStringLiteral("#%1").arg(t);
        named << QStringLiteral("%1  %2 (%3)").arg(i + 1).arg(m_frame.named[i].name, trials.join(", "));
    }
    m_front->setToolTip(tr("x: %1\ny: %2\n%3Click a trial to open it. Drag to zoom, Ctrl+drag a box, double click "
                           "to reset.")
                            .arg(xLabel, yLabel,
                                 named.isEmpty() ? QString() : named.join(QLatin1Char('\n')) + QLatin1Char('\n')));
    QString title = tr("Pareto front: %1 of %2 trials").arg(m_frame.front.size()).arg(m_frame.hits.size());
    if (m_frame.kneeTrial)
        title += tr(", knee #%1").arg(*m_frame.kneeTrial);
    m_front->setTitle(title);
    m_front->fitAxes();
    m_markers->setMarkers({{m_frame.dominated, dominatedColor}, {m_frame.infeasible, infeasibleColor},
                           {m_frame.front, frontColor}},
                          QImage(), MarkerLayer::Geometry{});
    drawHypervolume(frontColor);
}

void ParetoView::drawHypervolume(const QColor& frontColor)
{
    QStringList reference;
    for (double r : m_frame.reference)
        reference << number(r);
    m_hypervolume->setTitle(reference.isEmpty() ? tr("Hypervolume")
                                                : tr("Hypervolume from (%1)").arg(reference.join(QStringLiteral(", "))));
    QLineSeries* volume = m_hypervolume->line(QStringLiteral("hypervolume"), tr("hypervolume"));
    volume->setPen(QPen(frontColor, 2));
    m_hypervolume->setPoints(volume, m_frame.hypervolume);
    m_hypervolume->fitAxes();
    m_hypervolume->setToolTip(
        tr("The volume the front dominates, bounded by the reference: each objective's worst complete value pushed "
           "10 % of its range further. It grows only when a trial joins the front."));
}

std::optional<int> ParetoView::trialAt(const QPoint& viewPos) const
{
    std::optional<int> nearest;
    double best = 8.0 * 8.0;
    for (const auto& [point, trial] : m_frame.hits) {
        const QPoint at = m_front->viewPosAt(point.x(), point.y());
        const double dx = at.x() - viewPos.x(), dy = at.y() - viewPos.y();
        if (dx * dx + dy * dy <= best) {
            best = dx * dx + dy * dy;
            nearest = trial;
        }
    }
    return nearest;
}

} // namespace pitwall::ui
