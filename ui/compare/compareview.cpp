#include "ui/compare/compareview.h"
#include "ui/compare/internal/comparepicker.h"

#include "ui/charts/chartview.h"
#include "ui/exporting.h"
#include "ui/poller/storepoller.h"
#include "ui/study/studymath.h"
#include "ui/theme.h"

#include "core/config/yamlload.h"
#include "core/report/metricsense.h"
#include "core/util/error.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace pitwall::ui {

using compare_internal::databaseOf;
using compare_internal::expandKey;
using compare_internal::kDatabaseRole;
using compare_internal::number;

namespace {

void flatten(const YAML::Node& node, const QString& prefix, std::vector<std::pair<QString, QString>>& out)
{
    if (node.IsMap()) {
        for (const auto& item : node)
            flatten(item.second,
                    prefix.isEmpty() ? QString::fromStdString(item.first.Scalar())
                                     : prefix + QLatin1Char('.') + QString::fromStdString(item.first.Scalar()),
                    out);
        return;
    }
    YAML::Emitter emitter;
    emitter << YAML::Flow << node;
    out.emplace_back(prefix, QString::fromUtf8(emitter.c_str()));
}

void flattenJson(const Json& value, const QString& prefix, std::vector<std::pair<QString, QString>>& out)
{
    if (value.is_object()) {
        for (const auto& [k, v] : value.items())
            flattenJson(
                v, prefix.isEmpty() ? QString::fromStdString(k) : prefix + QLatin1Char('.') + QString::fromStdString(k),
                out);
        return;
    }
    out.emplace_back(prefix, QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump()));
}

// Numeric results of a trial: the objective, numeric user attributes and the entries of object attributes
// (e.g. metrics.loss).
std::vector<std::pair<QString, double>> resultsOf(const TrialRecord& t)
{
    std::vector<std::pair<QString, double>> out;
    if (auto v = objectiveOf(t))
        out.emplace_back(QStringLiteral("objective"), *v);
    for (const auto& [key, value] : t.userAttrs.items()) {
        if (key == "seed" || key == "run_id")
            continue;
        if (value.is_number())
            out.emplace_back(QString::fromStdString(key), value.get<double>());
        else if (value.is_object())
            for (const auto& [sub, v] : value.items())
                if (v.is_number())
                    out.emplace_back(QString::fromStdString(key + "/" + sub), v.get<double>());
    }
    return out;
}

// What makes two trials of one study the same configuration apart from the seed.
QString groupKey(const TrialRef& ref, const TrialRecord& t)
{
    QStringList parts;
    for (const TrialParam& p : t.params)
        if (p.name != "seed")
            parts << QString::fromStdString(p.name + "=" + p.value().dump());
    if (t.userAttrs.contains("config_changes"))
        for (const auto& [k, v] : t.userAttrs["config_changes"].items())
            if (k != "experiment.seeds")
                parts << QString::fromStdString(k + "=" + v.dump());
    parts.sort();
    return expandKey(ref.database, ref.study) + QLatin1Char('\n') + parts.join(QLatin1Char(';'));
}

// A config value as shown: a number written with more than 6 significant digits (0.004303254965069589) at 6;
// anything else (0.001000, 1e-4, bilinear) as written. The full text goes in the cell's tooltip.
QString shownValue(const QString& text)
{
    bool ok = false;
    const double v = text.toDouble(&ok); // C locale: YAML's numbers
    if (!ok || !std::isfinite(v))
        return text;
    QString digits = text.section(QRegularExpression(QStringLiteral("[eE]")), 0, 0);
    digits.remove(QRegularExpression(QStringLiteral("[^0-9]")));
    while (digits.startsWith(QLatin1Char('0')))
        digits.remove(0, 1);
    while (digits.endsWith(QLatin1Char('0')))
        digits.chop(1);
    return digits.size() > 6 ? QString::number(v, 'g', 6) : text;
}

// The first column sized to its contents (at most 40 % of the table's width), the others sharing the rest
// equally, so that no trial's column is pushed out of sight; cells that still do not fit elide in the middle.
void shareColumns(QTableWidget* table)
{
    QHeaderView* header = table->horizontalHeader();
    header->setStretchLastSection(false);
    table->setTextElideMode(Qt::ElideMiddle);
    if (table->columnCount() == 0)
        return;
    header->setSectionResizeMode(0, QHeaderView::Interactive);
    table->resizeColumnToContents(0);
    const int cap = std::max(120, table->viewport()->width() * 2 / 5);
    if (table->columnWidth(0) > cap)
        table->setColumnWidth(0, cap);
    for (int c = 1; c < table->columnCount(); ++c)
        header->setSectionResizeMode(c, QHeaderView::Stretch);
}

} // namespace

