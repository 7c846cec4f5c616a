#include "ui/views/compareview.h"

#include "ui/chartview.h"
#include "ui/exporting.h"
#include "ui/lttb.h"
#include "ui/storepoller.h"
#include "ui/views/studymath.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
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
QString groupKey(const QString& study, const TrialRecord& t)
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
    return study + QLatin1Char('\n') + parts.join(QLatin1Char(';'));
}

QString number(double v)
{
    return QString::number(v, 'g', 5);
}

} // namespace

std::vector<std::pair<QString, QString>> flattenYaml(const QString& yaml)
{
    std::vector<std::pair<QString, QString>> out;
    try {
        flatten(YAML::Load(yaml.toStdString()), QString(), out);
    } catch (const YAML::Exception&) {
        out.clear();
    }
    return out;
}

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    setObjectName("compareView");
    m_picker = new QTreeWidget(this);
    m_picker->setObjectName("comparePicker");
    m_picker->setHeaderHidden(true);
    m_picker->setColumnCount(1);
    m_hint = new QLabel(tr("Tick two or more trials."), this);
    m_hint->setWordWrap(true);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_hint);
    leftLayout->addWidget(m_picker, 1);

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

    m_metric = new QComboBox(this);
    m_metric->setObjectName("compareMetric");
    m_metric->setMinimumContentsLength(20);
    m_curves = new ChartView(tr("Metric per trial"), this);
    m_curves->setAxisTitles(tr("step"), QString());
    auto* curvesPage = new QWidget(this);
    auto* curvesLayout = new QVBoxLayout(curvesPage);
    auto* metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(tr("Metric:"), this));
    metricRow->addWidget(m_metric);
    metricRow->addStretch(1);
    curvesLayout->addLayout(metricRow);
    curvesLayout->addWidget(m_curves, 1);

    m_metrics = new QTableWidget(this);
    m_metrics->setObjectName("compareMetrics");
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_metrics->verticalHeader()->setVisible(false);
    m_metrics->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    addCsvExportMenu(m_metrics);

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

    connect(m_picker, &QTreeWidget::itemChanged, this, [this] {
        QList<TrialRef> ticked;
        for (int s = 0; s < m_picker->topLevelItemCount(); ++s) {
            QTreeWidgetItem* study = m_picker->topLevelItem(s);
            for (int i = 0; i < study->childCount(); ++i)
                if (study->child(i)->checkState(0) == Qt::Checked)
                    ticked << TrialRef{study->data(0, Qt::UserRole).toString(),
                                       study->child(i)->data(0, Qt::UserRole).toInt()};
        }
        if (ticked != m_checked) {
            m_checked = ticked;
            request();
        }
    });
    connect(m_picker, &QTreeWidget::itemExpanded, this,
            [this](QTreeWidgetItem* item) { m_expanded.insert(item->data(0, Qt::UserRole).toString()); });
    connect(m_picker, &QTreeWidget::itemCollapsed, this,
            [this](QTreeWidgetItem* item) { m_expanded.erase(item->data(0, Qt::UserRole).toString()); });
    connect(m_diffOnly, &QCheckBox::toggled, this, &CompareView::applyDiffFilter);
    connect(m_metric, &QComboBox::activated, this, [this] { request(true); });
}

const TrialRecord* CompareView::trial(const TrialRef& ref) const
{
    auto trials = m_trials.find(ref.study);
    if (trials == m_trials.end())
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
        if (const TrialRecord* t = trial(ref))
            out.push_back({ref, t});
    return out;
}

QString CompareView::labelOf(const TrialRef& trial) const
{
    const bool oneStudy =
        std::all_of(m_checked.begin(), m_checked.end(), [&](const TrialRef& r) { return r.study == trial.study; });
    return oneStudy ? QStringLiteral("#%1").arg(trial.number)
                    : QStringLiteral("%1 / #%2").arg(trial.study).arg(trial.number);
}

