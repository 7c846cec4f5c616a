#include "ui/views/benchmarksview.h"

#include "ui/exporting.h"
#include "ui/storepoller.h"

#include "core/util/timefmt.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

namespace pitwall::ui {

namespace {

// The columns of LEAD's speed table as `pitwall bench variants` prints them; the quality column (its name
// carries the metric) and anything else follow.
const QStringList& variantsOrder()
{
    static const QStringList order = {"Variant",   "Pretrain (s)", "Post-train (s)",
                                      "Total (s)", "Compute FPS",  "Full FPS"};
    return order;
}

QString cellText(const Json& value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_number_float())
        return QString::number(value.get<double>(), 'g', 6);
    return QString::fromStdString(value.dump());
}

} // namespace

BenchmarksView::BenchmarksView(QWidget* parent) : QWidget(parent)
{
    setObjectName("benchmarksView");
    m_suite = new QComboBox(this);
    m_suite->setObjectName("benchmarkSuite");
    m_suite->setMinimumContentsLength(16);
    m_note = new QLabel(this);
    m_table = new QTableWidget(this);
    m_table->setObjectName("benchmarks");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    addCsvExportMenu(m_table);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Suite:"), this));
    bar->addWidget(m_suite);
    bar->addWidget(m_note, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    connect(m_suite, &QComboBox::currentTextChanged, this, [this] { fill(); });
}

QStringList BenchmarksView::suites() const
{
    QStringList out;
    for (int i = 0; i < m_suite->count(); ++i)
        out << m_suite->itemText(i);
    return out;
}

void BenchmarksView::showSuite(const QString& suite)
{
    m_suite->setCurrentText(suite);
}

void BenchmarksView::showSnapshot(const StoreSnapshot& snapshot)
{
    m_records = snapshot.benchmarks;
    m_haveSnapshot = true;
    std::set<QString> names;
    for (const BenchmarkRecord& b : m_records)
        names.insert(QString::fromStdString(b.suite));
    const QString current = m_suite->currentText();
    {
        const QSignalBlocker blocker(m_suite);
        m_suite->clear();
        for (const QString& name : names)
            m_suite->addItem(name);
        const int keep = m_suite->findText(current);
        const int variants = m_suite->findText(QStringLiteral("variants"));
        m_suite->setCurrentIndex(keep >= 0 ? keep : std::max(variants, 0));
    }
    fill();
}

void BenchmarksView::fill()
{
    const QString suite = m_suite->currentText();
    std::vector<const BenchmarkRecord*> rows;
    for (const BenchmarkRecord& b : m_records)
        if (QString::fromStdString(b.suite) == suite)
            rows.push_back(&b);
    QStringList columns;
    const bool variants = suite == QLatin1String("variants");
    std::set<QString> keys;
    for (const BenchmarkRecord* b : rows)
        if (b->results.is_object())
            for (const auto& [k, v] : b->results.items())
                keys.insert(QString::fromStdString(k));
    if (variants)
        for (const QString& c : variantsOrder())
            if (keys.count(c))
                columns << c;
    if (!variants || columns.isEmpty())
        columns << tr("Name");
    for (const QString& k : keys)
        if (!columns.contains(k) && k != QLatin1String("study"))
            columns << k;
    if (keys.count(QStringLiteral("study")))
        columns << QStringLiteral("study");
    columns << tr("Host") << tr("Time");

    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setColumnCount(columns.size());
    m_table->setHorizontalHeaderLabels(columns);
    m_table->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const BenchmarkRecord& b = *rows[static_cast<std::size_t>(r)];
        const QString tooltip = QString::fromStdString(b.name + "\n" + b.parameters.dump(2));
        for (int c = 0; c < columns.size(); ++c) {
            const std::string key = columns[c].toStdString();
            QString text;
            if (columns[c] == tr("Name"))
                text = QString::fromStdString(b.name);
            else if (columns[c] == tr("Host"))
                text = QString::fromStdString(b.host);
            else if (columns[c] == tr("Time"))
                text = QString::fromStdString(formatTimestamp(b.time)).left(19);
            else if (b.results.is_object() && b.results.contains(key))
                text = cellText(b.results[key]);
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tooltip);
            m_table->setItem(r, c, item);
        }
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    m_note->setText(rows.empty()
                        ? tr("No benchmark records in this database. Run `pitwall bench variants …` to add some.")
                        : tr("%n record(s)", nullptr, static_cast<int>(rows.size())));
}

} // namespace pitwall::ui
