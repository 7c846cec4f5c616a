#include "ui/views/runoptions.h"

#include "ui/views/runpicker.h"

#include "core/config/schema.h"

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
    const char* command; // the words before the options
    bool cliCheck;       // Start runs the command with --check first
};

const std::vector<KindInfo>& kinds()
{
    static const std::vector<KindInfo> all{
        {RunKind::Train, QT_TRANSLATE_NOOP("RunOptions", "Training run"), "train", false},
        {RunKind::Search, QT_TRANSLATE_NOOP("RunOptions", "Hyperparameter search"), "hpo", true},
        {RunKind::Variants, QT_TRANSLATE_NOOP("RunOptions", "Variant benchmark"), "bench variants", true},
        {RunKind::Partitions, QT_TRANSLATE_NOOP("RunOptions", "Partition benchmark"), "bench partitions", true},
        {RunKind::Driving, QT_TRANSLATE_NOOP("RunOptions", "Closed-loop driving evaluation"), "eval driving", true},
        {RunKind::Loader, QT_TRANSLATE_NOOP("RunOptions", "Data-loader benchmark"), "bench loader", true},
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

// The value after `--name` in a command line ("" when absent).
QString optionIn(const QStringList& words, const QString& name)
{
    const qsizetype at = words.indexOf(QStringLiteral("--") + name);
    return at >= 0 && at + 1 < words.size() ? words.at(at + 1) : QString();
}

} // namespace

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
    m_study = lineEdit(page, "searchStudy", tr("<experiment.name>-hpo"));
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
    case RunKind::Variants: {
        needFile(m_variantsFile, false, tr("a bench file"));
        const QString seeds = m_variantSeeds->text().trimmed();
        bool count = false;
        const int n = seeds.toInt(&count);
        if (!seeds.isEmpty() && !(count && n >= 1) && !seeds.contains(QLatin1Char(',')))
            fail(m_variantSeeds, tr("seeds are a count of at least 1 or a list such as 0,1,2"));
        else if (seeds.contains(QLatin1Char(',')))
            for (const QString& part : seeds.split(QLatin1Char(','))) {
                bool ok = false;
                if (part.trimmed().toInt(&ok) < 0 || !ok) {
                    fail(m_variantSeeds, tr("'%1' is not a seed (a whole number ≥ 0)").arg(part.trimmed()));
                    break;
                }
            }
        break;
    }
    case RunKind::Partitions:
        if (std::none_of(m_modes.begin(), m_modes.end(), [](QCheckBox* b) { return b->isChecked(); }))
            fail(m_modes.front()->parentWidget(), tr("choose at least one partition mode"));
        if (positiveList(m_batchSizes->text()).empty())
            fail(m_batchSizes, tr("batch sizes are whole numbers ≥ 1 separated by commas, e.g. 8,16,32"));
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
    return problems;
}

