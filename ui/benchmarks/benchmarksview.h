#pragma once
// The benchmarks view: stored benchmark records as a table per suite, and what the table holds drawn:
// - "variants" (pitwall bench variants; one benchmark file per name prefix, chosen in "Benchmark"): LEAD's
//   speed table columns in their order; training time against driving score (or, without one, the quality
//   column), one labelled point per variant; the stage times as stacked bars; for AutoSpeed's optimisation
//   ladder also compute and full FPS per rung as bars.
// - "partitions" (pitwall bench partitions): compute and full FPS against batch size, a line per mode.
// - any other suite: its results' keys as columns, no chart.
// Parameters go to each row's tooltip. Figures are read from the stored cells ("9.1", "45.2 ± 3.1": the mean).
// Data: the poller's snapshot.

#include "core/store/records.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace pitwall::ui {

class BarChartView;
class ChartView;
struct StoreSnapshot;

// The name of the benchmark file of AutoSpeed's optimisation ladder (configs/autospeed/optimizations.yaml).
inline constexpr const char* kLadderBenchmark = "autospeed-optimizations";

class BenchmarksView : public QWidget {
    Q_OBJECT
public:
    explicit BenchmarksView(QWidget* parent = nullptr);
    void showSnapshot(const StoreSnapshot& snapshot);
    void showSuite(const QString& suite);
    QStringList suites() const;
    // The benchmark files of the "variants" suite (the records' name before the first '/').
    void showBenchmark(const QString& name);
    QStringList benchmarks() const;
    QTableWidget* table() const { return m_table; }
    bool ready() const { return m_haveSnapshot; }

    ChartView* tradeoffChart() const { return m_tradeoff; }
    BarChartView* stageTimesChart() const { return m_stageTimes; }
    BarChartView* ladderChart() const { return m_ladder; }
    ChartView* computeFpsChart() const { return m_computeFps; }
    ChartView* fullFpsChart() const { return m_fullFps; }

private:
    void fill();
    std::vector<const BenchmarkRecord*> rowsShown() const;
    void fillTable(const std::vector<const BenchmarkRecord*>& rows);
    void drawVariants(const std::vector<const BenchmarkRecord*>& rows);
    void drawPartitions(const std::vector<const BenchmarkRecord*>& rows);

    std::vector<BenchmarkRecord> m_records;
    bool m_haveSnapshot = false;
    QComboBox* m_suite = nullptr;
    QLabel* m_benchmarkLabel = nullptr;
    QComboBox* m_benchmark = nullptr;
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
    QWidget* m_charts = nullptr;
    ChartView* m_tradeoff = nullptr;
    BarChartView* m_stageTimes = nullptr;
    BarChartView* m_ladder = nullptr;
    ChartView* m_computeFps = nullptr;
    ChartView* m_fullFps = nullptr;
};

} // namespace pitwall::ui
