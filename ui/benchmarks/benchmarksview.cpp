#include "ui/benchmarks/benchmarksview.h"

#include "ui/charts/chartview.h"
#include "ui/exporting.h"
#include "ui/poller/storepoller.h"
#include "ui/theme.h"

#include "core/util/timefmt.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

const QString kDrivingScore = QStringLiteral("Driving Score \u2191");
// Its route-level standard error: a column with several seeds, a number in every record with driving.
const QStringList kDrivingScoreErrors = {QStringLiteral("DS s.e."), QStringLiteral("driving_score_stderr")};

// The figure a stored cell holds: a number, or the mean of "45.2 ± 3.1"; none for "–" or text.
std::optional<double> figureOf(const Json& results, const QString& key)
{
    if (!results.is_object() || !results.contains(key.toStdString()))
        return std::nullopt;
    const Json& value = results[key.toStdString()];
    if (value.is_number())
        return value.get<double>();
    if (!value.is_string())
        return std::nullopt;
    bool ok = false;
    const double v =
        QString::fromStdString(value.get<std::string>()).trimmed().section(QLatin1Char(' '), 0, 0).toDouble(&ok);
    return ok && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The benchmark file of a "variants" record (`name/variant`) and the variant's name.
QString benchmarkOf(const BenchmarkRecord& b)
{
    return QString::fromStdString(b.name).section(QLatin1Char('/'), 0, 0);
}

QString variantOf(const BenchmarkRecord& b)
{
    if (b.results.is_object() && b.results.contains("Variant") && b.results["Variant"].is_string())
        return QString::fromStdString(b.results["Variant"].get<std::string>());
    return QString::fromStdString(b.name).section(QLatin1Char('/'), 1);
}

// The quality column of `pitwall bench variants` ("Waypoint L1 (m) ↓", "mAP50-95 ↑"): the first key that is
// neither one of the fixed columns, nor the driving score or its standard error, nor the study.
QString qualityKey(const std::vector<const BenchmarkRecord*>& rows, const QStringList& fixed)
{
    std::set<QString> keys;
    for (const BenchmarkRecord* b : rows)
        if (b->results.is_object())
            for (const auto& item : b->results.items())
                keys.insert(QString::fromStdString(item.key()));
    for (const QString& k : keys)
        if (!fixed.contains(k) && k != kDrivingScore && !kDrivingScoreErrors.contains(k) && k != QLatin1String("study"))
            return k;
    return {};
}

// For each variant, the first earlier variant with the same configuration (its parameters apart from the
// experiment's name), or -1.
std::vector<int> identicalTo(const std::vector<const BenchmarkRecord*>& rows)
{
    std::vector<Json> configs;
    for (const BenchmarkRecord* b : rows) {
        Json config = b->parameters;
        if (config.is_object())
            config.erase("experiment.name");
        configs.push_back(std::move(config));
    }
    std::vector<int> out(rows.size(), -1);
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < i && out[i] < 0; ++j)
            if (configs[i] == configs[j])
                out[i] = static_cast<int>(j);
    return out;
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
    // Names elide on one line (word wrap would show "+ …", the first word and nothing else); columns sized to their
    // figures and two-line headers, without room kept for a sort arrow (a click still sorts).
    m_table->setWordWrap(false);
    addCsvExportMenu(m_table);
    m_benchmark = new QComboBox(this);
    m_benchmark->setObjectName("benchmarkFile");
    m_benchmark->setMinimumContentsLength(20);
    m_benchmarkLabel = new QLabel(tr("Benchmark:"), this);

    m_tradeoff = new ChartView(tr("Training time vs driving score"), this);
    m_tradeoff->setObjectName("benchmarkTradeoff");
    m_tradeoff->setAxisTitles(tr("total training time (s)"), kDrivingScore);
    m_stageTimes = new BarChartView(tr("Stage times"), BarChartView::Layout::Stacked, this);
    m_stageTimes->setObjectName("benchmarkStageTimes");
    m_stageTimes->setValueTitle(tr("seconds"));
    m_ladder = new BarChartView(tr("Optimisation ladder"), BarChartView::Layout::Grouped, this);
    m_ladder->setObjectName("benchmarkLadder");
    m_ladder->setValueTitle(tr("FPS"));
    m_computeFps = new ChartView(tr("Compute FPS per mode"), this);
    m_computeFps->setObjectName("benchmarkComputeFps");
    m_computeFps->setAxisTitles(tr("batch size"), tr("FPS"));
    m_fullFps = new ChartView(tr("Full FPS per mode"), this);
    m_fullFps->setObjectName("benchmarkFullFps");
    m_fullFps->setAxisTitles(tr("batch size"), tr("FPS"));
    m_charts = new QWidget(this);
    // One row per suite's charts (hidden charts take no room); the trade-off, with its labels, gets the most.
    auto* variantsRow = new QHBoxLayout;
    variantsRow->addWidget(m_tradeoff, 3);
    variantsRow->addWidget(m_stageTimes, 2);
    variantsRow->addWidget(m_ladder, 2);
    auto* partitionsRow = new QHBoxLayout;
    partitionsRow->addWidget(m_computeFps);
    partitionsRow->addWidget(m_fullFps);
    auto* charts = new QVBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addLayout(variantsRow);
    charts->addLayout(partitionsRow);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Suite:"), this));
    bar->addWidget(m_suite);
    bar->addWidget(m_benchmarkLabel);
    bar->addWidget(m_benchmark);
    bar->addWidget(m_note, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_charts);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    connect(m_suite, &QComboBox::currentTextChanged, this, [this] { fill(); });
    connect(m_benchmark, &QComboBox::currentTextChanged, this, [this] { fill(); });
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

void BenchmarksView::showBenchmark(const QString& name)
{
    m_benchmark->setCurrentText(name);
}

QStringList BenchmarksView::benchmarks() const
{
    QStringList out;
    for (int i = 0; i < m_benchmark->count(); ++i)
        out << m_benchmark->itemText(i);
    return out;
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

std::vector<const BenchmarkRecord*> BenchmarksView::rowsShown() const
{
    const QString suite = m_suite->currentText();
    const bool variants = suite == QLatin1String("variants");
    std::vector<const BenchmarkRecord*> rows;
    for (const BenchmarkRecord& b : m_records)
        if (QString::fromStdString(b.suite) == suite && (!variants || benchmarkOf(b) == m_benchmark->currentText()))
            rows.push_back(&b);
    return rows;
}

void BenchmarksView::fill()
{
    const bool variants = m_suite->currentText() == QLatin1String("variants");
    {
        // The benchmark files of the variants suite, keeping the one shown.
        QStringList names;
        if (variants)
            for (const BenchmarkRecord& b : m_records)
                if (b.suite == "variants" && !names.contains(benchmarkOf(b)))
                    names << benchmarkOf(b);
        const QString current = m_benchmark->currentText();
        const QSignalBlocker blocker(m_benchmark);
        m_benchmark->clear();
        m_benchmark->addItems(names);
        m_benchmark->setCurrentIndex(std::max(0, static_cast<int>(names.indexOf(current))));
        m_benchmark->setVisible(variants);
        m_benchmarkLabel->setVisible(variants);
    }
    const std::vector<const BenchmarkRecord*> rows = rowsShown();
    fillTable(rows);
    const bool partitions = m_suite->currentText() == QLatin1String("partitions");
    m_tradeoff->setVisible(variants);
    m_stageTimes->setVisible(variants);
    m_ladder->setVisible(variants && m_benchmark->currentText() == QLatin1String(kLadderBenchmark));
    m_computeFps->setVisible(partitions);
    m_fullFps->setVisible(partitions);
    m_charts->setVisible(variants || partitions);
    if (variants)
        drawVariants(rows);
    if (partitions)
        drawPartitions(rows);
}

void BenchmarksView::fillTable(const std::vector<const BenchmarkRecord*>& rows)
{
    QStringList columns;
    const bool variants = m_suite->currentText() == QLatin1String("variants");
    std::set<QString> keys;
    for (const BenchmarkRecord* b : rows)
        if (b->results.is_object())
            for (const auto& [k, v] : b->results.items())
                keys.insert(QString::fromStdString(k));
    if (variants) {
        columns << QStringLiteral("#"); // the key the charts label their points and bars with
        // The CLI's order: the fixed columns, the quality column, the driving score and its error, the rest.
        QStringList ordered = variantsOrder();
        ordered << qualityKey(rows, variantsOrder()) << kDrivingScore << kDrivingScoreErrors;
        for (const QString& c : ordered)
            if (keys.count(c) && !columns.contains(c))
                columns << c;
    }
    if (!variants || columns.size() <= 1)
        columns << tr("Name");
    for (const QString& k : keys)
        if (!columns.contains(k) && k != QLatin1String("study"))
            columns << k;
    if (keys.count(QStringLiteral("study")))
        columns << QStringLiteral("study");
    columns << tr("Host") << tr("Time");

    const std::vector<int> sameAs = variants ? identicalTo(rows) : std::vector<int>(rows.size(), -1);
    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setColumnCount(columns.size());
    // Headers of two lines ("Compute / FPS", "Driving / Score ↑"): the figures' columns as narrow as their numbers.
    QStringList headers;
    for (const QString& c : columns)
        headers << (c.size() > 8 && c.contains(QLatin1Char(' ')) ? QString(c).replace(c.indexOf(QLatin1Char(' ')), 1, QLatin1Char('\n'))
                                                                 : c);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const BenchmarkRecord& b = *rows[static_cast<std::size_t>(r)];
        QString tooltip = QString::fromStdString(b.name + "\n" + b.parameters.dump(2));
        const int same = sameAs[static_cast<std::size_t>(r)];
        if (same >= 0)
            tooltip = tr("The same configuration as #%1 (%2): its figures differ by noise only.\n")
                          .arg(same + 1)
                          .arg(variantOf(*rows[static_cast<std::size_t>(same)])) +
                      tooltip;
        for (int c = 0; c < columns.size(); ++c) {
            const std::string key = columns[c].toStdString();
            QString text;
            if (columns[c] == QLatin1String("#"))
                text = QString::number(r + 1) + (same >= 0 ? tr(" ≡ #%1").arg(same + 1) : QString());
            else if (columns[c] == tr("Name"))
                text = QString::fromStdString(b.name);
            else if (columns[c] == tr("Host"))
                text = QString::fromStdString(b.host);
            else if (columns[c] == tr("Time"))
                text = QString::fromStdString(formatTimestamp(b.time)).left(19);
            else if (b.results.is_object() && b.results.contains(key))
                text = cellText(b.results[key]);
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tooltip);
            if (columns[c] == QLatin1String("#"))
                item->setData(Qt::UserRole, r + 1);
            m_table->setItem(r, c, item);
        }
    }
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setSortIndicatorShown(false); // setSortingEnabled shows it
    m_table->resizeColumnsToContents();
    // A long variant name (a whole override string) elides in the middle at a quarter of the table, so that the
    // figures stay in sight; its full text is in the tooltip.
    m_table->setTextElideMode(Qt::ElideMiddle);
    const int nameColumn = std::max(columns.indexOf(QStringLiteral("Variant")), columns.indexOf(tr("Name")));
    const int cap = std::max(140, m_table->viewport()->width() / 4);
    if (nameColumn >= 0 && m_table->columnWidth(nameColumn) > cap)
        m_table->setColumnWidth(nameColumn, cap);
    m_note->setText(rows.empty()
                        ? tr("No benchmark records in this database. Run `pitwall bench variants …` to add some.")
                        : tr("%n record(s)", nullptr, static_cast<int>(rows.size())));
}