std::vector<std::pair<QString, QString>> flattenYaml(const QString& yaml)
{
    std::vector<std::pair<QString, QString>> out;
    try {
        // A results file is input: its stored config goes through the bounded loader (no alias bomb).
        flatten(loadYaml(yaml.toStdString(), "the stored config"), QString(), out);
    } catch (const YAML::Exception&) {
        out.clear();
    } catch (const InputError&) {
        out.clear();
    }
    return out;
}

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    setObjectName("compareView");
    QWidget* left = buildPickerPane();
    m_sources.emplace_back();
    QWidget* configPage = buildConfigPage();
    QWidget* curvesPage = buildCurvesPage();
    buildMetricsTable();

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(configPage, tr("Config"));
    m_tabs->addTab(curvesPage, tr("Curves"));
    m_tabs->addTab(m_metrics, tr("Metrics"));
    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 4);
    splitter->setSizes({240, 760});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connectPicker();
    connect(m_diffOnly, &QCheckBox::toggled, this, &CompareView::applyDiffFilter);
    connect(m_metric, &QComboBox::activated, this, [this] { request(true); });
}

QWidget* CompareView::buildPickerPane()
{
    m_picker = new QTreeWidget(this);
    m_picker->setObjectName("comparePicker");
    m_picker->setHeaderHidden(true);
    m_picker->setColumnCount(1);
    m_hint = new QLabel(tr("Tick two or more trials."), this);
    m_hint->setWordWrap(true);
    m_addDatabase = new QPushButton(tr("Add database…"), this);
    m_addDatabase->setObjectName("compareAddDatabase");
    m_addDatabase->setToolTip(tr("Open another results database (read-only) and compare its trials with these"));
    m_removeDatabase = new QPushButton(tr("Remove database"), this);
    m_removeDatabase->setObjectName("compareRemoveDatabase");
    m_removeDatabase->setToolTip(tr("Take the added database of the selected study out of the comparison"));
    m_removeDatabase->setEnabled(false);
    auto* databaseRow = new QHBoxLayout;
    databaseRow->addWidget(m_addDatabase);
    databaseRow->addWidget(m_removeDatabase);
    databaseRow->addStretch(1);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(databaseRow);
    leftLayout->addWidget(m_hint);
    leftLayout->addWidget(m_picker, 1);
    return left;
}

QWidget* CompareView::buildConfigPage()
{
    m_config = new QTableWidget(this);
    m_config->setObjectName("compareConfig");
    m_config->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_config->verticalHeader()->setVisible(false);
    m_config->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_config->horizontalHeader()->setStretchLastSection(true);
    addCsvExportMenu(m_config);
    m_diffOnly = new QCheckBox(tr("&Differences only"), this);
    m_diffOnly->setObjectName("compareDiffOnly");
    auto* configPage = new QWidget(this);
    auto* configLayout = new QVBoxLayout(configPage);
    configLayout->addWidget(m_diffOnly);
    configLayout->addWidget(m_config, 1);
    return configPage;
}

QWidget* CompareView::buildCurvesPage()
{
    m_metric = new QComboBox(this);
    m_metric->setObjectName("compareMetric");
    m_metric->setMinimumContentsLength(20);
    m_curves = new ChartView(tr("Metric per trial"), this);
    m_curves->setAxisTitles(tr("step"), QString());
    m_curves->offerLogScales();
    auto* curvesPage = new QWidget(this);
    auto* curvesLayout = new QVBoxLayout(curvesPage);
    auto* metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(tr("Metric:"), this));
    metricRow->addWidget(m_metric);
    metricRow->addStretch(1);
    curvesLayout->addLayout(metricRow);
    curvesLayout->addWidget(m_curves, 1);
    return curvesPage;
}

void CompareView::buildMetricsTable()
{
    m_metrics = new QTableWidget(this);
    m_metrics->setObjectName("compareMetrics");
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_metrics->verticalHeader()->setVisible(false);
    m_metrics->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    addCsvExportMenu(m_metrics);
}