QStringList RunOptions::words(const RunContext& context) const
{
    const QString db = QFileInfo(context.database).absoluteFilePath();
    const QString config = QFileInfo(context.configFile).absoluteFilePath();
    QStringList w;
    switch (kind()) {
    case RunKind::Train:
        w << QStringLiteral("train") << config;
        break;
    case RunKind::Search:
        w << QStringLiteral("hpo") << config << QStringLiteral("--space")
          << QFileInfo(spaceFile().isEmpty() ? context.spaceFile : spaceFile()).absoluteFilePath()
          << QStringLiteral("--trials") << QString::number(m_trials->value()) << QStringLiteral("--sampler")
          << m_sampler->currentText() << QStringLiteral("--pruner") << m_pruner->currentText();
        if (m_epochs->value() > 0)
            w << QStringLiteral("--epochs") << QString::number(m_epochs->value());
        if (const QString objective = m_objective->currentText().trimmed(); !objective.isEmpty())
            w << QStringLiteral("--objective") << objective;
        if (m_direction->currentIndex() > 0)
            w << QStringLiteral("--direction") << m_direction->currentText();
        if (m_finalEpochs->value() > 0)
            w << QStringLiteral("--final-epochs") << QString::number(m_finalEpochs->value());
        if (const QString study = m_study->text().trimmed(); !study.isEmpty())
            w << QStringLiteral("--study") << study;
        break;
    case RunKind::Variants:
        w << QStringLiteral("bench") << QStringLiteral("variants")
          << QFileInfo(m_variantsFile->text().trimmed()).absoluteFilePath();
        if (const QString seeds = m_variantSeeds->text().trimmed(); !seeds.isEmpty())
            w << QStringLiteral("--seeds") << seeds;
        break;
    case RunKind::Partitions: {
        QStringList modes;
        for (QCheckBox* box : m_modes)
            if (box->isChecked())
                modes << box->text();
        w << QStringLiteral("bench") << QStringLiteral("partitions") << QStringLiteral("--config") << config
          << QStringLiteral("--modes") << modes.join(QLatin1Char(',')) << QStringLiteral("--batch-sizes")
          << m_batchSizes->text().remove(QLatin1Char(' ')) << QStringLiteral("--epochs")
          << QString::number(m_benchEpochs->value());
        break;
    }
    case RunKind::Driving:
        w << QStringLiteral("eval") << QStringLiteral("driving") << QStringLiteral("--policy")
          << m_policy->text().remove(QLatin1Char(' ')) << QStringLiteral("--routes") << QString::number(m_routes->value())
          << QStringLiteral("--seed") << QString::number(m_driveSeed->value());
        break;
    case RunKind::Loader:
        w << QStringLiteral("bench") << QStringLiteral("loader") << QStringLiteral("--images")
          << QFileInfo(m_images->text().trimmed()).absoluteFilePath() << QStringLiteral("--batches")
          << QString::number(m_loaderBatches->value()) << QStringLiteral("--warmup")
          << QString::number(std::max(1, m_loaderBatches->value() / 4));
        break;
    }
    w << QStringLiteral("--db") << db;
    return w;
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
    if (words.contains(QStringLiteral("--resume"))) {
        error = tr("this job continues an earlier one (--resume); Resume it from the Jobs panel instead");
        return false;
    }
    const int skip = static_cast<int>(QString::fromLatin1(found->command).count(QLatin1Char(' '))) + 1;
    // Options that take a value, so that their values are not read as config files.
    static const QStringList valued{
        QStringLiteral("--db"), QStringLiteral("--space"), QStringLiteral("--trials"), QStringLiteral("--epochs"),
        QStringLiteral("--sampler"), QStringLiteral("--pruner"), QStringLiteral("--objective"),
        QStringLiteral("--direction"), QStringLiteral("--final-epochs"), QStringLiteral("--study"),
        QStringLiteral("--seeds"), QStringLiteral("--only"), QStringLiteral("--config"), QStringLiteral("--modes"),
        QStringLiteral("--batch-sizes"), QStringLiteral("--policy"), QStringLiteral("--routes"),
        QStringLiteral("--seed"), QStringLiteral("--images"), QStringLiteral("--batches"), QStringLiteral("--warmup"),
        QStringLiteral("--partition"), QStringLiteral("--backend")};
    QStringList positional;
    for (int i = skip; i < words.size(); ++i) {
        const QString& w = words.at(i);
        if (w == QLatin1String("--config") && i + 1 < words.size())
            configFiles << words.at(i + 1);
        if (valued.contains(w))
            ++i;
        else if (w.startsWith(QLatin1String("--")))
            continue;
        else if (w.contains(QLatin1Char('=')))
            overrides << w;
        else
            positional << w;
    }
    setKind(found->kind);
    auto setNumber = [&](QSpinBox* box, const QString& option) {
        if (const QString v = optionIn(words, option); !v.isEmpty())
            box->setValue(v.toInt());
    };
    switch (found->kind) {
    case RunKind::Train:
        configFiles << positional;
        break;
    case RunKind::Search:
        configFiles << positional;
        setNumber(m_trials, QStringLiteral("trials"));
        setNumber(m_epochs, QStringLiteral("epochs"));
        setNumber(m_finalEpochs, QStringLiteral("final-epochs"));
        m_space->setText(optionIn(words, QStringLiteral("space")));
        m_study->setText(optionIn(words, QStringLiteral("study")));
        if (const QString v = optionIn(words, QStringLiteral("sampler")); !v.isEmpty())
            m_sampler->setCurrentText(v);
        if (const QString v = optionIn(words, QStringLiteral("pruner")); !v.isEmpty())
            m_pruner->setCurrentText(v);
        m_objective->setCurrentText(optionIn(words, QStringLiteral("objective")));
        if (const QString v = optionIn(words, QStringLiteral("direction")); !v.isEmpty())
            m_direction->setCurrentText(v);
        break;
    case RunKind::Variants:
        m_variantsFile->setText(positional.value(0));
        m_variantSeeds->setText(optionIn(words, QStringLiteral("seeds")));
        break;
    case RunKind::Partitions: {
        const QStringList modes = optionIn(words, QStringLiteral("modes")).split(QLatin1Char(','), Qt::SkipEmptyParts);
        for (QCheckBox* box : m_modes)
            box->setChecked(modes.isEmpty() || modes.contains(box->text()));
        if (const QString v = optionIn(words, QStringLiteral("batch-sizes")); !v.isEmpty())
            m_batchSizes->setText(v);
        setNumber(m_benchEpochs, QStringLiteral("epochs"));
        break;
    }
    case RunKind::Driving:
        m_policy->setText(optionIn(words, QStringLiteral("policy")));
        setNumber(m_routes, QStringLiteral("routes"));
        setNumber(m_driveSeed, QStringLiteral("seed"));
        break;
    case RunKind::Loader:
        m_images->setText(optionIn(words, QStringLiteral("images")));
        setNumber(m_loaderBatches, QStringLiteral("batches"));
        break;
    }
    return true;
}

