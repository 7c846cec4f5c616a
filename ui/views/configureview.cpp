#include "ui/views/configureview.h"

#include "ui/views/configform.h"
#include "ui/views/devicepanel.h"
#include "ui/views/searchspaceeditor.h"

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
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
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

QString defaultCli()
{
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {dir + QStringLiteral("/pitwall"), dir + QStringLiteral("/../bin/pitwall")})
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("pitwall"));
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

// A detached process is nobody's child here; a zombie (not yet reaped by init) counts as ended.
bool processAlive(qint64 pid)
{
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM))
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close < 0 || close + 2 >= text.size() || text.at(close + 2) != 'Z';
}

} // namespace

ConfigureView::ConfigureView(QWidget* parent) : QWidget(parent), m_schema(loadSchemaReporting(m_schemaProblems))
{
    setObjectName("configureView");
    m_cli = defaultCli();
    m_form = new ConfigForm(m_schema, this);

    auto* filter = new QLineEdit(this);
    filter->setObjectName("configFilter");
    filter->setPlaceholderText(tr("Filter keys…"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_form, &ConfigForm::filter);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
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

    m_panels = new QTabWidget(this);
    m_panels->setObjectName("configurePanels");
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

    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(m_panels);
    left->setMinimumWidth(300); // explicit minimums: the panels' size hints would otherwise squeeze the form
    m_panels->setMinimumWidth(300);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({450, 450});
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    m_fileLabel = new QLabel(tr("New config (defaults)"), this);
    m_dbLabel = new QLabel(this);
    auto* open = new QPushButton(tr("Open config…"), this);
    auto* save = new QPushButton(tr("&Save config"), this);
    auto* saveAs = new QPushButton(tr("Save &as…"), this);
    m_launch = new QPushButton(tr("&Launch training"), this);
    m_launch->setObjectName("launchButton");
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open config"), m_configPath, tr("YAML (*.yaml *.yml)"));
        if (!path.isEmpty())
            if (const QString error = loadConfig(path); !error.isEmpty())
                report(error, true);
    });
    auto saveTo = [this](bool ask) {
        // "Save" writes back only to a file this view wrote; a loaded file (with its comments and layers)
        // is never overwritten without asking.
        QString path = m_savedPath;
        if (ask || path.isEmpty())
            path = QFileDialog::getSaveFileName(this, tr("Save config"), m_configPath, tr("YAML (*.yaml *.yml)"));
        if (path.isEmpty())
            return;
        const QString error = saveConfig(path);
        report(error.isEmpty() ? tr("Saved %1").arg(path) : error, !error.isEmpty());
    };
    connect(save, &QPushButton::clicked, this, [saveTo] { saveTo(false); });
    connect(saveAs, &QPushButton::clicked, this, [saveTo] { saveTo(true); });
    connect(m_launch, &QPushButton::clicked, this, &ConfigureView::launch);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_fileLabel, 1);
    bar->addWidget(m_dbLabel);
    bar->addWidget(open);
    bar->addWidget(save);
    bar->addWidget(saveAs);
    bar->addWidget(m_launch);

    m_output = new QPlainTextEdit(this);
    m_output->setObjectName("launchOutput");
    m_output->setReadOnly(true);
    m_output->setMaximumBlockCount(500);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("Launched work reports here; its runs appear in the Live view."));

    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(splitter);
    vertical->addWidget(m_output);
    vertical->setStretchFactor(0, 5);
    vertical->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(vertical, 1);

    connect(m_form, &ConfigForm::changed, this, &ConfigureView::updateYaml);
    connect(m_form, &ConfigForm::changed, this,
            [this] { m_space->setModel(QString::fromStdString(m_form->config().getString("experiment.model"))); });
    m_watch = new QTimer(this);
    m_watch->setInterval(kWatchIntervalMs);
    connect(m_watch, &QTimer::timeout, this, &ConfigureView::watchLaunch);
    updateYaml();
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
    }
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    return scroll;
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
    m_dbLabel->setText(tr("→ %1").arg(QFileInfo(location).fileName()));
    m_dbLabel->setToolTip(location);
}

