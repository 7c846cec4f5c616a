#include "ui/views/runoptions.h"

#include "ui/views/runpicker.h"

#include "core/config/schema.h"
#include "core/jobs/benchjobs.h"
#include "core/jobs/evaljob.h"
#include "core/jobs/hpojob.h"
#include "core/jobs/trainjob.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace pitwall::ui {

namespace {

const QStringList kModes{QStringLiteral("SPX"), QStringLiteral("DPX"), QStringLiteral("QPX"), QStringLiteral("CPX")};

struct KindInfo {
    RunKind kind;
    const char* label;
    const char* command; // the command's path (the job spec's kCommand)
    bool cliCheck;       // Start runs the command with --check first
};

const std::vector<KindInfo>& kinds()
{
    static const std::vector<KindInfo> all{
        {RunKind::Train, QT_TRANSLATE_NOOP("RunOptions", "Training run"), TrainJob::kCommand, false},
        {RunKind::Search, QT_TRANSLATE_NOOP("RunOptions", "Hyperparameter search"), HpoJob::kCommand, true},
        {RunKind::Variants, QT_TRANSLATE_NOOP("RunOptions", "Variant benchmark"), VariantsBenchJob::kCommand, true},
        {RunKind::Partitions, QT_TRANSLATE_NOOP("RunOptions", "Partition benchmark"), PartitionBenchJob::kCommand,
         true},
        {RunKind::Driving, QT_TRANSLATE_NOOP("RunOptions", "Closed-loop driving evaluation"), DrivingEvalJob::kCommand,
         true},
        {RunKind::Loader, QT_TRANSLATE_NOOP("RunOptions", "Data-loader benchmark"), LoaderBenchJob::kCommand, true},
    };
    return all;
}

QSpinBox* spinBox(QWidget* parent, const char* name, int min, int max, int value, const QString& special = {})
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(QLatin1String(name));
    box->setRange(min, max);
    box->setValue(value);
    if (!special.isEmpty())
        box->setSpecialValueText(special);
    return box;
}

QComboBox* comboBox(QWidget* parent, const char* name, const QStringList& items)
{
    auto* box = new QComboBox(parent);
    box->setObjectName(QLatin1String(name));
    box->addItems(items);
    return box;
}

QLineEdit* lineEdit(QWidget* parent, const char* name, const QString& placeholder)
{
    auto* edit = new QLineEdit(parent);
    edit->setObjectName(QLatin1String(name));
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    return edit;
}

// A line edit with a "…" button that picks a file or folder into it.
QWidget* withBrowse(QLineEdit* edit, bool folder, const QString& filter)
{
    auto* box = new QWidget(edit->parentWidget());
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    edit->setParent(box);
    row->addWidget(edit, 1);
    auto* browse = new QPushButton(QStringLiteral("…"), box);
    browse->setObjectName(edit->objectName() + QStringLiteral("Browse"));
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, folder, filter] {
        const QString path = folder ? QFileDialog::getExistingDirectory(edit, QString(), edit->text())
                                    : QFileDialog::getOpenFileName(edit, QString(), edit->text(), filter);
        if (!path.isEmpty())
            edit->setText(path);
    });
    row->addWidget(browse);
    return box;
}

// Positive integers separated by commas ("8,16,32"); empty on a bad list.
std::vector<int> positiveList(const QString& text)
{
    std::vector<int> out;
    for (const QString& part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok || value < 1)
            return {};
        out.push_back(value);
    }
    return out;
}

template <typename T> QString joinedNumbers(const std::vector<T>& values)
{
    QStringList texts;
    for (T v : values)
        texts << QString::number(v);
    return texts.join(QLatin1Char(','));
}

// A field's text, nullopt when empty.
std::optional<std::string> given(const QString& text)
{
    const QString trimmed = text.trimmed();
    return trimmed.isEmpty() ? std::nullopt : std::optional<std::string>(trimmed.toStdString());
}

