#include "ui/configure/configureview.h"
#include "ui/locations.h"
#include "ui/theme.h"

#include "core/jobs/hpojob.h"
#include "core/jobs/jobproblems.h"
#include "core/jobs/variantsfile.h"
#include "core/store/jobstore.h"
#include "ui/configure/configform.h"
#include "ui/configure/devicepanel.h"
#include "ui/configure/internal/searchspaceeditor.h"
#include "ui/configure/runoptions.h"
#include "ui/jobs/jobspanel.h"
#include "ui/tasks/taskmanager.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cerrno>
#include <csignal>

namespace pitwall::ui {

namespace {

constexpr int kWatchIntervalMs = 700;

Schema loadSchemaReporting(QString& problems)
{
    std::vector<Diagnostic> found;
    Schema schema = loadSchema(&found);
    QStringList lines;
    for (const Diagnostic& d : found)
        lines << QString::fromStdString(d.toString());
    problems = lines.join(QLatin1Char('\n'));
    return schema;
}

QString tailOf(const QString& path, qint64 maxBytes = 4000)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    if (file.size() > maxBytes)
        file.seek(file.size() - maxBytes);
    // Progress lines redraw with '\r'; keep the last state of each.
    QString text = QString::fromUtf8(file.readAll());
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n')))
        lines << line.section(QLatin1Char('\r'), -1);
    return lines.join(QLatin1Char('\n')).trimmed();
}

// A launched job's record, read by a task: `read` is false when the store was busy or unreadable (look again).
struct LaunchedJob {
    bool read = false;
    std::optional<JobRecord> job;
};

LaunchedJob readLaunchedJob(const QString& db, qint64 id)
{
    try {
        return {true, JobStore(db.toStdString(), OpenMode::ReadOnly).job(id)};
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace

ConfigureView::ConfigureView(QWidget* parent)
    : QWidget(parent), m_schema(loadSchemaReporting(m_schemaProblems)), m_loaded(m_schema)
{
    setObjectName("configureView");
    m_cli = defaultCliPath();
    m_form = new ConfigForm(m_schema, this);
    QWidget* left = buildFormColumn();
    buildPanels();
    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(m_panels);
    left->setMinimumWidth(300); // explicit minimums: the panels' size hints would otherwise squeeze the form
    m_panels->setMinimumWidth(300);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({450, 450});
    QHBoxLayout* bar = buildButtonBar();

    m_output = new QPlainTextEdit(this);
    m_output->setObjectName("launchOutput");
    m_output->setReadOnly(true);
    m_output->setMaximumBlockCount(500);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("Launched work reports here; its runs appear in the Live view."));
    m_output->setMinimumHeight(3 * m_output->fontMetrics().height()); // a short window (700 px) still fits

    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(splitter);
    vertical->addWidget(m_output);
    vertical->setStretchFactor(0, 5);
    vertical->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(vertical, 1);

    followForm();
    m_watch = new QTimer(this);
    m_watch->setInterval(kWatchIntervalMs);
    connect(m_watch, &QTimer::timeout, this, &ConfigureView::watchLaunch);
    m_loaded = m_form->config();
}

QWidget* ConfigureView::buildFormColumn()
{
    auto* filter = new QLineEdit(this);
    filter->setObjectName("configFilter");
    filter->setPlaceholderText(tr("Filter keys…"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_form, &ConfigForm::filter);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(filter);
    leftLayout->addWidget(scroll, 1);
    if (!m_schemaProblems.isEmpty()) {
        auto* problems = new QLabel(tr("Plugin schemas left out:\n%1").arg(m_schemaProblems), this);
        problems->setWordWrap(true);
        problems->setStyleSheet(QStringLiteral("color: #d04040;"));
        leftLayout->addWidget(problems);
    }
    return left;
}

void ConfigureView::buildPanels()
{
    m_panels = new QTabWidget(this);
    m_panels->setObjectName("configurePanels");
    m_run = new RunOptions(&m_schema, this);
    m_panels->addTab(m_run, tr("What to run"));
    m_panels->addTab(buildSpeedPanel(), tr("Speed options"));
    m_devices = new DevicePanel(m_form, this);
    m_panels->addTab(m_devices, tr("Devices"));
    m_space = new SearchSpaceEditor(&m_schema, this);
    m_panels->addTab(m_space, tr("Search space"));
    m_yaml = new QPlainTextEdit(this);
    m_yaml->setObjectName("resolvedYaml");
    m_yaml->setReadOnly(true);
    m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_panels->addTab(m_yaml, tr("Resolved YAML"));
}

QHBoxLayout* ConfigureView::buildButtonBar()
{
    m_fileLabel = new QLabel(tr("New config (defaults)"), this);
    m_dbLabel = new QLabel(this);
    auto* open = new QPushButton(tr("Open config…"), this);
    auto* save = new QPushButton(tr("&Save config"), this);
    auto* saveAs = new QPushButton(tr("Save &as…"), this);
    m_launch = new QPushButton(tr("S&tart"), this);
    m_launch->setToolTip(tr("Check the fields and start what What to run says, in the background"));
    m_launch->setObjectName("launchButton");
    m_launch->setIcon(actionIcon("start"));
    open->setIcon(actionIcon("open"));
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open config"), m_configPath, tr("YAML (*.yaml *.yml)"));
        if (!path.isEmpty())
            if (const QString error = loadConfig(path); !error.isEmpty())
                report(error, true);
    });
    connect(save, &QPushButton::clicked, this, [this] { saveConfigAsking(false); });
    connect(saveAs, &QPushButton::clicked, this, [this] { saveConfigAsking(true); });
    connect(m_launch, &QPushButton::clicked, this, &ConfigureView::launch);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_fileLabel, 1);
    bar->addWidget(m_dbLabel);
    bar->addWidget(open);
    bar->addWidget(save);
    bar->addWidget(saveAs);
    bar->addWidget(m_launch);
    return bar;
}

