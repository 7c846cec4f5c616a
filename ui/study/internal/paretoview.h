#pragma once
// The Pareto view of a study with several objectives (the Study view shows its two pages as tabs before the history):
//
// - Front: the complete trials in the plane of two objectives (the first two; with more, the x and y pickers choose
//   the pair). Trials on the Pareto front (core/store/pareto.h, every objective counted) are green and, with exactly
//   two objectives, joined by the front's staircase (the edge of the region it dominates); dominated trials are in
//   the complete colour; infeasible ones (a constraint > 0) grey; the knee (kneeIndex) is a star. A click on a marker
//   opens that trial (trialActivated).
// - Scatter matrix (three or more objectives): every pair at once (paretomatrix.h); a click draws a pair on the front.
// - Hypervolume: the front's hypervolume after each counted trial (hypervolumeHistory), from defaultReference (the
//   worst counted values pushed 10 % out), named in the chart's title.
//
// The widget is the front's page (pickers and chart); the hypervolume chart is a second page the owner places.
// The points are computed off the GUI thread with the Study view's frame (computeParetoFrame); setFrame only draws.

#include "ui/study/internal/paretomatrix.h"

#include "core/hpo/triallabels.h"
#include "core/store/records.h"

#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;

namespace pitwall::ui {

class ChartView;
class MarkerLayer;

struct ParetoFrame {
    int x = 0, y = 1; // the objectives drawn (indices)
    // Feasible complete trials off the front, on it (trial order), infeasible complete trials; in objective units.
    QList<QPointF> dominated, front, infeasible;
    std::vector<int> frontTrials;            // the front's trial numbers, in the order of `front`
    QList<QPointF> staircase;                // two objectives: the front's edge, in the x objective's better-first order
    std::vector<std::pair<QPointF, int>> hits; // every drawn point and its trial number
    std::optional<int> kneeTrial;
    QPointF knee;
    QList<QPointF> hypervolume;              // (trial number, hypervolume of the front so far)
    std::vector<double> reference;           // the hypervolume's reference (empty: no counted trial)
    // Named points of the space (the study's labels, core/hpo/triallabels.h) that drawn trials match, in the labels'
    // order: each label's trials and their points.
    struct Named {
        QString name;
        QList<QPointF> points;
        std::vector<int> trials;
    };
    std::vector<Named> named;
    // Three or more objectives: every drawn trial in every objective, for the scatter matrix.
    std::vector<ParetoMatrix::Point> matrix;
};

// Pure: any thread. x and y are clamped to the objectives there are.
ParetoFrame computeParetoFrame(const std::vector<TrialRecord>& trials, const std::vector<StudyDirection>& directions,
                               int x, int y, const std::vector<TrialLabel>& labels = {});

class ParetoView : public QWidget {
    Q_OBJECT
public:
    explicit ParetoView(QWidget* parent = nullptr);

    // Draws `frame` for objectives named `names` with `directions` (the pickers follow the names).
    void setFrame(ParetoFrame frame, const std::vector<StudyDirection>& directions, const std::vector<std::string>& names);
    const ParetoFrame& frame() const { return m_frame; }

    ChartView* front() const { return m_front; }
    ChartView* hypervolume() const { return m_hypervolume; }
    // The scatter matrix page (three or more objectives), placed by the owner as the hypervolume page is.
    ParetoMatrix* matrix() const { return m_matrix; }
    MarkerLayer* markers() const { return m_markers; }
    QComboBox* xPicker() const { return m_xPick; }
    QComboBox* yPicker() const { return m_yPick; }
    // The objectives the pickers choose (x, y).
    std::pair<int, int> axes() const;
    // The trial whose marker is within 8 px of a view position of the front chart, nearest first; nullopt: none.
    std::optional<int> trialAt(const QPoint& viewPos) const;

    // "loss (minimised)" for the axis titles.
    static QString objectiveLabel(const std::vector<std::string>& names, const std::vector<StudyDirection>& directions,
                                  int index);
    // Every objective's label, as a picker of objectives lists them.
    static QStringList objectiveLabels(const std::vector<std::string>& names,
                                       const std::vector<StudyDirection>& directions);
    // Gives `pick` these items (replaced only when they differ, so an open popup stays) and selects `index`.
    static void setPickerItems(QComboBox* pick, const QStringList& items, int index);

Q_SIGNALS:
    void trialActivated(int number);
    void axesChanged(); // the user picked another pair of objectives: the Study view computes again
    void frontWanted(); // a cell of the scatter matrix was chosen: its pair is on the front page now

private:
    ChartView* m_front = nullptr;
    ChartView* m_hypervolume = nullptr;
    ParetoMatrix* m_matrix = nullptr;
    MarkerLayer* m_markers = nullptr;
    QComboBox* m_xPick = nullptr;
    QComboBox* m_yPick = nullptr;
    QWidget* m_pickers = nullptr;
    ParetoFrame m_frame;
    void drawNamed(const QPalette& palette); // the frame's named points on the front chart
    void drawHypervolume(const QColor& frontColor); // the frame's hypervolume history and its reference
    std::size_t m_namedSeries = 0; // "named:I" series made so far (reused; the unused ones are emptied)
};

} // namespace pitwall::ui