void BenchmarksView::drawVariants(const std::vector<const BenchmarkRecord*>& rows)
{
    const QString quality = qualityKey(rows, variantsOrder());
    bool driving = false;
    for (const BenchmarkRecord* b : rows)
        driving = driving || figureOf(b->results, kDrivingScore).has_value();
    const QString scoreKey = driving ? kDrivingScore : quality;
    m_tradeoff->setTitle(driving ? tr("Training time vs driving score")
                                          : tr("Training time vs %1").arg(scoreKey));
    m_tradeoff->setAxisTitles(tr("total training time (s)"), scoreKey);
    m_tradeoff->removeAll();
    QStringList names;
    std::map<QString, QList<double>> columns; // stored figure per variant, NaN where none
    for (const BenchmarkRecord* b : rows) {
        const QString name = variantOf(*b);
        names << name;
        for (const QString& key : {QStringLiteral("Pretrain (s)"), QStringLiteral("Post-train (s)"),
                                   QStringLiteral("Compute FPS"), QStringLiteral("Full FPS")})
            columns[key] << figureOf(b->results, key).value_or(std::nan(""));
        // One series per variant, so that each point carries its variant's name as its label.
        const std::optional<double> time = figureOf(b->results, QStringLiteral("Total (s)"));
        const std::optional<double> score = figureOf(b->results, scoreKey);
        if (!time || !score)
            continue;
        // Labelled by its number (the table's # column): names would print over each other; the legend names it.
        const QString number = QString::number(names.size());
        auto* point = new QScatterSeries;
        point->setName(number + QStringLiteral("  ") + name);
        point->setColor(seriesColor(static_cast<int>(names.size()) - 1, palette()));
        point->setBorderColor(point->color());
        point->setMarkerSize(11);
        point->setPointLabelsFormat(number);
        point->setPointLabelsVisible(true);
        point->setPointLabelsColor(palette().color(QPalette::Text));
        point->setPointLabelsClipping(false);
        m_tradeoff->addSeries(name, point);
        m_tradeoff->setPoints(point, {QPointF(*time, *score)});
    }
    m_tradeoff->fitAxes();
    // Bars under their names when every name fits its bar's width; by number otherwise ("+ p…" and "+ p…" could not
    // be told apart): the tooltip and the table's # column name them.
    QStringList numbers, key;
    const auto fitting = [&](const BarChartView* chart) {
        const double plot = chart->chart()->plotArea().width() > 0 ? chart->chart()->plotArea().width()
                                                                   : chart->width() * 0.8;
        const double room = plot / std::max<qsizetype>(1, names.size()) - 8;
        const QFontMetricsF metrics(chart->chart()->axes(Qt::Horizontal).value(0)
                                        ? chart->chart()->axes(Qt::Horizontal).value(0)->labelsFont()
                                        : chart->font());
        return std::all_of(names.cbegin(), names.cend(),
                           [&](const QString& n) { return metrics.horizontalAdvance(n) <= room; });
    };
    const bool namesFit = fitting(m_stageTimes) &&
                          (m_benchmark->currentText() != QLatin1String(kLadderBenchmark) || fitting(m_ladder));
    for (int i = 0; i < names.size(); ++i) {
        numbers << (namesFit ? names[i] : QString::number(i + 1));
        key << QStringLiteral("%1  %2").arg(i + 1).arg(names[i]);
    }
    m_stageTimes->setBars(numbers, {{tr("Pretrain (s)"), columns[QStringLiteral("Pretrain (s)")]},
                                    {tr("Post-train (s)"), columns[QStringLiteral("Post-train (s)")]}});
    m_stageTimes->setToolTip(key.join(QLatin1Char('\n')));
    if (m_benchmark->currentText() == QLatin1String(kLadderBenchmark)) {
        m_ladder->setBars(numbers, {{tr("Compute FPS"), columns[QStringLiteral("Compute FPS")]},
                                    {tr("Full FPS"), columns[QStringLiteral("Full FPS")]}});
        m_ladder->setToolTip(key.join(QLatin1Char('\n')));
    }
}

