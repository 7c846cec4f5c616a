#pragma once
// The benchmarks view: stored benchmark records as a table per suite. The "variants" suite (pitwall bench
// variants) shows LEAD's speed table columns in their order; any other suite shows its results' keys as
// columns. Parameters go to each row's tooltip. Data: the poller's snapshot.

#include "core/store/records.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace pitwall::ui {

struct StoreSnapshot;

class BenchmarksView : public QWidget {
    Q_OBJECT
public:
    explicit BenchmarksView(QWidget* parent = nullptr);
    void showSnapshot(const StoreSnapshot& snapshot);
    void showSuite(const QString& suite);
    QStringList suites() const;
    QTableWidget* table() const { return m_table; }
    bool ready() const { return m_haveSnapshot; }

private:
    void fill();

    std::vector<BenchmarkRecord> m_records;
    bool m_haveSnapshot = false;
    QComboBox* m_suite = nullptr;
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace pitwall::ui
