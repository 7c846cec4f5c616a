#include "ui/configure/internal/runpicker.h"
#include "ui/locations.h"

#include "ui/compare/compareview.h"
#include "ui/tasks/taskmanager.h"

#include "core/store/store.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace pitwall::ui {

namespace {

// The last stage and the final value of val/loss (else loss) among a run's metric rows.
void summariseMetrics(Store& store, RunSummary& run)
{
    std::int64_t cursor = 0;
    std::optional<double> valLoss, loss;
    for (;;) {
        const std::vector<MetricRow> rows = store.metricsSince(run.id, cursor, 50000);
        for (const MetricRow& r : rows) {
            run.stage = QString::fromStdString(r.sample.stage);
            if (r.sample.key == "val/loss")
                valLoss = r.sample.value;
            else if (r.sample.key == "loss")
                loss = r.sample.value;
        }
        if (rows.empty())
            break;
        cursor = rows.back().cursor;
    }
    run.metricKey = valLoss ? QStringLiteral("val/loss") : loss ? QStringLiteral("loss") : QString();
    run.finalMetric = valLoss ? valLoss : loss;
}

} // namespace

std::vector<RunSummary> loadRunSummaries(const QString& location, const CancelToken* cancel,
                                         const ProgressSink& progress)
{
    std::vector<RunSummary> out;
    if (location.isEmpty() || !QFileInfo::exists(location))
        return out;
    try {
        auto store = openStore(location.toStdString(), OpenMode::ReadOnly);
        const std::vector<RunRecord> runs = store->runs();
        for (const RunRecord& r : runs) {
            if (cancel && cancel->requested())
                return {};
            if (progress)
                progress(static_cast<double>(out.size()) / static_cast<double>(runs.size()),
                         "run " + std::to_string(r.id));
            RunSummary run{r.id, QString::fromStdString(r.kind), {},
                           QString::fromUtf8(runStatusName(r.status).data()), r.startTime, {}, {}, {}};
            for (const auto& [key, value] : flattenYaml(QString::fromStdString(r.configYaml)))
                if (key == QLatin1String("experiment.model"))
                    run.model = value;
            summariseMetrics(*store, run);
            out.push_back(std::move(run));
        }
    } catch (const std::exception&) {
        return {};
    }
    std::reverse(out.begin(), out.end());
    return out;
}

RunPicker::RunPicker(QWidget* parent) : QWidget(parent)
{
    setObjectName("runPicker");
    m_model = new QStandardItemModel(0, 6, this);
    m_model->setHorizontalHeaderLabels({tr("Run"), tr("Model"), tr("Date"), tr("Stage"), tr("Final metric"),
                                        tr("Status")});
    m_filtered = new QSortFilterProxyModel(this);
    m_filtered->setSourceModel(m_model);
    m_filtered->setFilterKeyColumn(-1); // any column
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName("runPickerFilter");
    m_filter->setPlaceholderText(tr("Filter runs (id, model, date, stage, status)…"));
    m_filter->setClearButtonEnabled(true);
    m_refresh = new QPushButton(tr("Refresh"), this);
    m_view = new QTreeView(this);
    m_view->setObjectName("runPickerView");
    m_view->setModel(m_filtered);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    m_view->setMinimumHeight(140);
    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_refresh);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    connect(m_filter, &QLineEdit::textChanged, m_filtered, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_refresh, &QPushButton::clicked, this, &RunPicker::refresh);
    // A click picks again what is selected (the field may have been typed over since).
    auto pick = [this] {
        if (const QList<qint64> ids = selectedIds(); !ids.isEmpty())
            Q_EMIT runsPicked(ids);
    };
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, pick);
    connect(m_view, &QTreeView::clicked, this, pick);
}

RunPicker::~RunPicker() = default; // a read in flight is cancelled (its receiver is gone), not waited for

void RunPicker::setDatabase(const QString& location)
{
    m_location = location;
    refresh();
}

void RunPicker::refresh()
{
    // A read in flight is of an older database or state: cancelled, its result dropped.
    TaskManager::instance()->start(
        {tr("Reading the runs of %1").arg(locationName(m_location)),
         TaskManager::keyFor(this, QStringLiteral("runs")), Supersede::Running},
        this,
        [location = m_location](TaskContext& context) {
            return loadRunSummaries(location, &context.cancelToken(), context.progressSink());
        },
        [this](std::vector<RunSummary> runs) { show(std::move(runs)); });
}

bool RunPicker::hasRun(std::int64_t id) const
{
    return std::find(m_ids.begin(), m_ids.end(), id) != m_ids.end();
}

void RunPicker::show(std::vector<RunSummary> runs)
{
    m_model->removeRows(0, m_model->rowCount());
    m_ids.clear();
    for (const RunSummary& r : runs) {
        auto* id = new QStandardItem;
        id->setData(static_cast<qlonglong>(r.id), Qt::DisplayRole);
        const QString metric = r.finalMetric ? QStringLiteral("%1 %2").arg(r.metricKey).arg(*r.finalMetric, 0, 'g', 4)
                                             : QString();
        const QString model = r.model.isEmpty() ? r.kind : r.model;
        const QString date =
            QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(r.startTime * 1000)).toString("yyyy-MM-dd hh:mm");
        m_model->appendRow({id, new QStandardItem(model), new QStandardItem(date), new QStandardItem(r.stage),
                            new QStandardItem(metric), new QStandardItem(r.status)});
        m_ids.push_back(r.id);
    }
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->resizeColumnToContents(c);
    m_loaded = true;
}

QList<qint64> RunPicker::selectedIds() const
{
    QList<qint64> ids;
    for (const QModelIndex& row : m_view->selectionModel()->selectedRows(0))
        ids << row.data(Qt::DisplayRole).toLongLong();
    std::sort(ids.begin(), ids.end());
    return ids;
}

} // namespace pitwall::ui