// A spin box's value, nullopt at its special "config's" / "none" value (the minimum).
std::optional<int> givenNumber(const QSpinBox* box)
{
    return box->specialValueText().isEmpty() || box->value() != box->minimum() ? std::optional<int>(box->value())
                                                                               : std::nullopt;
}

} // namespace

QStringList toQt(const std::vector<std::string>& words)
{
    QStringList out;
    for (const std::string& w : words)
        out << QString::fromStdString(w);
    return out;
}

std::vector<std::string> fromQt(const QStringList& words)
{
    std::vector<std::string> out;
    for (const QString& w : words)
        out.push_back(w.toStdString());
    return out;
}

RunOptions::RunOptions(const Schema* schema, QWidget* parent) : QWidget(parent), m_schema(schema)
{
    setObjectName("runOptions");
    m_kind = new QComboBox(this);
    m_kind->setObjectName("whatToRun");
    for (const KindInfo& k : kinds())
        m_kind->addItem(tr(k.label), static_cast<int>(k.kind));
    m_pages = new QStackedWidget(this);
    auto* train = new QLabel(tr("Trains every seed of experiment.seeds through the enabled stages of the form's "
                                "config; the run is followed in the Live view."),
                             this);
    train->setWordWrap(true);
    m_pages->addWidget(train);
    m_pages->addWidget(buildSearchPage());
    m_pages->addWidget(buildVariantsPage());
    m_pages->addWidget(buildPartitionsPage());
    m_pages->addWidget(buildDrivingPage());
    m_pages->addWidget(buildLoaderPage());
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        clearProblems();
        Q_EMIT kindChanged();
    });

    auto* top = new QFormLayout;
    top->addRow(tr("What to run"), m_kind);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_pages);
    layout->addStretch(1);
}

void RunOptions::addField(QWidget* page, const QString& label, QWidget* field, const QString& tip)
{
    auto* form = qobject_cast<QFormLayout*>(page->layout());
    auto* name = new QLabel(label, page);
    name->setToolTip(tip);
    field->setToolTip(tip);
    auto* problem = new QLabel(page);
    problem->setObjectName(field->objectName() + QStringLiteral("Problem"));
    problem->setWordWrap(true);
    problem->setStyleSheet(QStringLiteral("color: #d04040;"));
    problem->hide();
    auto* box = new QWidget(page);
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(1);
    // A field that came wrapped (with a browse button) is its wrapper's first child.
    column->addWidget(field->parentWidget() != page && field->parentWidget() ? field->parentWidget() : field);
    column->addWidget(problem);
    form->addRow(name, box);
    m_problemLabels[field] = problem;
}

QWidget* RunOptions::buildSearchPage()
{
    auto* page = new QWidget(this);
    page->setObjectName("searchPage");
    new QFormLayout(page);
    m_trials = spinBox(page, "searchTrials", 1, 100000, 20);
    addField(page, tr("Trials"), m_trials, tr("Trials the study should have (failed trials count, cancelled ones do not)"));
    m_epochs = spinBox(page, "searchEpochs", 0, 100000, 0, tr("config's"));
    addField(page, tr("Epochs per trial"), m_epochs, tr("Epochs of every enabled stage per trial (--epochs)"));
    m_sampler = comboBox(page, "searchSampler", {QStringLiteral("tpe"), QStringLiteral("random"), QStringLiteral("grid")});
    addField(page, tr("Sampler"), m_sampler, tr("TPE (default), random, or grid over the listed values"));
    m_pruner = comboBox(page, "searchPruner",
                        {QStringLiteral("median"), QStringLiteral("sha"), QStringLiteral("hyperband"), QStringLiteral("none")});
    addField(page, tr("Pruner"), m_pruner, tr("Stops unpromising trials early from their per-epoch objective"));
    m_objective = comboBox(page, "searchObjective", {});
    m_objective->setEditable(true);
    addField(page, tr("Objective"), m_objective,
             tr("Validation metric to optimise; empty: the config's hpo.objective"));
    m_direction = comboBox(page, "searchDirection", {tr("config's"), QStringLiteral("minimize"), QStringLiteral("maximize")});
    addField(page, tr("Direction"), m_direction, tr("Whether a lower or higher objective is better"));
    m_finalEpochs = spinBox(page, "searchFinalEpochs", 0, 100000, 0, tr("none"));
    addField(page, tr("Final comparison epochs"), m_finalEpochs,
             tr("Afterwards, retrain the default and the best configuration for N epochs and compare them on the "
                "held-out split (AutoSpeed's protocol, --final-epochs)"));
    m_study = lineEdit(page, "searchStudy",
                       QString::fromStdString(HpoJob::defaultStudyName(std::string("<experiment.name>"))));
    addField(page, tr("Study name"), m_study, tr("Name of the study the trials go to"));
    m_space = lineEdit(page, "searchSpaceFile", tr("the Search space tab's rows"));
    addField(page, tr("Space file"), withBrowse(m_space, false, tr("YAML (*.yaml *.yml)"))->findChild<QLineEdit*>(),
             tr("A search space YAML (AutoSpeed's format); empty: the rows of the Search space tab"));
    m_partition = new QLabel(page);
    m_partition->setObjectName("searchPartition");
    m_partition->setWordWrap(true);
    qobject_cast<QFormLayout*>(page->layout())->addRow(tr("Workers"), m_partition);
    return page;
}