void CompareView::connectPicker()
{
    connect(m_picker, &QTreeWidget::itemChanged, this, [this] {
        QList<TrialRef> ticked;
        for (int s = 0; s < m_picker->topLevelItemCount(); ++s) {
            QTreeWidgetItem* study = m_picker->topLevelItem(s);
            for (int i = 0; i < study->childCount(); ++i)
                if (study->child(i)->checkState(0) == Qt::Checked)
                    ticked << TrialRef{study->data(0, Qt::UserRole).toString(),
                                       study->child(i)->data(0, Qt::UserRole).toInt(), databaseOf(study)};
        }
        if (ticked != m_checked) {
            m_checked = ticked;
            request();
        }
    });
    connect(m_picker, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
        m_expanded.insert(expandKey(databaseOf(item), item->data(0, Qt::UserRole).toString()));
    });
    connect(m_picker, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* item) {
        m_expanded.erase(expandKey(databaseOf(item), item->data(0, Qt::UserRole).toString()));
    });
    connect(m_picker, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { m_removeDatabase->setEnabled(!databaseOf(item).isEmpty()); });
    connect(m_addDatabase, &QPushButton::clicked, this, &CompareView::chooseDatabase);
    connect(m_removeDatabase, &QPushButton::clicked, this, [this] {
        if (const QString database = databaseOf(m_picker->currentItem()); !database.isEmpty())
            Q_EMIT databaseRemoveRequested(database);
    });
}

const TrialRecord* CompareView::trial(const TrialRef& ref) const
{
    const Source* from = source(ref.database);
    if (!from)
        return nullptr;
    auto trials = from->trials.find(ref.study);
    if (trials == from->trials.end())
        return nullptr;
    for (const TrialRecord& t : *trials->second)
        if (t.number == ref.number)
            return &t;
    return nullptr;
}

std::vector<CompareView::Picked> CompareView::picked() const
{
    std::vector<Picked> out;
    for (const TrialRef& ref : m_checked)
        if (const TrialRecord* t = trial(ref)) {
            Picked p{ref, t, std::nullopt};
            const auto& lastRun = source(ref.database)->lastRunOfTrial;
            if (auto run = lastRun.find(t->id); run != lastRun.end())
                p.run = RunRef{ref.database, run->second};
            out.push_back(p);
        }
    return out;
}

QString CompareView::labelOf(const TrialRef& trial) const
{
    const auto all = [this](auto same) { return std::all_of(m_checked.begin(), m_checked.end(), same); };
    if (!all([&](const TrialRef& r) { return r.database == trial.database; }))
        return QStringLiteral("%1 / %2 / #%3").arg(databaseLabel(trial.database), trial.study).arg(trial.number);
    return all([&](const TrialRef& r) { return r.study == trial.study; })
               ? QStringLiteral("#%1").arg(trial.number)
               : QStringLiteral("%1 / #%2").arg(trial.study).arg(trial.number);
}

void CompareView::showSnapshot(const StoreSnapshot& snapshot)
{
    Source own = sourceOf(QString(), snapshot);
    std::uint64_t signature = runsSignature(*snapshot.runs) * 31;
    std::map<QString, std::pair<SharedTrials, std::uint64_t>> signatures; // a vector handed again keeps its signature
    for (const auto& [name, studyTrials] : own.trials) {
        const auto known = m_trialSignatures.find(name);
        const std::uint64_t trials = known != m_trialSignatures.end() && known->second.first == studyTrials
                                         ? known->second.second
                                         : trialsSignature(*studyTrials);
        signatures.emplace(name, std::make_pair(studyTrials, trials));
        signature = (signature * 1000003) ^ qHash(name) ^ trials;
    }
    m_trialSignatures = std::move(signatures);
    if (m_haveSnapshot && snapshot.focusStudy == m_study && signature == m_signature)
        return; // nothing this view shows changed (the poller re-sends compared data itself)
    m_signature = signature;
    const QString previous = m_study;
    m_study = snapshot.focusStudy;
    m_location = snapshot.location;
    m_sources.front() = std::move(own);
    m_haveSnapshot = true;
    // Another study in focus replaces a choice made within the previous one; a choice across studies stays.
    if (m_study != previous && std::all_of(m_checked.begin(), m_checked.end(), [&](const TrialRef& r) {
            return r.study == previous && r.database.isEmpty();
        }))
        m_checked.clear();
    dropVanished();
    if (m_checked.isEmpty()) // a first choice, so the view is never empty: the first two finished trials
        if (auto focus = m_sources.front().trials.find(m_study); focus != m_sources.front().trials.end())
            for (const TrialRecord& t : *focus->second)
                if (m_checked.size() < 2 && t.state != TrialState::Running && t.state != TrialState::Waiting)
                    m_checked << TrialRef{m_study, t.number};
    if (!m_study.isEmpty())
        m_expanded.insert(expandKey(QString(), m_study));
    refillPicker();
    request();
}