QString ConfigureView::loadConfig(const QString& path)
{
    try {
        m_form->setConfig(resolveConfig(m_schema, {path.toStdString()}, {}));
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
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return tr("cannot write %1: %2").arg(path, file.errorString());
    file.write("# Written by pitwall-gui: the keys that differ from the schema defaults.\n");
    file.write(m_form->config().toYaml(false, true).c_str());
    file.close();
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

bool ConfigureView::launch()
{
    if (m_form->hasProblems()) {
        report(tr("Not launched: fix the fields marked in red first."), true);
        return false;
    }
    if (m_db.isEmpty()) {
        report(tr("Not launched: open or create a results database first (File ▸ Open)."), true);
        return false;
    }
    if (m_cli.isEmpty() || !QFileInfo(m_cli).isExecutable()) {
        report(tr("Not launched: the pitwall command was not found beside pitwall-gui or on PATH."), true);
        return false;
    }
    // What is launched is written to a new file beside the database (a record of exactly what ran); the
    // file the form was loaded from or saved to is left alone.
    const QDir dir(QFileInfo(m_db).absoluteDir().filePath(QStringLiteral("pitwall-gui")));
    QDir().mkpath(dir.path());
    const QString path =
        dir.filePath(QStringLiteral("%1-%2.yaml")
                         .arg(QString::fromStdString(m_form->config().getString("experiment.name"))
                                  .replace(QLatin1Char('/'), QLatin1Char('_')),
                              QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
    const QString keepShown = m_configPath, keepSaved = m_savedPath;
    const QString error = saveConfig(path);
    m_configPath = keepShown;
    m_savedPath = keepSaved;
    m_fileLabel->setText(keepShown.isEmpty() ? tr("New config (defaults)") : QFileInfo(keepShown).absoluteFilePath());
    if (!error.isEmpty()) {
        report(error, true);
        return false;
    }
    // A quick, attached check first: a config the CLI rejects is reported here with its own words.
    auto* check = new QProcess(this);
    check->setProgram(m_cli);
    check->setArguments({QStringLiteral("config"), QStringLiteral("validate"), path});
    connect(check, &QProcess::finished, this, [this, check, path](int code, QProcess::ExitStatus status) {
        check->deleteLater();
        if (status != QProcess::NormalExit || code != 0) {
            report(tr("pitwall config validate failed:\n%1")
                       .arg(QString::fromUtf8(check->readAllStandardError()).trimmed()),
                   true);
            m_launch->setEnabled(true);
            return;
        }
        startTraining(path);
    });
    connect(check, &QProcess::errorOccurred, this, [this, check](QProcess::ProcessError) {
        report(tr("cannot run %1: %2").arg(m_cli, check->errorString()), true);
        m_launch->setEnabled(true);
    });
    m_launch->setEnabled(false);
    report(tr("Checking %1…").arg(path), false);
    check->start();
    return true;
}

void ConfigureView::startTraining(const QString& configFile)
{
    const QDir dir(QFileInfo(m_db).absoluteDir().filePath(QStringLiteral("pitwall-gui")));
    QDir().mkpath(dir.path());
    const QString base = dir.filePath(QFileInfo(configFile).completeBaseName() + QLatin1Char('-') +
                                      QDateTime::currentDateTime().toString(QStringLiteral("HHmmss")));
    m_stderrFile = base + QStringLiteral(".err.log");
    QProcess process;
    process.setProgram(m_cli);
    process.setArguments({QStringLiteral("train"), QFileInfo(configFile).absoluteFilePath(), QStringLiteral("--db"),
                          QFileInfo(m_db).absoluteFilePath()});
    process.setWorkingDirectory(QFileInfo(m_db).absolutePath());
    process.setStandardOutputFile(base + QStringLiteral(".out.log"));
    process.setStandardErrorFile(m_stderrFile);
    qint64 pid = 0;
    m_launch->setEnabled(true);
    if (!process.startDetached(&pid)) {
        report(tr("cannot start %1: %2").arg(m_cli, process.errorString()), true);
        return;
    }
    m_pid = pid;
    report(tr("Started pitwall train (pid %1); it keeps running if this window closes. Output: %2.out.log")
               .arg(pid)
               .arg(base),
           false);
    m_watch->start();
    Q_EMIT launched(pid, configFile);
}

void ConfigureView::watchLaunch()
{
    if (processAlive(m_pid))
        return;
    m_watch->stop();
    const QString tail = tailOf(m_stderrFile);
    if (tail.isEmpty())
        report(tr("pitwall train (pid %1) ended.").arg(m_pid), false);
    else
        report(tr("pitwall train (pid %1) ended; its stderr:\n%2").arg(m_pid).arg(tail), true);
    Q_EMIT launchEnded(m_pid, tail);
    m_pid = 0;
}

} // namespace pitwall::ui