void BenchmarksView::drawPartitions(const std::vector<const BenchmarkRecord*>& rows)
{
    // A line per mode, in the order the modes were measured; points by batch size.
    QStringList modes;
    std::map<QString, std::map<double, std::pair<double, double>>> cells; // mode -> batch -> (compute, full)
    for (const BenchmarkRecord* b : rows) {
        const QString mode = b->parameters.contains("mode") && b->parameters["mode"].is_string()
                                 ? QString::fromStdString(b->parameters["mode"].get<std::string>())
                                 : QString::fromStdString(b->name).section(QLatin1Char('/'), 0, 0);
        const std::optional<double> batch = figureOf(b->parameters, QStringLiteral("batch_size"));
        if (!batch)
            continue;
        if (!modes.contains(mode))
            modes << mode;
        cells[mode][*batch] = {figureOf(b->results, QStringLiteral("compute_fps")).value_or(std::nan("")),
                               figureOf(b->results, QStringLiteral("full_fps")).value_or(std::nan(""))};
    }
    for (ChartView* chart : {m_computeFps, m_fullFps}) {
        chart->removeAll();
        for (const QString& mode : std::as_const(modes)) {
            QList<QPointF> points;
            for (const auto& [batch, fps] : cells[mode]) {
                const double y = chart == m_computeFps ? fps.first : fps.second;
                if (std::isfinite(y))
                    points << QPointF(batch, y);
            }
            QLineSeries* series = chart->line(mode);
            series->setPointsVisible(true);
            chart->setPoints(series, points);
        }
        chart->fitAxes();
    }
}

} // namespace pitwall::ui