QString RunOptions::showCliProblem(const QString& message)
{
    // What a message may name of this kind's fields: the option words() gives the field, or the path it holds.
    std::vector<std::pair<QString, QWidget*>> options;
    const auto pathOf = [&options](QLineEdit* edit) {
        if (const QString path = edit->text().trimmed(); !path.isEmpty())
            options.emplace_back(QFileInfo(path).absoluteFilePath(), edit);
    };
    switch (kind()) {
    case RunKind::Search:
        options = {{QStringLiteral("--objective"), m_objective}, {QStringLiteral("hpo.objective"), m_objective},
                   {QStringLiteral("--study"), m_study},         {QStringLiteral("study '"), m_study},
                   {QStringLiteral("--sampler"), m_sampler},     {QStringLiteral("--pruner"), m_pruner},
                   {QStringLiteral("--trials"), m_trials},       {QStringLiteral("--final-epochs"), m_finalEpochs},
                   {QStringLiteral("--epochs"), m_epochs},       {QStringLiteral("--direction"), m_direction},
                   {QStringLiteral("--space"), m_space}};
        break;
    case RunKind::Variants:
        options = {{QStringLiteral("--seeds"), m_variantSeeds}, {QStringLiteral("variant '"), m_variantsFile}};
        pathOf(m_variantsFile);
        break;
    case RunKind::Partitions:
        options = {{QStringLiteral("--modes"), m_modes.front()->parentWidget()},
                   {QStringLiteral("--batch-sizes"), m_batchSizes},
                   {QStringLiteral("training.optimization.batch_size"), m_batchSizes},
                   {QStringLiteral("--epochs"), m_benchEpochs}};
        break;
    case RunKind::Loader:
        options = {{QStringLiteral("--images"), m_images},
                   {QStringLiteral("--batches"), m_loaderBatches},
                   {QStringLiteral("--warmup"), m_loaderBatches}};
        pathOf(m_images);
        break;
    case RunKind::Driving:
        // `eval driving --check` loads every picked run's last checkpoint and plans once with it: what it refuses
        // of a run ("no run 7 in ...", "run 7 has no checkpoint ...", "checkpoint of run 7 not found", "run 7:
        // the model cannot drive ...") belongs to the policy field, which the run picker fills.
        options = {{QStringLiteral("--policy"), m_policy},
                   {QStringLiteral("--routes"), m_routes},
                   {QStringLiteral("routes must be"), m_routes},
                   {QStringLiteral("--seed"), m_driveSeed}};
        for (int id : positiveList(m_policy->text()))
            options.emplace_back(QStringLiteral("run %1").arg(id), m_policy);
        break;
    case RunKind::Train:
        return {};
    }
    QWidget* field = nullptr;
    qsizetype first = -1;
    for (const auto& [option, widget] : options) {
        const qsizetype at = message.indexOf(option);
        if (at >= 0 && (first < 0 || at < first)) {
            first = at;
            field = widget;
        }
    }
    if (!field)
        return {};
    setProblem(field, message);
    return field->objectName();
}

} // namespace pitwall::ui