QWidget* RunOptions::buildVariantsPage()
{
    auto* page = new QWidget(this);
    page->setObjectName("variantsPage");
    new QFormLayout(page);
    m_variantsFile = lineEdit(page, "variantsFile", tr("a bench file, e.g. configs/transfuser/speed.yaml"));
    addField(page, tr("Bench file"), withBrowse(m_variantsFile, false, tr("YAML (*.yaml *.yml)"))->findChild<QLineEdit*>(),
             tr("A base config and its variants; Speed options ▸ Compare these writes one for the current config"));
    m_variantSeeds = lineEdit(page, "variantsSeeds", tr("the file's"));
    addField(page, tr("Seeds"), m_variantSeeds, tr("A count (0..N-1) or a list such as 0,1,2"));
    return page;
}

QWidget* RunOptions::buildPartitionsPage()
{
    auto* page = new QWidget(this);
    page->setObjectName("partitionsPage");
    new QFormLayout(page);
    auto* modes = new QWidget(page);
    modes->setObjectName("partitionModes");
    auto* row = new QHBoxLayout(modes);
    row->setContentsMargins(0, 0, 0, 0);
    for (const QString& mode : kModes) {
        auto* box = new QCheckBox(mode, modes);
        box->setObjectName(QStringLiteral("partitionMode") + mode);
        box->setChecked(true);
        row->addWidget(box);
        m_modes.push_back(box);
    }
    addField(page, tr("Modes"), modes, tr("Partition modes to measure (unavailable ones are listed with why)"));
    m_batchSizes = lineEdit(page, "partitionBatchSizes", QStringLiteral("8,16,32"));
    m_batchSizes->setText(QStringLiteral("8,16,32"));
    addField(page, tr("Batch sizes"), m_batchSizes, tr("Batch sizes per trainer, comma-separated"));
    m_benchEpochs = spinBox(page, "partitionEpochs", 1, 1000, 2);
    addField(page, tr("Epochs"), m_benchEpochs, tr("Epochs of the first stage per run"));
    return page;
}

QWidget* RunOptions::buildDrivingPage()
{
    auto* page = new QWidget(this);
    page->setObjectName("drivingPage");
    new QFormLayout(page);
    m_policy = lineEdit(page, "drivingPolicy", tr("run id(s), expert or idle"));
    addField(page, tr("Policy"), m_policy,
             tr("A run id (its last checkpoint drives), several ids separated by commas (one per training seed), "
                "'expert' or 'idle'"));
    // The database's runs to pick from; picking fills the policy field, which stays typeable.
    m_runPicker = new RunPicker(page);
    qobject_cast<QFormLayout*>(page->layout())->addRow(tr("Runs"), m_runPicker);
    connect(m_runPicker, &RunPicker::runsPicked, this, [this](const QList<qint64>& ids) {
        QStringList words;
        for (qint64 id : ids)
            words << QString::number(id);
        m_policy->setText(words.join(QLatin1Char(',')));
    });
    connect(this, &RunOptions::kindChanged, m_runPicker, [this] {
        if (kind() == RunKind::Driving)
            m_runPicker->refresh(); // runs trained since
    });
    m_routes = spinBox(page, "drivingRoutes", 1, 1000, 20); // pitwall eval driving's default
    addField(page, tr("Routes"), m_routes, tr("Synthetic routes to drive"));
    m_driveSeed = spinBox(page, "drivingSeed", 0, 1000000, 0);
    addField(page, tr("Seed"), m_driveSeed, tr("The same seed gives the same routes and results"));
    return page;
}