void CompareView::showSnapshot(const StoreSnapshot& snapshot)
{
    std::map<QString, SharedTrials> trials = snapshot.studyTrials;
    if (!snapshot.focusStudy.isEmpty())
        trials.emplace(snapshot.focusStudy, snapshot.focusTrials); // a snapshot with the focus study only
    std::uint64_t signature = runsSignature(*snapshot.runs) * 31;
    for (const auto& [name, studyTrials] : trials)
        signature = (signature * 1000003) ^ qHash(name) ^ trialsSignature(*studyTrials);
    if (m_haveSnapshot && snapshot.focusStudy == m_study && signature == m_signature)
        return; // nothing this view shows changed (the poller re-sends compared data itself)
    m_signature = signature;
    const QString previous = m_study;
    m_study = snapshot.focusStudy;
    m_trials = std::move(trials);
    m_studyOrder.clear();
    for (const StudySummary& summary : snapshot.studies)
        m_studyOrder << QString::fromStdString(summary.study.name);
    for (const auto& entry : m_trials)
        if (!m_studyOrder.contains(entry.first))
            m_studyOrder << entry.first;
    m_haveSnapshot = true;
    std::map<std::int64_t, std::int64_t> lastRun;
    std::set<std::int64_t> ids;
    for (const auto& entry : m_trials)
        for (const TrialRecord& t : *entry.second)
            ids.insert(t.id);
    for (const RunRecord& r : *snapshot.runs)
        if (r.trialId && ids.count(*r.trialId))
            lastRun[*r.trialId] = std::max(lastRun[*r.trialId], r.id);
    m_lastRunOfTrial = lastRun;
    // Another study in focus replaces a choice made within the previous one; a choice across studies stays.
    if (m_study != previous &&
        std::all_of(m_checked.begin(), m_checked.end(), [&](const TrialRef& r) { return r.study == previous; }))
        m_checked.clear();
    m_checked.erase(std::remove_if(m_checked.begin(), m_checked.end(), [this](const TrialRef& r) { return !trial(r); }),
                    m_checked.end());
    if (m_checked.isEmpty()) // a first choice, so the view is never empty: the first two finished trials
        if (auto focus = m_trials.find(m_study); focus != m_trials.end())
            for (const TrialRecord& t : *focus->second)
                if (m_checked.size() < 2 && t.state != TrialState::Running && t.state != TrialState::Waiting)
                    m_checked << TrialRef{m_study, t.number};
    if (!m_study.isEmpty())
        m_expanded.insert(m_study);
    fillPicker();
    request();
}

void CompareView::fillPicker()
{
    const QSignalBlocker blocker(m_picker);
    m_picker->clear();
    for (const QString& name : std::as_const(m_studyOrder)) {
        auto trials = m_trials.find(name);
        if (trials == m_trials.end())
            continue;
        auto* study = new QTreeWidgetItem(m_picker);
        study->setText(0, tr("%1  (%n trial(s))", nullptr, static_cast<int>(trials->second->size())).arg(name));
        study->setData(0, Qt::UserRole, name);
        study->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        for (const TrialRecord& t : *trials->second) {
            QString text = QStringLiteral("#%1  ").arg(t.number) + QString::fromUtf8(trialStateName(t.state).data());
            if (auto v = objectiveOf(t))
                text += QStringLiteral("  ") + number(*v);
            if (t.userAttrs.contains("seed"))
                text += tr("  seed %1").arg(QString::fromStdString(t.userAttrs["seed"].dump()));
            auto* item = new QTreeWidgetItem(study);
            item->setText(0, text);
            item->setData(0, Qt::UserRole, t.number);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(0, m_checked.contains(TrialRef{name, t.number}) ? Qt::Checked : Qt::Unchecked);
        }
        study->setExpanded(m_expanded.count(name) > 0);
    }
}

QTreeWidgetItem* CompareView::pickerItem(const TrialRef& trial) const
{
    for (int s = 0; s < m_picker->topLevelItemCount(); ++s) {
        QTreeWidgetItem* study = m_picker->topLevelItem(s);
        if (study->data(0, Qt::UserRole).toString() != trial.study)
            continue;
        for (int i = 0; i < study->childCount(); ++i)
            if (study->child(i)->data(0, Qt::UserRole).toInt() == trial.number)
                return study->child(i);
    }
    return nullptr;
}

