#pragma once
// Small painted widgets of the study view: the timeline of trials per logical device and the parameter
// importance bars. They take colours from the palette and export to PNG from their context menu.

#include <QHash>
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace pitwall::ui {

class TrialTimeline : public QWidget {
    Q_OBJECT
public:
    struct Bar {
        QString lane;     // logical device, e.g. "cpu:0.1"
        double start = 0; // Unix seconds
        double end = 0;   // Unix seconds (now for running trials)
        int trial = 0;
        QString state; // COMPLETE, PRUNED, FAIL, RUNNING, WAITING
    };
    explicit TrialTimeline(QWidget* parent = nullptr);
    void setBars(std::vector<Bar> bars);
    const std::vector<Bar>& bars() const { return m_bars; }
    QStringList lanes() const { return m_lanes; }
    QSize sizeHint() const override { return {480, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // The bars drawn into m_barsImage (plot-sized, origin at the plot's top left), a repaint reusing the image until
    // the bars, the plot's size or the palette change. Every bar of a lane covers the same rows: each lane is drawn as
    // one row of pixel columns (a bar covers at least one, later bars over earlier ones) copied to its rows, which
    // takes about a millisecond for 100,000 bars where QPainter's rectangles took 16 ms.
    void drawBars(const QSizeF& plot, double laneHeight, double scale);

    std::vector<Bar> m_bars;
    std::vector<int> m_barLanes; // by m_bars: the lane's index in m_lanes
    QStringList m_lanes;
    QHash<QString, int> m_laneIndex;
    double m_t0 = 0, m_t1 = 1;
    QImage m_barsImage;
    bool m_barsStale = true;
};

class ImportanceBars : public QWidget {
    Q_OBJECT
public:
    explicit ImportanceBars(QWidget* parent = nullptr);
    // Importance shares move a lot while few trials are complete (1.00 for one parameter after 5 trials is
    // noise): below this many the bars are grey and the caption says they are not settled.
    static constexpr int kSettledTrials = 10;
    // (name, importance in [0, 1]), drawn largest first; `trials`: the complete trials they rest on.
    void setValues(std::vector<std::pair<QString, double>> values, const QString& method, int trials);
    const std::vector<std::pair<QString, double>>& values() const { return m_values; }
    int trials() const { return m_trials; }
    bool settled() const { return m_trials >= kSettledTrials; }
    // The line under the bars: how many trials they rest on, and the method.
    QString caption() const;
    QSize sizeHint() const override { return {320, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<std::pair<QString, double>> m_values;
    QString m_method;
    int m_trials = 0;
};

} // namespace pitwall::ui