void RunOptions::setDatabase(const QString& location)
{
    m_runPicker->setDatabase(location);
}

QString RunOptions::unknownRuns(const QString& policy) const
{
    if (!m_runPicker->loaded() || policy == QLatin1String("expert") || policy == QLatin1String("idle"))
        return {};
    QStringList unknown;
    for (int id : positiveList(policy))
        if (!m_runPicker->hasRun(id))
            unknown << QString::number(id);
    return unknown.join(QStringLiteral(", "));
}

QWidget* RunOptions::buildLoaderPage()
{
    auto* page = new QWidget(this);
    page->setObjectName("loaderPage");
    new QFormLayout(page);
    m_images = lineEdit(page, "loaderImages", tr("a folder of JPEGs"));
    addField(page, tr("Image folder"), withBrowse(m_images, true, {})->findChild<QLineEdit*>(),
             tr("JPEGs searched recursively"));
    m_loaderBatches = spinBox(page, "loaderBatches", 1, 1000000, 200);
    addField(page, tr("Batches"), m_loaderBatches, tr("Batches measured after a warm-up of a quarter as many"));
    return page;
}

RunKind RunOptions::kind() const
{
    return static_cast<RunKind>(m_kind->currentData().toInt());
}

bool RunOptions::checkedByCli() const
{
    for (const KindInfo& k : kinds())
        if (k.kind == kind())
            return k.cliCheck;
    return false;
}

void RunOptions::setKind(RunKind kind)
{
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(kind)));
}

void RunOptions::setModel(const QString& model)
{
    if (model == m_model)
        return;
    m_model = model;
    const QString keep = m_objective->currentText();
    m_objective->clear();
    m_objective->addItem(QString()); // the config's hpo.objective
    if (m_schema)
        for (const std::string& owner : {std::string("core"), model.toStdString()})
            for (const std::string& metric : m_schema->metrics(owner))
                m_objective->addItem(QStringLiteral("val/") + QString::fromStdString(metric));
    m_objective->setCurrentText(keep);
}

void RunOptions::setPartition(const QString& mode, int logicalDevices)
{
    m_partition->setText(logicalDevices > 0
                             ? tr("%1: %2 logical device%3, one worker each (Devices tab)")
                                   .arg(mode)
                                   .arg(logicalDevices)
                                   .arg(logicalDevices == 1 ? QString() : QStringLiteral("s"))
                             : tr("%1: not available on this machine (Devices tab)").arg(mode));
}

QString RunOptions::spaceFile() const
{
    return m_space->text().trimmed();
}

void RunOptions::setVariantsFile(const QString& path)
{
    m_variantsFile->setText(path);
    setKind(RunKind::Variants);
}

void RunOptions::setProblem(QWidget* field, const QString& problem)
{
    field->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("border: 1px solid #d04040;"));
    if (QLabel* label = m_problemLabels[field]) {
        label->setText(problem);
        label->setVisible(!problem.isEmpty());
    }
}

void RunOptions::clearProblems()
{
    for (const auto& [field, label] : m_problemLabels)
        setProblem(field, {});
}

QString RunOptions::problemAt(const QString& fieldName) const
{
    for (const auto& [field, label] : m_problemLabels)
        if (field->objectName() == fieldName)
            return label->isVisible() ? label->text() : QString();
    return {};
}