void CompareView::dropVanished()
{
    m_checked.erase(std::remove_if(m_checked.begin(), m_checked.end(), [this](const TrialRef& r) { return !trial(r); }),
                    m_checked.end());
}

void CompareView::forget()
{
    m_study.clear();
    m_location.clear();
    m_sources.front() = Source{};
    std::erase_if(m_expanded, [](const QString& key) { return key.startsWith(QLatin1Char('\n')); });
    m_checked.erase(
        std::remove_if(m_checked.begin(), m_checked.end(), [](const TrialRef& r) { return r.database.isEmpty(); }),
        m_checked.end());
    m_requestRuns.clear();
    m_configs.clear();
    m_series.clear();
    m_haveSnapshot = false;
    m_signature = 0;
    refillPicker();
}

void CompareView::setChecked(const QList<int>& trialNumbers)
{
    QList<TrialRef> trials;
    for (int n : trialNumbers)
        trials << TrialRef{m_study, n};
    setCheckedTrials(trials);
}

void CompareView::setCheckedTrials(const QList<TrialRef>& trials)
{
    m_checked = trials;
    const QSignalBlocker blocker(m_picker);
    for (int s = 0; s < m_picker->topLevelItemCount(); ++s) {
        QTreeWidgetItem* study = m_picker->topLevelItem(s);
        const QString name = study->data(0, Qt::UserRole).toString();
        for (int i = 0; i < study->childCount(); ++i) {
            const TrialRef ref{name, study->child(i)->data(0, Qt::UserRole).toInt(), databaseOf(study)};
            study->child(i)->setCheckState(0, trials.contains(ref) ? Qt::Checked : Qt::Unchecked);
        }
    }
    request();
}

QList<int> CompareView::checked() const
{
    QList<int> numbers;
    for (const TrialRef& r : m_checked)
        if (r.study == m_study && r.database.isEmpty())
            numbers << r.number;
    return numbers;
}

bool CompareView::ready() const
{
    return m_haveSnapshot && m_adding.isEmpty() && (m_requestRuns.isEmpty() || m_answered == m_requestId);
}

void CompareView::request(bool force)
{
    QList<RunRef> runs;
    for (const Picked& p : picked())
        if (p.run)
            runs << *p.run;
    QString metric = m_metric->currentText();
    if (metric.isEmpty())
        metric = QStringLiteral("loss");
    m_hint->setText(m_checked.size() < 2 ? tr("Tick two or more trials.")
                                         : tr("%1 trials compared.").arg(m_checked.size()));
    if (!force && !runs.isEmpty() && runs == m_requestRuns) {
        fillMetrics(); // same runs: the poller re-sends their data when it changes
        return;
    }
    if (runs.isEmpty()) {
        m_requestRuns.clear();
        fillConfig();
        fillMetrics();
        drawCurves();
        return;
    }
    m_requestRuns = runs;
    ++m_requestId;
    Q_EMIT compareRequested(runs, metric, m_requestId);
    // What is known without the store (trials, metrics table) is shown at once.
    fillMetrics();
}

void CompareView::showData(const CompareData& data)
{
    if (data.requestId != m_requestId)
        return; // an answer to an older question
    m_answered = data.requestId;
    m_configs.clear();
    m_series.clear();
    for (int i = 0; i < data.runs.size(); ++i) {
        m_configs[data.runs[i]] = data.configs.value(i);
        if (static_cast<std::size_t>(i) < data.series.size())
            m_series[data.runs[i]] = data.series[static_cast<std::size_t>(i)];
    }
    const QString current = data.metric;
    const QSignalBlocker blocker(m_metric);
    m_metric->clear();
    m_metric->addItems(data.metricKeys);
    m_metric->setCurrentText(current);
    m_curves->setAxisTitles(tr("step"), current);
    fillConfig();
    drawCurves();
}

