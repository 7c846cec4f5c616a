#include "ui/configure/internal/runpages.h"

#include "core/config/schema.h"
#include "core/jobs/hpojob.h"
#include "core/pool/objectives.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace pitwall::ui {

SearchPage::SearchPage(const Schema* schema, QWidget* parent)
    : RunPage({RunKind::Search, tr("Hyperparameter search"), HpoJob::kCommand, HpoJob::fields(),
               RunKindInfo::CliCheck::Yes},
              parent),
      m_schema(schema)
{
    setObjectName("searchPage");
    m_trials = spinBox(this, "searchTrials", 1, 100000, 20);
    addField(tr("Trials"), m_trials, tr("Trials the study should have (failed trials count, cancelled ones do not)"),
             {"trials"});
    m_epochs = spinBox(this, "searchEpochs", 0, 100000, 0, tr("config's"));
    addField(tr("Epochs per trial"), m_epochs, tr("Epochs of every enabled stage per trial (--epochs)"), {"epochs"});
    // Pairs share a row (sampler and pruner; each objective and its direction): the page keeps its height at 1024x700.
    const auto pair = [this](QWidget* first, const QString& between, QWidget* second) {
        auto* row = new QWidget(this);
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(first, 1);
        if (!between.isEmpty())
            layout->addWidget(new QLabel(between, row));
        layout->addWidget(second, 1);
        return row;
    };
    m_sampler = comboBox(this, "searchSampler",
                         {QStringLiteral("tpe"), QStringLiteral("random"), QStringLiteral("grid"),
                          QStringLiteral("nsga2")});
    m_pruner = comboBox(
        this, "searchPruner",
        {QStringLiteral("median"), QStringLiteral("sha"), QStringLiteral("hyperband"), QStringLiteral("none")});
    m_pruner->setToolTip(tr("Stops unpromising trials early from their per-epoch objective"));
    pair(m_sampler, tr("Pruner"), m_pruner);
    addField(tr("Sampler"), m_sampler,
             tr("TPE (default), random, grid over the listed values, or NSGA-II (for several objectives); the pruner "
                "stops unpromising trials early from their per-epoch objective"),
             {"sampler", "pruner"});
    m_objective = comboBox(this, "searchObjective", {});
    m_objective->setEditable(true);
    m_direction =
        comboBox(this, "searchDirection", {tr("config's"), QStringLiteral("minimize"), QStringLiteral("maximize")});
    pair(m_objective, QString(), m_direction);
    addField(tr("Objective"), m_objective,
             tr("Validation metric to optimise (or, for a model that drives, driving_score and its kin: every "
                "completed trial then drives the same routes) and whether lower or higher is better; empty: the "
                "config's hpo.objective and hpo.direction"),
             {"objective", "direction"});
    m_objective2 = comboBox(this, "searchObjective2", {});
    m_objective2->setEditable(true);
    m_direction2 = comboBox(this, "searchDirection2", {QStringLiteral("minimize"), QStringLiteral("maximize")});
    pair(m_objective2, QString(), m_direction2);
    addField(tr("Second objective"), m_objective2,
             tr("Optional: a second objective makes the search find a Pareto front. Any metric a trial records: a "
                "validation metric, full_fps, compute_fps, or (for a model that drives) driving_score and its kin; "
                "give the first objective its direction too"),
             {});
    m_finalEpochs = spinBox(this, "searchFinalEpochs", 0, 100000, 0, tr("none"));
    addField(tr("Final comparison epochs"), m_finalEpochs,
             tr("Afterwards, retrain the default and the best configuration for N epochs and compare them on the "
                "held-out split (AutoSpeed's protocol, --final-epochs)"),
             {"final_epochs"});
    m_study = lineEdit(this, "searchStudy",
                       QString::fromStdString(HpoJob::defaultStudyName(std::string("<experiment.name>"))));
    addField(tr("Study name"), m_study, tr("Name of the study the trials go to"), {"study"});
    m_space = withBrowse(lineEdit(this, "searchSpaceFile", tr("the Search space tab's rows")), PathKind::File,
                         tr("YAML (*.yaml *.yml)"));
    addField(tr("Space file"), m_space,
             tr("A search space YAML (AutoSpeed's format); empty: the rows of the Search space tab"), {"space"});
    m_labels = withBrowse(lineEdit(this, "searchLabelsFile", tr("none")), PathKind::File, tr("YAML (*.yaml *.yml)"));
    addField(tr("Labels file"), m_labels,
             tr("Names for points of the space (NAME: {param: value, ...}), such as LEAD's variants in "
                "configs/transfuser/hpo/lead_variants.yaml: the Pareto front and study best name the trials"),
             {"labels"});
    addWorkersRow();
}