QStringList RunOptions::check(const QString& spaceProblems)
{
    clearProblems();
    QStringList problems;
    auto fail = [&](QWidget* field, const QString& problem) {
        setProblem(field, problem);
        problems << problem;
    };
    auto needFile = [&](QLineEdit* edit, bool folder, const QString& what) {
        const QString path = edit->text().trimmed();
        const QFileInfo info(path);
        if (path.isEmpty())
            fail(edit, tr("give %1").arg(what));
        else if (!info.exists())
            fail(edit, tr("%1 does not exist").arg(path));
        else if (folder != info.isDir())
            fail(edit, folder ? tr("%1 is not a folder").arg(path) : tr("%1 is a folder, not a file").arg(path));
    };
    switch (kind()) {
    case RunKind::Train:
        break;
    case RunKind::Search:
        if (!spaceFile().isEmpty())
            needFile(m_space, false, tr("a search space file"));
        else if (!spaceProblems.isEmpty())
            fail(m_space, tr("the Search space tab has problems: %1").arg(spaceProblems));
        if (const QString objective = m_objective->currentText().trimmed(); !objective.isEmpty() && m_schema) {
            QStringList known;
            for (const std::string& owner : {std::string("core"), m_model.toStdString()})
                for (const std::string& metric : m_schema->metrics(owner))
                    known << QStringLiteral("val/") + QString::fromStdString(metric);
            if (!known.isEmpty() && !known.contains(objective))
                fail(m_objective, tr("%1 is not a metric the %2 model records (it records %3)")
                                      .arg(objective, m_model, known.join(QStringLiteral(", "))));
        }
        break;
    case RunKind::Variants:
        needFile(m_variantsFile, false, tr("a bench file"));
        break;
    case RunKind::Partitions:
        if (std::none_of(m_modes.begin(), m_modes.end(), [](QCheckBox* b) { return b->isChecked(); }))
            fail(m_modes.front()->parentWidget(), tr("choose at least one partition mode"));
        break;
    case RunKind::Driving: {
        const QString policy = m_policy->text().trimmed();
        if (policy.isEmpty())
            fail(m_policy, tr("give a run id (see the Studies view), expert or idle"));
        else if (policy != QLatin1String("expert") && policy != QLatin1String("idle") && positiveList(policy).empty())
            fail(m_policy, tr("'%1' is not a run id list (e.g. 12 or 12,13,14), expert or idle").arg(policy));
        else if (const QString unknown = unknownRuns(policy); !unknown.isEmpty())
            fail(m_policy, tr("no run %1 in this database (pick one from the list below)").arg(unknown));
        break;
    }
    case RunKind::Loader:
        needFile(m_images, true, tr("a folder of JPEGs"));
        break;
    }
    // What the job's spec refuses of the fields' values (seeds, batch sizes, ...), at the field it names.
    if (problems.isEmpty()) {
        try {
            jobWords({});
        } catch (const InputError& e) {
            const std::vector<JobProblem> refused = jobProblems(e, fields(), {});
            for (const JobProblem& p : refused)
                problems << QString::fromStdString(p.message);
            showProblems(refused);
        }
    }
    return problems;
}

const JobFields& RunOptions::fields() const
{
    switch (kind()) {
    case RunKind::Train:
        return TrainJob::fields();
    case RunKind::Search:
        return HpoJob::fields();
    case RunKind::Variants:
        return VariantsBenchJob::fields();
    case RunKind::Partitions:
        return PartitionBenchJob::fields();
    case RunKind::Driving:
        return DrivingEvalJob::fields();
    case RunKind::Loader:
        break;
    }
    return LoaderBenchJob::fields();
}