void CompareView::fillConfig()
{
    std::vector<std::pair<QString, QString>> columns; // (header, unused)
    std::vector<std::map<QString, QString>> values;
    QStringList order;
    std::set<QString> seen;
    for (const Picked& p : picked()) {
        const TrialRecord* t = p.trial;
        std::vector<std::pair<QString, QString>> flat;
        if (auto config = p.run ? m_configs.find(*p.run) : m_configs.end();
            config != m_configs.end() && !config->second.isEmpty()) {
            flat = flattenYaml(config->second);
        } else {
            for (const TrialParam& param : t->params)
                flat.emplace_back(QString::fromStdString(param.name),
                                  QString::fromStdString(param.value().is_string() ? param.value().get<std::string>()
                                                                                   : param.value().dump()));
            if (t->userAttrs.contains("config_changes"))
                flattenJson(t->userAttrs["config_changes"], QString(), flat);
        }
        std::map<QString, QString> row;
        for (auto& [key, value] : flat) {
            if (seen.insert(key).second)
                order << key;
            row[key] = value;
        }
        columns.emplace_back(labelOf(p.ref), QString());
        values.push_back(std::move(row));
    }
    m_config->clear();
    m_config->setColumnCount(static_cast<int>(columns.size()) + 1);
    QStringList headers{tr("Key")};
    for (const auto& c : columns)
        headers << c.first;
    m_config->setHorizontalHeaderLabels(headers);
    m_config->setRowCount(static_cast<int>(order.size()));
    for (int r = 0; r < order.size(); ++r) {
        const QString& key = order[r];
        auto* keyItem = new QTableWidgetItem(key);
        m_config->setItem(r, 0, keyItem);
        std::set<QString> distinct;
        for (std::size_t c = 0; c < values.size(); ++c) {
            auto it = values[c].find(key);
            const QString text = it == values[c].end() ? QStringLiteral("—") : it->second;
            distinct.insert(it == values[c].end() ? QStringLiteral("\x01missing") : text);
            auto* item = new QTableWidgetItem(shownValue(text));
            item->setToolTip(text);
            m_config->setItem(r, static_cast<int>(c) + 1, item);
        }
        const bool differs = distinct.size() > 1;
        keyItem->setData(Qt::UserRole, differs);
        if (differs) {
            QFont bold = keyItem->font();
            bold.setBold(true);
            for (int c = 0; c < m_config->columnCount(); ++c)
                m_config->item(r, c)->setFont(bold);
        }
    }
    shareColumns(m_config);
    applyDiffFilter();
}

void CompareView::applyDiffFilter()
{
    const bool only = m_diffOnly->isChecked();
    for (int r = 0; r < m_config->rowCount(); ++r)
        m_config->setRowHidden(r, only && !m_config->item(r, 0)->data(Qt::UserRole).toBool());
}

QStringList CompareView::visibleConfigKeys() const
{
    QStringList keys;
    for (int r = 0; r < m_config->rowCount(); ++r)
        if (!m_config->isRowHidden(r))
            keys << m_config->item(r, 0)->text();
    return keys;
}

QTableWidgetItem* CompareView::metricItem(std::optional<double> value, std::optional<double> reference,
                                          MetricSense sense) const
{
    const auto full = [](double v) { return QString::number(v, 'g', 17); };
    auto* item = new QTableWidgetItem(value ? number(*value) : QStringLiteral("—"));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!value)
        return item;
    QString tip = full(*value);
    if (reference) {
        const double delta = *value - *reference;
        item->setText(item->text() +
                      QStringLiteral(" (%1%2)").arg(delta >= 0 ? QStringLiteral("+") : QString(), number(delta)));
        tip += tr(", %1 against %2").arg(full(delta), full(*reference));
        // Coloured by which way is better: green better, red worse; no colour when unknown or equal.
        if (delta != 0 && sense != MetricSense::Unknown) {
            const bool better = (delta < 0) == (sense == MetricSense::LowerIsBetter);
            item->setForeground(stateColor(better ? "BEST" : "FAIL", palette()));
            tip += better ? tr(" (better)") : tr(" (worse)");
        }
    }
    item->setToolTip(tip);
    return item;
}

MetricSense CompareView::senseOf(const QString& metric, const std::vector<Picked>& trials) const
{
    if (metric != QLatin1String("objective"))
        return metricSense(metric.toStdString());
    // The objective: its studies' first direction, when every compared trial's study agrees.
    std::optional<StudyDirection> direction;
    for (const Picked& p : trials) {
        const Source* from = source(p.ref.database);
        if (!from)
            return MetricSense::Unknown;
        const auto it = from->directions.find(p.ref.study);
        if (it == from->directions.end() || it->second.empty())
            return MetricSense::Unknown;
        if (direction && *direction != it->second.front())
            return MetricSense::Unknown;
        direction = it->second.front();
    }
    if (!direction)
        return MetricSense::Unknown;
    return *direction == StudyDirection::Maximize ? MetricSense::HigherIsBetter : MetricSense::LowerIsBetter;
}