void SearchPage::addWorkersRow()
{
    // The workers' mode is the Devices tab's; the box beside it chooses it by measurement instead (one row: the page
    // keeps its height at 1024x700).
    auto* workers = new QWidget(this);
    auto* row = new QHBoxLayout(workers);
    row->setContentsMargins(0, 0, 0, 0);
    m_partition = new QLabel(workers);
    m_partition->setObjectName("searchPartition");
    m_partition->setWordWrap(true);
    m_partitionAuto = new QCheckBox(tr("auto"), workers);
    m_partitionAuto->setObjectName("searchPartitionAuto");
    m_partitionAuto->setToolTip(
        tr("Instead of the Devices tab's mode, the mode a stored measurement of this config on this "
           "machine "
           "recommends (Devices tab); without one the search measures every mode briefly first"));
    // No taller than the text beside it (a box's indicator would add a few pixels to the page).
    m_partitionAuto->setMaximumHeight(m_partition->fontMetrics().height());
    row->addWidget(m_partition, 1);
    row->addWidget(m_partitionAuto);
    addRow(tr("Workers"), workers); // the mode's problems are the Devices tab's, not this row's
    connect(m_partitionAuto, &QCheckBox::toggled, this, [this] { showWorkers(); });
}

std::vector<std::string> SearchPage::words(const RunContext& context) const
{
    HpoJob job;
    job.configs = {absolutePath(context.configFile)};
    job.space = absolutePath(spaceFile().isEmpty() ? context.spaceFile : spaceFile());
    job.trials = m_trials->value();
    job.epochs = givenNumber(m_epochs);
    job.studyOptions.sampler.kind = parseSamplerKind(m_sampler->currentText().toStdString()).value_or(SamplerKind::Tpe);
    job.studyOptions.pruner =
        PrunerSettings::defaults(parsePrunerKind(m_pruner->currentText().toStdString()).value_or(PrunerKind::Median));
    if (const auto objective = given(m_objective->currentText()))
        job.objectives = {*objective};
    if (m_direction->currentIndex() > 0)
        if (const auto direction = parseStudyDirection(m_direction->currentText().toStdString()))
            job.directions = {*direction};
    if (const auto second = given(m_objective2->currentText())) { // a pair each, as the spec reads them
        job.objectives.resize(1);
        job.objectives.push_back(*second);
        if (const auto direction = parseStudyDirection(m_direction2->currentText().toStdString()))
            job.directions.push_back(*direction);
    }
    if (given(m_labels->text()))
        job.labels = absolutePath(m_labels->text().trimmed());
    job.finalEpochs = givenNumber(m_finalEpochs);
    job.study = given(m_study->text());
    if (m_partitionAuto->isChecked())
        job.partition = "auto";
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void SearchPage::setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides)
{
    const HpoJob job = HpoJob::fromArgs(words);
    if (job.resume)
        throw InputError(
            tr("this job continues an earlier one (--resume); Resume it from the Jobs panel instead").toStdString());
    if (job.directions.size() > 2 || job.objectives.size() > 2 || !job.constraints.empty())
        throw InputError(tr("this job has more than two objectives or has constraints, which this form does not edit "
                            "yet; run it with pitwall hpo")
                             .toStdString());
    configFiles << toQt(job.configs);
    overrides << toQt(job.overrides);
    m_trials->setValue(job.trials.value_or(m_trials->value()));
    m_epochs->setValue(job.epochs.value_or(m_epochs->minimum()));
    m_finalEpochs->setValue(job.finalEpochs.value_or(m_finalEpochs->minimum()));
    m_space->setText(QString::fromStdString(job.space));
    m_study->setText(QString::fromStdString(job.study.value_or("")));
    m_partitionAuto->setChecked(job.partition == "auto");
    m_sampler->setCurrentText(QString::fromLatin1(samplerKindName(job.studyOptions.sampler.kind)));
    m_pruner->setCurrentText(QString::fromLatin1(prunerKindName(job.studyOptions.pruner.kind)));
    m_objective->setCurrentText(QString::fromStdString(job.objectives.empty() ? "" : job.objectives.front()));
    if (!job.directions.empty())
        m_direction->setCurrentText(
            QString::fromStdString(std::string(studyDirectionName(job.directions.front()))).toLower());
    else
        m_direction->setCurrentIndex(0);
    m_objective2->setCurrentText(QString::fromStdString(job.objectives.size() > 1 ? job.objectives[1] : ""));
    m_direction2->setCurrentText(
        job.directions.size() > 1 ? QString::fromStdString(std::string(studyDirectionName(job.directions[1]))).toLower()
                                  : QStringLiteral("minimize"));
    m_labels->setText(QString::fromStdString(job.labels.value_or("")));
}