QWidget* RunOptions::fieldWidget(const std::string& field) const
{
    std::vector<std::pair<const char*, QWidget*>> widgets;
    switch (kind()) {
    case RunKind::Train:
        break;
    case RunKind::Search:
        widgets = {{"space", m_space},         {"trials", m_trials},
                   {"epochs", m_epochs},       {"sampler", m_sampler},
                   {"pruner", m_pruner},       {"objective", m_objective},
                   {"direction", m_direction}, {"final_epochs", m_finalEpochs},
                   {"study", m_study}};
        break;
    case RunKind::Variants:
        widgets = {{"file", m_variantsFile}, {"seeds", m_variantSeeds}};
        break;
    case RunKind::Partitions:
        widgets = {
            {"modes", m_modes.front()->parentWidget()}, {"batch_sizes", m_batchSizes}, {"epochs", m_benchEpochs}};
        break;
    case RunKind::Driving:
        widgets = {{"policy", m_policy}, {"routes", m_routes}, {"seed", m_driveSeed}};
        break;
    case RunKind::Loader:
        widgets = {{"images", m_images}, {"batches", m_loaderBatches}, {"warmup", m_loaderBatches}};
        break;
    }
    for (const auto& [name, widget] : widgets)
        if (field == name)
            return widget;
    return nullptr;
}

std::vector<std::string> RunOptions::jobWords(const RunContext& context) const
{
    const auto absolute = [](const QString& path) {
        return QFileInfo(path.trimmed()).absoluteFilePath().toStdString();
    };
    const std::string db = absolute(context.database);
    const std::string config = absolute(context.configFile);
    switch (kind()) {
    case RunKind::Train: {
        TrainJob job;
        job.configs = {config};
        job.database = db;
        return job.toArgs();
    }
    case RunKind::Search: {
        HpoJob job;
        job.configs = {config};
        job.space = absolute(spaceFile().isEmpty() ? context.spaceFile : spaceFile());
        job.trials = m_trials->value();
        job.epochs = givenNumber(m_epochs);
        job.studyOptions.sampler.kind =
            parseSamplerKind(m_sampler->currentText().toStdString()).value_or(SamplerKind::Tpe);
        job.studyOptions.pruner = PrunerSettings::defaults(
            parsePrunerKind(m_pruner->currentText().toStdString()).value_or(PrunerKind::Median));
        job.objective = given(m_objective->currentText());
        if (m_direction->currentIndex() > 0)
            job.direction = parseStudyDirection(m_direction->currentText().toStdString());
        job.finalEpochs = givenNumber(m_finalEpochs);
        job.study = given(m_study->text());
        job.database = db;
        return job.toArgs();
    }
    case RunKind::Variants: {
        VariantsBenchJob job;
        job.file = absolute(m_variantsFile->text());
        if (const auto seeds = given(m_variantSeeds->text()))
            job.seeds = parseSeeds(*seeds);
        job.database = db;
        return job.toArgs();
    }
    case RunKind::Partitions: {
        PartitionBenchJob job;
        job.configs = {config};
        std::vector<std::string> modes;
        for (QCheckBox* box : m_modes)
            if (box->isChecked())
                modes.push_back(box->text().toStdString());
        job.modes = modes;
        cmdline::Args sizes;
        sizes.options["batch-sizes"] = {m_batchSizes->text().remove(QLatin1Char(' ')).toStdString()};
        job.batchSizes = PartitionBenchJob::fromArgs(sizes).batchSizes;
        job.epochs = m_benchEpochs->value();
        job.database = db;
        return job.toArgs();
    }
    case RunKind::Driving: {
        DrivingEvalJob job;
        job.policies = parsePolicyList(m_policy->text().remove(QLatin1Char(' ')).toStdString());
        job.routes = m_routes->value();
        job.seed = m_driveSeed->value();
        job.database = db;
        return job.toArgs();
    }
    case RunKind::Loader:
        break;
    }
    LoaderBenchJob job;
    job.images = absolute(m_images->text());
    job.batches = m_loaderBatches->value();
    job.warmup = std::max(1, m_loaderBatches->value() / 4);
    job.database = db;
    return job.toArgs();
}

QStringList RunOptions::words(const RunContext& context) const
{
    return toQt(jobWords(context));
}