void CompareView::fillMetrics()
{
    const std::vector<Picked> trials = picked();
    QStringList metrics;
    std::vector<std::map<QString, double>> results;
    for (const Picked& p : trials) {
        std::map<QString, double> r;
        for (const auto& [key, value] : resultsOf(*p.trial)) {
            if (!metrics.contains(key))
                metrics << key;
            r[key] = value;
        }
        results.push_back(std::move(r));
    }
    // Groups of seeds: same parameters and config changes apart from the seed.
    std::vector<std::pair<QString, std::vector<std::size_t>>> groups;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const QString key = groupKey(trials[i].ref, *trials[i].trial);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        if (it == groups.end())
            groups.emplace_back(key, std::vector<std::size_t>{i});
        else
            it->second.push_back(i);
    }
    // A spread only where there is one: groups of one trial get no mean ± std column.
    std::erase_if(groups, [](const auto& g) { return g.second.size() < 2; });
    QStringList headers{tr("Metric")};
    for (std::size_t i = 0; i < trials.size(); ++i)
        headers << (i == 0 ? labelOf(trials[i].ref)
                           : tr("%1 (Δ vs %2)").arg(labelOf(trials[i].ref), labelOf(trials[0].ref)));
    for (const auto& [key, members] : groups) {
        QStringList names;
        for (std::size_t i : members)
            names << labelOf(trials[i].ref);
        headers << tr("mean ± std (%1)").arg(names.join(QLatin1Char(',')));
    }
    m_metrics->clear();
    m_metrics->setColumnCount(headers.size());
    m_metrics->setHorizontalHeaderLabels(headers);
    m_metrics->setRowCount(static_cast<int>(metrics.size()));
    const auto full = [](double v) { return QString::number(v, 'g', 17); };
    for (int r = 0; r < metrics.size(); ++r) {
        const QString& metric = metrics[r];
        const MetricSense sense = senseOf(metric, trials);
        auto* name = new QTableWidgetItem(metric);
        name->setToolTip(sense == MetricSense::HigherIsBetter  ? tr("%1: higher is better").arg(metric)
                         : sense == MetricSense::LowerIsBetter ? tr("%1: lower is better").arg(metric)
                                                               : metric);
        m_metrics->setItem(r, 0, name);
        std::optional<double> reference;
        for (std::size_t i = 0; i < trials.size(); ++i) {
            auto it = results[i].find(metric);
            std::optional<double> value;
            if (it != results[i].end())
                value = it->second;
            m_metrics->setItem(r, static_cast<int>(i) + 1, metricItem(value, i == 0 ? std::nullopt : reference, sense));
            if (i == 0)
                reference = value;
        }
        int column = static_cast<int>(trials.size()) + 1;
        for (const auto& [key, members] : groups) {
            std::vector<double> values;
            for (std::size_t i : members)
                if (auto it = results[i].find(metric); it != results[i].end())
                    values.push_back(it->second);
            const Spread s = spreadOf(values);
            QString text = QStringLiteral("—");
            if (s.count >= 2)
                text = QStringLiteral("%1 ± %2 (n=%3)").arg(number(s.mean), number(s.std)).arg(s.count);
            else if (s.count == 1)
                text = QStringLiteral("%1 (n=1)").arg(number(s.mean));
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (s.count)
                item->setToolTip(
                    tr("mean %1, sample std %2 over %3 value(s)").arg(full(s.mean), full(s.std)).arg(s.count));
            m_metrics->setItem(r, column++, item);
        }
    }
    shareColumns(m_metrics);
}

void CompareView::drawCurves()
{
    m_curves->removeAll();
    for (const Picked& p : picked()) {
        auto found = p.run ? m_series.find(*p.run) : m_series.end();
        if (found == m_series.end())
            continue;
        const QList<QPointF>& points = found->second;
        const QString label = labelOf(p.ref);
        QLineSeries* series =
            m_curves->line(label, label.startsWith(QLatin1Char('#')) ? tr("trial %1").arg(p.ref.number) : label);
        series->setPointsVisible(points.size() < 40);
        m_curves->setCurve(series, points);
    }
    m_curves->fitAxes();
}

} // namespace pitwall::ui