void ConfigureView::saveConfigAsking(bool ask)
{
    // "Save" writes back only to a file this view wrote; a loaded file (with its comments and layers)
    // is never overwritten without asking.
    QString path = m_savedPath;
    if (ask || path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save config"), m_configPath, tr("YAML (*.yaml *.yml)"));
    if (path.isEmpty())
        return;
    const QString error = saveConfig(path);
    report(error.isEmpty() ? tr("Saved %1").arg(path) : error, !error.isEmpty());
}

void ConfigureView::followForm()
{
    auto follow = [this] {
        const QString model = QString::fromStdString(m_form->config().getString("experiment.model"));
        m_space->setModel(model);
        m_run->setModel(model);
        m_run->setPartition(QString::fromStdString(m_form->config().getString("device.partition_mode")),
                            m_devices->logicalDevices()->topLevelItemCount());
    };
    connect(m_form, &ConfigForm::changed, this, &ConfigureView::updateYaml);
    connect(m_form, &ConfigForm::changed, this, &ConfigureView::filterSpeedOptions);
    filterSpeedOptions();
    connect(m_form, &ConfigForm::changed, this, follow);
    connect(m_devices, &DevicePanel::devicesShown, this, follow);
    connect(m_run, &RunOptions::kindChanged, this,
            [this] { m_launch->setText(m_run->kind() == RunKind::Train ? tr("S&tart training") : tr("S&tart")); });
    updateYaml();
    follow();
}

QWidget* ConfigureView::buildSpeedPanel()
{
    auto* panel = new QWidget(this);
    panel->setObjectName("speedPanel");
    auto* layout = new QFormLayout(panel);
    auto* intro = new QLabel(
        tr("Options that trade speed for something else (LEAD, AutoSpeed). Same values as the form."), panel);
    intro->setWordWrap(true);
    layout->addRow(intro);
    for (const KeySpec& spec : m_schema.keys()) {
        if (!spec.speed)
            continue;
        const QString key = QString::fromStdString(spec.key);
        QWidget* editor = m_form->createEditor(key, panel);
        auto* label = new QLabel(key, panel);
        label->setToolTip(QString::fromStdString(spec.doc));
        layout->addRow(label, editor);
        m_speedRows.emplace_back(spec.owner, label);
    }
    auto* compare = new QPushButton(tr("Compare these…"), panel);
    compare->setObjectName("compareSpeedOptions");
    compare->setToolTip(tr("A variant benchmark of the current config against the options changed here "
                           "(What to run ▸ Variant benchmark; press Start to run it)"));
    connect(compare, &QPushButton::clicked, this, [this] {
        const QString problem = prepareSpeedComparison();
        report(problem.isEmpty() ? tr("Variant benchmark prepared in What to run; press Start to run it.") : problem,
               !problem.isEmpty());
    });
    layout->addRow(compare);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    return scroll;
}

void ConfigureView::filterSpeedOptions()
{
    const std::string model =
        m_form->config().contains("experiment.model") ? m_form->config().getString("experiment.model") : std::string();
    for (const auto& [owner, label] : m_speedRows)
        if (auto* form = qobject_cast<QFormLayout*>(label->parentWidget()->layout()))
            form->setRowVisible(label, owner == "core" || owner == model);
}

void ConfigureView::updateYaml()
{
    const int scrolled = m_yaml->verticalScrollBar()->value();
    m_yaml->setPlainText(QString::fromStdString(m_form->config().toYaml(true)));
    m_yaml->verticalScrollBar()->setValue(scrolled);
}

void ConfigureView::setDatabase(const QString& location)
{
    m_db = location;
    m_run->setDatabase(location);
    m_dbLabel->setText(tr("→ %1").arg(locationName(location)));
    m_dbLabel->setToolTip(location);
}

QString ConfigureView::loadConfig(const QString& path)
{
    try {
        m_form->setConfig(resolveConfig(m_schema, {path.toStdString()}, {}));
        m_loaded = m_form->config();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    m_configPath = path;
    m_savedPath.clear();
    m_fileLabel->setText(QFileInfo(path).absoluteFilePath());
    return {};
}

QString ConfigureView::saveConfig(const QString& path)
{
    if (m_form->hasProblems())
        return tr("Fix the fields marked in red first.");
    // QSaveFile: written beside, then renamed over the file, so a full disk leaves the old file and says so.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("cannot write %1: %2").arg(path, file.errorString());
    file.write("# Written by pitwall-gui: the keys that differ from the schema defaults.\n");
    file.write(m_form->config().toYaml(false, true).c_str());
    if (!file.commit())
        return tr("cannot write %1: %2").arg(path, file.errorString());
    m_configPath = path;
    m_savedPath = path;
    m_fileLabel->setText(QFileInfo(path).absoluteFilePath());
    return {};
}

void ConfigureView::report(const QString& text, bool error)
{
    const QString stamp = QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
    m_output->appendHtml(QStringLiteral("<span style=\"%1\">[%2] %3</span>")
                             .arg(error ? QStringLiteral("color:#d04040") : QString(), stamp,
                                  text.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>"))));
}

QString ConfigureView::writeBesideDatabase(const QString& suffix, const QByteArray& contents)
{
    // What is started is written to a new file beside the database (a record of exactly what ran); the
    // file the form was loaded from or saved to is left alone.
    const QDir dir(QFileInfo(m_db).absoluteDir().filePath(QStringLiteral("pitwall-gui")));
    QDir().mkpath(dir.path());
    const QString path = dir.filePath(
        QStringLiteral("%1-%2%3")
            .arg(QString::fromStdString(m_form->config().getString("experiment.name")).replace(QLatin1Char('/'), QLatin1Char('_')),
                 QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")), suffix));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(contents) != contents.size() || !file.commit())
        return {};
    return path;
}

bool ConfigureView::launch()
{
    QStringList problems;
    if (m_form->hasProblems())
        problems << tr("fix the fields marked in red in the form first");
    QString spaceProblems;
    if (m_run->kind() == RunKind::Search && m_run->spaceFile().isEmpty())
        spaceProblems = m_space->rows().empty() ? tr("add parameters (Search space tab) or give a space file")
                                                : (m_space->hasProblems() ? m_space->problems() : QString());
    problems << m_run->check(spaceProblems);
    if (m_db.isEmpty())
        problems << tr("open or create a results database first (File ▸ Open)");
    if (m_cli.isEmpty() || !QFileInfo(m_cli).isExecutable())
        problems << tr("the pitwall command was not found beside pitwall-gui or on PATH");
    if (!problems.isEmpty()) {
        report(tr("Not started:\n• %1").arg(problems.join(QStringLiteral("\n• "))), true);
        if (m_run->kind() != RunKind::Train && !m_form->hasProblems())
            m_panels->setCurrentWidget(m_run);
        Q_EMIT launchRefused();
        return false;
    }
    const QString path = writeBesideDatabase(
        QStringLiteral(".yaml"),
        QByteArray("# Written by pitwall-gui: the keys that differ from the schema defaults.\n") +
            QByteArray::fromStdString(m_form->config().toYaml(false, true)));
    RunContext context{path, {}, m_db};
    if (m_run->kind() == RunKind::Search && m_run->spaceFile().isEmpty())
        context.spaceFile = writeBesideDatabase(QStringLiteral("-space.yaml"), m_space->toYaml().toUtf8());
    if (path.isEmpty() || (m_run->kind() == RunKind::Search && m_run->spaceFile().isEmpty() && context.spaceFile.isEmpty())) {
        report(tr("cannot write beside %1").arg(m_db), true);
        Q_EMIT launchRefused();
        return false;
    }
    const QStringList words = m_run->words(context);
    // Quick, attached checks first: what the CLI rejects is reported here with its own words, at its field
    // where it names one. A search, the benchmarks and a driving evaluation run all of their start-up checks
    // (`hpo --check`: space, objective, study name; `bench ... --check`: bench file and variants, modes and batch
    // sizes, image folder; `eval driving --check`: routes, seed, and each picked run's checkpoint loaded and
    // planning once).
    QList<QStringList> checks{{QStringLiteral("config"), QStringLiteral("validate"), path}};
    if (m_run->checkedByCli())
        checks << toQt(checkWords(fromQt(words)));
    m_launch->setEnabled(false);
    report(tr("Checking %1…").arg(path), false);
    runChecks(checks, words);
    return true;
}

void ConfigureView::runChecks(QList<QStringList> checks, const QStringList& words)
{
    if (checks.isEmpty()) {
        startJob(words);
        return;
    }
    const QStringList args = checks.takeFirst();
    auto* check = new QProcess(this);
    check->setProgram(m_cli);
    check->setArguments(args);
    check->setWorkingDirectory(QFileInfo(m_db).absolutePath());
    connect(check, &QProcess::finished, this, [this, check, checks, words, args](int code, QProcess::ExitStatus status) {
        check->deleteLater();
        if (status == QProcess::NormalExit && code == 0) {
            runChecks(checks, words);
            return;
        }
        // A job's own check answers its problems as JSON, each with the field it belongs to; anything else it says
        // (the config check, a command line it could not parse) is only reported.
        const QString err = QString::fromUtf8(check->readAllStandardError()).trimmed();
        const std::vector<JobProblem> problems =
            jobProblemsFromJson(nlohmann::json::parse(check->readAllStandardOutput().toStdString(), nullptr, false));
        QStringList said;
        for (const JobProblem& p : problems)
            said << QString::fromStdString(p.message);
        if (!err.isEmpty())
            said << err;
        if (!m_run->showProblems(problems).isEmpty())
            m_panels->setCurrentWidget(m_run);
        report(
            tr("pitwall %1 refused it:\n%2").arg(args.mid(0, 2).join(QLatin1Char(' ')), said.join(QLatin1Char('\n'))),
            true);
        m_launch->setEnabled(true);
        Q_EMIT launchRefused();
    });
    connect(check, &QProcess::errorOccurred, this, [this, check](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // `finished` reports it
        report(tr("cannot run %1: %2").arg(m_cli, check->errorString()), true);
        m_launch->setEnabled(true);
        Q_EMIT launchRefused();
        check->deleteLater();
    });
    check->start();
}

void ConfigureView::startJob(const QStringList& words)
{
    auto* start = new QProcess(this);
    start->setProgram(m_cli);
    start->setArguments(toQt(detachedWords(fromQt(words))));
    start->setWorkingDirectory(QFileInfo(m_db).absolutePath());
    const int kind = static_cast<int>(m_run->kind());
    QString study;
    if (m_run->kind() == RunKind::Search) {
        study = QString::fromStdString(
            HpoJob::fromArgs(fromQt(words)).study.value_or(
            HpoJob::defaultStudyName(m_form->config().getString("experiment.name"))));
    } else if (m_run->kind() == RunKind::Train) {
        study = QString::fromStdString(m_form->config().getString("experiment.name"));
    }
    connect(start, &QProcess::finished, this, [this, start, words, kind, study](int code, QProcess::ExitStatus) {
        start->deleteLater();
        m_launch->setEnabled(true);
        const QString out = QString::fromUtf8(start->readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(start->readAllStandardError()).trimmed();
        bool ok = false;
        const qint64 id = out.section(QLatin1Char('\n'), -1).toLongLong(&ok);
        if (code != 0 || !ok) {
            report(tr("pitwall %1 did not start:\n%2").arg(words.mid(0, 2).join(QLatin1Char(' ')), err), true);
            Q_EMIT launchRefused();
            return;
        }
        m_jobId = id;
        m_jobLog.clear();
        TaskManager::instance()->start(
            {tr("Reading job %1").arg(id), TaskManager::keyFor(this, QStringLiteral("launched-job"))}, this,
            [db = m_db, id](TaskContext&) { return readLaunchedJob(db, id); },
            [this, id, words, kind, study](LaunchedJob read) {
                if (id != m_jobId)
                    return; // another job was launched meanwhile
                if (read.job)
                    m_jobLog = QString::fromStdString(read.job->logFile);
                report(tr("Started job %1: pitwall %2\nIt keeps running if this window closes; its log: %3")
                           .arg(id)
                           .arg(words.join(QLatin1Char(' ')), m_jobLog),
                       false);
                m_watch->start();
                Q_EMIT launched(id, kind, study);
            });
    });
    connect(start, &QProcess::errorOccurred, this, [this, start](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        report(tr("cannot start %1: %2").arg(m_cli, start->errorString()), true);
        m_launch->setEnabled(true);
        Q_EMIT launchRefused();
        start->deleteLater();
    });
    start->start();
}

void ConfigureView::watchLaunch()
{
    const qint64 id = m_jobId;
    TaskManager::instance()->start(
        {tr("Following job %1").arg(id), TaskManager::keyFor(this, QStringLiteral("launch-watch"))}, this,
        [db = m_db, id](TaskContext&) { return readLaunchedJob(db, id); },
        [this, id](LaunchedJob read) {
            if (id != m_jobId || !m_watch->isActive() || !read.read)
                return; // another job since, already reported, or busy: look again
            const std::optional<JobRecord>& job = read.job;
            if (job && !isFinal(job->state))
                return;
            m_watch->stop();
            const QString tail = tailOf(m_jobLog);
            // A job the CLI refused (bad input) removes its record: its log says why.
            const bool failed = !job || job->state == JobState::Failed;
            const QString how =
                !job ? tr("was refused") : tr("ended %1").arg(QString::fromLatin1(jobStateName(job->state)));
            if (failed)
                report(tr("Job %1 %2; its log ends:\n%3").arg(m_jobId).arg(how, tail), true);
            else
                report(tr("Job %1 %2.").arg(m_jobId).arg(how), false);
            Q_EMIT launchEnded(m_jobId, tail);
        });
}

QString ConfigureView::speedComparisonYaml(const QString& configFile, QString& problem) const
{
    // Toggled: the speed options changed since the config was loaded (or since the view opened).
    std::vector<std::pair<std::string, std::string>> toggled; // key, value before as text
    // The partition mode and logical devices are compared by a partition benchmark, not a variant one.
    bool partitionToggled = false;
    for (const KeySpec& spec : m_schema.keys()) {
        if (!spec.speed || !m_form->config().contains(spec.key) || !m_loaded.contains(spec.key))
            continue;
        if (spec.key.starts_with("device.") || spec.key.starts_with("training.distribution.")) {
            partitionToggled = partitionToggled ||
                               m_form->config().value(spec.key).toText() != m_loaded.value(spec.key).toText();
            continue;
        }
        if (m_form->config().value(spec.key).toText() != m_loaded.value(spec.key).toText())
            toggled.emplace_back(spec.key, m_loaded.value(spec.key).toText());
    }
    if (toggled.empty()) {
        problem = partitionToggled
                      ? tr("The partition mode and logical devices are compared by a partition benchmark (What to run "
                           "▸ Partition benchmark), not by Compare these; toggle another speed option to compare it.")
                      : tr("Toggle at least one speed option first: Compare these compares the config as loaded with "
                           "the options changed since.");
        return {};
    }
    VariantsFile file;
    file.name = m_form->config().getString("experiment.name") + "-speed";
    file.base = {configFile.toStdString()};
    auto variant = [&](const QString& name, const std::vector<std::string>& overrides) {
        file.variants.push_back({name.toStdString(), {}, overrides, {}});
    };
    std::vector<std::string> defaults;
    for (const auto& [key, value] : toggled)
        defaults.push_back(key + "=" + value);
    variant(tr("Baseline"), defaults);
    if (toggled.size() > 1)
        for (std::size_t i = 0; i < toggled.size(); ++i) {
            std::vector<std::string> only = defaults;
            only.erase(only.begin() + static_cast<std::ptrdiff_t>(i));
            variant(QStringLiteral("+ %1=%2")
                        .arg(QString::fromStdString(toggled[i].first),
                             QString::fromStdString(m_form->config().value(toggled[i].first).toText())),
                    only);
        }
    QStringList names;
    for (const auto& [key, value] : toggled)
        names << QString::fromStdString(key + "=" + m_form->config().value(key).toText());
    variant(names.join(QStringLiteral(", ")), {});
    return QString::fromStdString(variantsFileYaml(file, "Written by pitwall-gui (Speed options ▸ Compare these)."));
}

QString ConfigureView::prepareSpeedComparison()
{
    if (m_form->hasProblems())
        return tr("Fix the fields marked in red first.");
    if (m_db.isEmpty())
        return tr("Open or create a results database first (File ▸ Open).");
    const QString config = writeBesideDatabase(
        QStringLiteral(".yaml"), QByteArray::fromStdString(m_form->config().toYaml(false, true)));
    QString problem;
    const QString yaml = speedComparisonYaml(config, problem);
    if (!problem.isEmpty())
        return problem;
    const QString file = writeBesideDatabase(QStringLiteral("-compare.yaml"), yaml.toUtf8());
    if (config.isEmpty() || file.isEmpty())
        return tr("cannot write beside %1").arg(m_db);
    m_run->setVariantsFile(file);
    m_panels->setCurrentWidget(m_run);
    return {};
}

QString ConfigureView::loadJobWords(const QStringList& words, const QString& cwd)
{
    QStringList configs, overrides;
    QString error;
    if (!m_run->loadWords(words, configs, overrides, error))
        return error;
    std::vector<std::string> files, dotted;
    for (const QString& c : configs)
        files.push_back(QDir(cwd).absoluteFilePath(c).toStdString());
    for (const QString& o : overrides)
        dotted.push_back(o.toStdString());
    if (!files.empty()) {
        try {
            m_form->setConfig(resolveConfig(m_schema, files, dotted));
            m_loaded = m_form->config();
        } catch (const std::exception& e) {
            return QString::fromStdString(e.what());
        }
        m_configPath = QString::fromStdString(files.back());
        m_savedPath.clear();
        m_fileLabel->setText(m_configPath);
    }
    m_panels->setCurrentWidget(m_run);
    return {};
}

ConfigureView::~ConfigureView()
{
    releaseRunningCommands(this);
}

} // namespace pitwall::ui