bool RunOptions::loadWords(const QStringList& words, QStringList& configFiles, QStringList& overrides, QString& error)
{
    const KindInfo* found = nullptr;
    for (const KindInfo& k : kinds()) {
        const QStringList command = QString::fromLatin1(k.command).split(QLatin1Char(' '));
        if (words.mid(0, command.size()) == command)
            found = &k;
    }
    if (!found) {
        error = tr("'%1' is not a command the Configure view starts").arg(words.join(QLatin1Char(' ')));
        return false;
    }
    try {
        loadJob(found->kind, fromQt(words), configFiles, overrides);
    } catch (const InputError& e) {
        error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

void RunOptions::loadJob(RunKind kind, const std::vector<std::string>& words, QStringList& configFiles,
                         QStringList& overrides)
{
    switch (kind) {
    case RunKind::Train: {
        const TrainJob job = TrainJob::fromArgs(words);
        configFiles << toQt(job.configs);
        overrides << toQt(job.overrides);
        break;
    }
    case RunKind::Search: {
        const HpoJob job = HpoJob::fromArgs(words);
        if (job.resume)
            throw InputError(tr("this job continues an earlier one (--resume); Resume it from the Jobs panel instead")
                                 .toStdString());
        configFiles << toQt(job.configs);
        overrides << toQt(job.overrides);
        m_trials->setValue(job.trials.value_or(m_trials->value()));
        m_epochs->setValue(job.epochs.value_or(m_epochs->minimum()));
        m_finalEpochs->setValue(job.finalEpochs.value_or(m_finalEpochs->minimum()));
        m_space->setText(QString::fromStdString(job.space));
        m_study->setText(QString::fromStdString(job.study.value_or("")));
        m_sampler->setCurrentText(QString::fromLatin1(samplerKindName(job.studyOptions.sampler.kind)));
        m_pruner->setCurrentText(QString::fromLatin1(prunerKindName(job.studyOptions.pruner.kind)));
        m_objective->setCurrentText(QString::fromStdString(job.objective.value_or("")));
        if (job.direction)
            m_direction->setCurrentText(
                QString::fromStdString(std::string(studyDirectionName(*job.direction))).toLower());
        else
            m_direction->setCurrentIndex(0);
        break;
    }
    case RunKind::Variants: {
        const VariantsBenchJob job = VariantsBenchJob::fromArgs(words);
        m_variantsFile->setText(QString::fromStdString(job.file));
        m_variantSeeds->setText(job.seeds ? joinedNumbers(*job.seeds) : QString());
        break;
    }
    case RunKind::Partitions: {
        const PartitionBenchJob job = PartitionBenchJob::fromArgs(words);
        configFiles << toQt(job.configs);
        overrides << toQt(job.overrides);
        const QStringList modes = job.modes ? toQt(*job.modes) : QStringList();
        for (QCheckBox* box : m_modes)
            box->setChecked(modes.isEmpty() || modes.contains(box->text()));
        if (job.batchSizes)
            m_batchSizes->setText(joinedNumbers(*job.batchSizes));
        m_benchEpochs->setValue(job.epochs.value_or(m_benchEpochs->value()));
        break;
    }
    case RunKind::Driving: {
        const DrivingEvalJob job = DrivingEvalJob::fromArgs(words);
        m_policy->setText(toQt(job.policies).join(QLatin1Char(',')));
        m_routes->setValue(job.routes.value_or(m_routes->value()));
        m_driveSeed->setValue(static_cast<int>(job.seed.value_or(m_driveSeed->value())));
        break;
    }
    case RunKind::Loader: {
        const LoaderBenchJob job = LoaderBenchJob::fromArgs(words);
        m_images->setText(QString::fromStdString(job.images));
        m_loaderBatches->setValue(job.batches.value_or(m_loaderBatches->value()));
        break;
    }
    }
    setKind(kind);
}

QStringList RunOptions::showProblems(const std::vector<JobProblem>& problems)
{
    QStringList placed;
    std::map<QWidget*, QStringList> messages;
    for (const JobProblem& p : problems)
        if (QWidget* field = fieldWidget(p.field)) {
            messages[field] << QString::fromStdString(p.message);
            if (!placed.contains(field->objectName()))
                placed << field->objectName();
        }
    for (const auto& [field, texts] : messages)
        setProblem(field, texts.join(QLatin1Char('\n')));
    return placed;
}

} // namespace pitwall::ui