void CompareView::forget()
{
    m_study.clear();
    m_studyOrder.clear();
    m_trials.clear();
    m_expanded.clear();
    m_lastRunOfTrial.clear();
    m_checked.clear();
    m_requestRuns.clear();
    m_configs.clear();
    m_series.clear();
    m_haveSnapshot = false;
    m_signature = 0;
    m_picker->clear();
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
        for (int i = 0; i < study->childCount(); ++i)
            study->child(i)->setCheckState(
                0, trials.contains(TrialRef{name, study->child(i)->data(0, Qt::UserRole).toInt()}) ? Qt::Checked
                                                                                                   : Qt::Unchecked);
    }
    request();
}

QList<int> CompareView::checked() const
{
    QList<int> numbers;
    for (const TrialRef& r : m_checked)
        if (r.study == m_study)
            numbers << r.number;
    return numbers;
}

bool CompareView::ready() const
{
    return m_haveSnapshot && (m_requestRuns.isEmpty() || m_answered == m_requestId);
}

void CompareView::request(bool force)
{
    QList<qint64> runs;
    for (const Picked& p : picked())
        if (auto it = m_lastRunOfTrial.find(p.trial->id); it != m_lastRunOfTrial.end())
            runs << it->second;
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
    for (int i = 0; i < data.runIds.size(); ++i) {
        m_configs[data.runIds[i]] = data.configs.value(i);
        if (static_cast<std::size_t>(i) < data.series.size())
            m_series[data.runIds[i]] = data.series[static_cast<std::size_t>(i)];
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
        auto run = m_lastRunOfTrial.find(t->id);
        if (run != m_lastRunOfTrial.end() && m_configs.count(run->second) && !m_configs[run->second].isEmpty()) {
            flat = flattenYaml(m_configs[run->second]);
        } else {
            for (const TrialParam& p : t->params)
                flat.emplace_back(
                    QString::fromStdString(p.name),
                    QString::fromStdString(p.value().is_string() ? p.value().get<std::string>() : p.value().dump()));
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
            m_config->setItem(r, static_cast<int>(c) + 1, new QTableWidgetItem(text));
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
    m_config->resizeColumnsToContents();
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
        const QString key = groupKey(trials[i].ref.study, *trials[i].trial);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        if (it == groups.end())
            groups.emplace_back(key, std::vector<std::size_t>{i});
        else
            it->second.push_back(i);
    }
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
    for (int r = 0; r < metrics.size(); ++r) {
        const QString& metric = metrics[r];
        m_metrics->setItem(r, 0, new QTableWidgetItem(metric));
        std::optional<double> reference;
        for (std::size_t i = 0; i < trials.size(); ++i) {
            auto it = results[i].find(metric);
            QString text = QStringLiteral("—");
            if (it != results[i].end()) {
                text = number(it->second);
                if (i == 0)
                    reference = it->second;
                else if (reference)
                    text += QStringLiteral(" (%1%2)").arg(it->second >= *reference ? QStringLiteral("+") : QString(),
                                                          number(it->second - *reference));
            }
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_metrics->setItem(r, static_cast<int>(i) + 1, item);
        }
        int column = static_cast<int>(trials.size()) + 1;
        for (const auto& [key, members] : groups) {
            std::vector<double> values;
            for (std::size_t i : members)
                if (auto it = results[i].find(metric); it != results[i].end())
                    values.push_back(it->second);
            const Spread s = spreadOf(values);
            auto* item = new QTableWidgetItem(
                values.empty() ? QStringLiteral("—")
                               : QStringLiteral("%1 ± %2 (n=%3)").arg(number(s.mean), number(s.std)).arg(s.count));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_metrics->setItem(r, column++, item);
        }
    }
    m_metrics->resizeColumnsToContents();
}

void CompareView::drawCurves()
{
    m_curves->removeAll();
    const int target = std::max(64, 2 * m_curves->plotWidth());
    for (const Picked& p : picked()) {
        auto run = m_lastRunOfTrial.find(p.trial->id);
        if (run == m_lastRunOfTrial.end() || !m_series.count(run->second))
            continue;
        const QList<QPointF>& points = m_series[run->second];
        const QString label = labelOf(p.ref);
        QLineSeries* series =
            m_curves->line(label, label.startsWith(QLatin1Char('#')) ? tr("trial %1").arg(p.ref.number) : label);
        series->setPointsVisible(points.size() < 40);
        m_curves->setPoints(series, lttb(points, target));
    }
    m_curves->fitAxes();
}

} // namespace pitwall::ui