QStringList SearchPage::knownObjectives() const
{
    QStringList known;
    if (m_schema)
        for (const std::string& owner : {std::string("core"), m_model.toStdString()})
            for (const std::string& metric : m_schema->metrics(owner))
                known << QStringLiteral("val/") + QString::fromStdString(metric);
    if (m_schema && m_schema->drives(m_model.toStdString())) // every completed trial drives for these
        for (const char* metric : kDrivingMetrics)
            known << QString::fromLatin1(metric);
    return known;
}

void SearchPage::setModel(const QString& model)
{
    if (model == m_model)
        return;
    m_model = model;
    const QString keep = m_objective->currentText();
    m_objective->clear();
    m_objective->addItem(QString()); // the config's hpo.objective
    m_objective->addItems(knownObjectives());
    m_objective->setCurrentText(keep);
    // The second objective: any metric a trial records (core/search's checkRecordedKey says which).
    const QString keep2 = m_objective2->currentText();
    m_objective2->clear();
    m_objective2->addItem(QString()); // one objective
    m_objective2->addItems(knownObjectives() + QStringList{QStringLiteral("full_fps"), QStringLiteral("compute_fps")});
    m_objective2->setCurrentText(keep2);
}

void SearchPage::showWorkers()
{
    m_partition->setText(m_partitionAuto->isChecked() ? tr("measured for this config (Devices tab)") : m_workers);
}

void SearchPage::setPartition(const QString& mode, int logicalDevices)
{
    m_workers = logicalDevices > 0 ? tr("%1: %2 logical device%3, a worker each (Devices tab)")
                                         .arg(mode)
                                         .arg(logicalDevices)
                                         .arg(logicalDevices == 1 ? QString() : QStringLiteral("s"))
                                   : tr("%1: not available on this machine (Devices tab)").arg(mode);
    showWorkers();
}

QString SearchPage::spaceFile() const
{
    return m_space->text().trimmed();
}

void SearchPage::checkFields(const RunCheckContext& context)
{
    if (!spaceFile().isEmpty())
        needPath(m_space, PathKind::File, tr("a search space file"));
    else if (!context.spaceProblems.isEmpty())
        fail(m_space, tr("the Search space tab has problems: %1").arg(context.spaceProblems));
    const bool two = !m_objective2->currentText().trimmed().isEmpty();
    if (const QString objective = m_objective->currentText().trimmed(); !objective.isEmpty() && m_schema) {
        QStringList known = knownObjectives();
        if (two) // with several objectives any recorded metric counts: the second's list
            for (int i = 1; i < m_objective2->count(); ++i)
                if (!known.contains(m_objective2->itemText(i)))
                    known << m_objective2->itemText(i);
        if (!known.isEmpty() && !known.contains(objective))
            fail(m_objective, tr("%1 is not a metric the %2 model records (it records %3)")
                                  .arg(objective, m_model, known.join(QStringLiteral(", "))));
    }
    if (two && (m_objective->currentText().trimmed().isEmpty() || m_direction->currentIndex() == 0))
        fail(m_objective, tr("with a second objective, name the first one and give it a direction (minimize or "
                             "maximize)"));
    if (!m_labels->text().trimmed().isEmpty())
        needPath(m_labels, PathKind::File, tr("a labels file"));
}

} // namespace pitwall::ui
