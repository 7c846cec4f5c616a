#include "ui/jobs/jobspanel.h"
#include "ui/locations.h"
#include "ui/theme.h"

#include "ui/tasks/taskmanager.h"

#include "core/jobrun/jobreport.h"
#include "core/jobs/jobcontrolspec.h"
#include "core/jobs/jobproblems.h"
#include "core/search/resumereview.h"
#include "core/store/jobstore.h"
#include "core/util/process.h"
#include "core/util/timefmt.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <chrono>
#include <map>
#include <optional>

namespace pitwall::ui {

namespace {

constexpr int kRefreshMs = 1000;
constexpr int kLogRefreshMs = 500;
constexpr qint64 kLogTailBytes = 256 * 1024;

enum Column { kId, kKind, kState, kProgress, kMessage, kElapsed, kEta, kDevices, kWhere, kColumns };

QString duration(double seconds)
{
    return QString::fromStdString(formatDuration(seconds));
}

QStringList stringsOf(const Json& value)
{
    QStringList out;
    if (value.is_array())
        for (const Json& item : value)
            if (item.is_string())
                out << QString::fromStdString(item.get<std::string>());
    return out;
}

// The command line a job was started with; for a resumed job, the one it continued.
QStringList originalWords(const JobRecord& job)
{
    const QStringList before = stringsOf(job.spec.value("resumed_from", Json::array()));
    return before.isEmpty() ? stringsOf(job.spec.value("argv", Json::array())) : before;
}

// Whether the record says running but its process is gone (then the store is asked to mark it failed).
bool isBenchmark(const std::string& kind)
{
    return kind.rfind("bench-", 0) == 0;
}

} // namespace

JobsRead readJobs(const QString& db)
{
    JobsRead read;
    if (!isServerLocation(db) && !QFileInfo::exists(db)) {
        read.missing = true;
        return read;
    }
    try {
        JobStore store(db.toStdString(), OpenMode::ReadOnly);
        read.jobs = store.jobs(true);
        // The same rule as `pitwall jobs list`: a job whose process is gone is recorded as failed (where the file
        // can be written; a read-only folder or mount shows the records as they are).
        if (reapVanishedJobs(db.toStdString(), read.jobs, nowSeconds()))
            read.jobs = store.jobs(true);
    } catch (const std::exception& e) {
        read.jobs.clear();
        read.error = QString::fromStdString(e.what());
    }
    return read;
}

void releaseRunningCommands(QObject* owner)
{
    for (QProcess* process : owner->findChildren<QProcess*>()) {
        QObject::disconnect(process, nullptr, owner, nullptr);
        process->setParent(nullptr); // not waited for: a detached start returns at once, a check is short
        QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
    }
}

QString defaultCliPath()
{
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {dir + QStringLiteral("/pitwall"), dir + QStringLiteral("/../bin/pitwall")})
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("pitwall"));
}

JobsPanel::JobsPanel(QWidget* parent) : QWidget(parent), m_cli(defaultCliPath())
{
    setObjectName("jobsPanel");
    m_table = new QTreeWidget(this);
    m_table->setObjectName("jobsTable");
    m_table->setColumnCount(kColumns);
    m_table->setHeaderLabels({tr("Job"), tr("Kind"), tr("State"), tr("Progress"), tr("Message"), tr("Elapsed"),
                              tr("ETA"), tr("Devices"), tr("Host / pid")});
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    // The header and three jobs whole at any window size (a row: the text or the state icon, and the item margins).
    const int row = std::max(m_table->fontMetrics().height(), 16) + 8;
    m_table->setMinimumHeight(m_table->header()->sizeHint().height() + 3 * row + 2 * m_table->frameWidth());
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(kMessage, QHeaderView::Stretch);
    m_table->setColumnWidth(kProgress, 110);
    connect(m_table, &QTreeWidget::itemSelectionChanged, this, &JobsPanel::updateButtons);
    connect(m_table, &QTreeWidget::itemDoubleClicked, this, &JobsPanel::showResultsOfSelected);

    auto button = [this](const QString& text, const char* name, const QString& tip) {
        auto* b = new QPushButton(text, this);
        b->setObjectName(QLatin1String(name));
        b->setToolTip(tip);
        return b;
    };
    m_stop = button(tr("Stop"), "jobStop", tr("Gracefully: the current step or trial ends, finished work is kept"));
    m_stopNow = button(tr("Stop now"), "jobStopNow", tr("Kill the job's processes at once"));
    m_resume = button(tr("Resume"), "jobResume", tr("Continue a cancelled or failed training run or search"));
    m_stop->setIcon(actionIcon("stop"));
    m_resume->setIcon(actionIcon("resume"));
    m_log = button(tr("Open log"), "jobLog", tr("The job's output, followed live"));
    m_results = button(tr("Show results"), "jobShowResults", tr("The run, study or benchmark this job produced"));
    m_again = button(tr("Start again"), "jobStartAgain", tr("A new job with the same command line"));
    m_edit = button(tr("Edit spec"), "jobEditSpec", tr("Load the job's config and options into Configure"));
    connect(m_stop, &QPushButton::clicked, this, [this] { runCli(JobStopSpec{.job = selectedJob()}.toArgs()); });
    connect(m_stopNow, &QPushButton::clicked, this,
            [this] { runCli(JobStopSpec{.job = selectedJob(), .now = true}.toArgs()); });
    connect(m_resume, &QPushButton::clicked, this, &JobsPanel::resumeSelected);
    connect(m_log, &QPushButton::clicked, this, &JobsPanel::openLog);
    connect(m_results, &QPushButton::clicked, this, &JobsPanel::showResultsOfSelected);
    connect(m_again, &QPushButton::clicked, this, [this] {
        const JobRecord* job = selectedRecord();
        if (!job)
            return;
        std::vector<std::string> words;
        for (const QString& w : originalWords(*job))
            words.push_back(w.toStdString());
        runCli(detachedWords(std::move(words)), QString::fromStdString(job->spec.value("cwd", std::string())));
    });
    connect(m_edit, &QPushButton::clicked, this, [this] {
        if (const JobRecord* job = selectedRecord())
            Q_EMIT editSpec(originalWords(*job), QString::fromStdString(job->spec.value("cwd", std::string())));
    });

    m_message = new QLabel(this);
    m_message->setObjectName("jobsMessage");
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_stop, m_stopNow, m_resume, m_log, m_results, m_again, m_edit})
        buttons->addWidget(b);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);
    layout->addWidget(m_message);

    m_timer = new QTimer(this);
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &JobsPanel::refresh);
    updateButtons();
}

void JobsPanel::setDatabase(const QString& location)
{
    m_db = location;
    m_table->clear();
    m_jobs.clear();
    m_wantedSelection = 0;
    refresh();
    m_timer->start();
}

std::int64_t JobsPanel::selectedJob() const
{
    const QList<QTreeWidgetItem*> items = m_table->selectedItems();
    return items.isEmpty() ? 0 : items.front()->data(kId, Qt::UserRole).toLongLong();
}

bool JobsPanel::selectJob(std::int64_t id)
{
    for (int i = 0; i < m_table->topLevelItemCount(); ++i)
        if (QTreeWidgetItem* item = m_table->topLevelItem(i); item->data(kId, Qt::UserRole).toLongLong() == id) {
            m_table->setCurrentItem(item);
            item->setSelected(true);
            m_wantedSelection = 0;
            return true;
        }
    m_wantedSelection = id; // selected once a refresh lists it
    return false;
}

const JobRecord* JobsPanel::selectedRecord() const
{
    const auto it = m_jobs.find(selectedJob());
    return it == m_jobs.end() ? nullptr : &it->second;
}

QString JobsPanel::lastMessage() const
{
    return m_message->text();
}

void JobsPanel::refresh()
{
    if (m_db.isEmpty())
        return;
    const QString db = m_db;
    TaskManager::instance()->start(
        {tr("Reading the jobs of %1").arg(QFileInfo(db).fileName()), TaskManager::keyFor(this, QStringLiteral("jobs"))},
        this, [db](TaskContext&) { return readJobs(db); },
        [this, db](JobsRead read) {
            if (db == m_db) // not of a database set since
                showJobs(std::move(read));
        });
}

void JobsPanel::showJobs(JobsRead read)
{
    if (read.missing)
        return;
    if (!read.error.isEmpty()) {
        // A database without a jobs table (Optuna's own, an older Pitwall) simply has no jobs.
        m_table->setToolTip(read.error);
        return;
    }
    m_table->setToolTip({});
    const std::vector<JobRecord>& jobs = read.jobs;
    m_jobs.clear();
    for (const JobRecord& j : jobs)
        m_jobs.emplace(j.id, j);
    std::map<std::int64_t, QTreeWidgetItem*> shown;
    for (int i = 0; i < m_table->topLevelItemCount(); ++i)
        shown[m_table->topLevelItem(i)->data(kId, Qt::UserRole).toLongLong()] = m_table->topLevelItem(i);
    const double now = nowSeconds();
    for (std::size_t row = 0; row < jobs.size(); ++row) {
        const JobRecord& j = jobs[row];
        QTreeWidgetItem* item = shown.count(j.id) ? shown[j.id] : nullptr;
        if (!item) {
            item = new QTreeWidgetItem;
            item->setData(kId, Qt::UserRole, QVariant::fromValue<qint64>(j.id));
            m_table->insertTopLevelItem(static_cast<int>(row), item);
            auto* bar = new QProgressBar(m_table);
            bar->setRange(0, 1000);
            bar->setTextVisible(true);
            m_table->setItemWidget(item, kProgress, bar);
        }
        shown.erase(j.id);
        item->setText(kId, QString::number(j.id));
        item->setText(kKind, QString::fromStdString(j.kind));
        item->setText(kState, QString::fromLatin1(jobStateName(j.state)));
        item->setIcon(kState, stateIcon(QString::fromLatin1(jobStateName(j.state))));
        item->setData(kState, Qt::UserRole, static_cast<int>(j.state));
        item->setForeground(kState, j.state == JobState::Failed ? QColor(0xd0, 0x40, 0x40)
                                    : j.state == JobState::Running ? QColor(0x30, 0x90, 0x40)
                                                                   : m_table->palette().text().color());
        const double fraction = j.state == JobState::Finished ? 1.0 : j.progress;
        if (auto* bar = qobject_cast<QProgressBar*>(m_table->itemWidget(item, kProgress))) {
            bar->setValue(static_cast<int>(fraction * 1000 + 0.5));
            bar->setFormat(QStringLiteral("%1 %").arg(static_cast<int>(fraction * 100 + 0.5)));
        }
        const QString message = QString::fromStdString(j.error.empty() ? j.progressMessage : j.error);
        item->setText(kMessage, message);
        item->setToolTip(kMessage, message);
        item->setText(kElapsed, j.startTime || j.secondsBefore > 0 ? duration(jobElapsedSeconds(j, now)) : QString());
        item->setText(kEta, !isFinal(j.state) && j.etaSeconds ? duration(*j.etaSeconds) : QString());
        const QStringList devices = stringsOf(j.spec.value("devices", Json::array()));
        item->setText(kDevices, devices.isEmpty() ? QString() : tr("%1 logical device%2").arg(devices.size()).arg(devices.size() == 1 ? QString() : QStringLiteral("s")));
        item->setData(kDevices, Qt::UserRole, devices.size());
        item->setToolTip(kDevices, devices.join(QLatin1Char('\n')));
        item->setText(kWhere, QStringLiteral("%1 / %2").arg(QString::fromStdString(j.host)).arg(j.pid));
        item->setToolTip(kId, QStringLiteral("pitwall ") + stringsOf(j.spec.value("argv", Json::array())).join(QLatin1Char(' ')));
    }
    for (const auto& [id, item] : shown) // removed from the store (a refused start)
        delete item;
    for (int c : {kId, kKind, kState, kElapsed, kEta, kDevices})
        m_table->resizeColumnToContents(c);
    if (m_wantedSelection != 0 && selectJob(m_wantedSelection))
        m_wantedSelection = 0;
    updateButtons();
}

void JobsPanel::updateButtons()
{
    const QList<QTreeWidgetItem*> items = m_table->selectedItems();
    const bool any = !items.isEmpty();
    const auto state = any ? static_cast<JobState>(items.front()->data(kState, Qt::UserRole).toInt()) : JobState::Queued;
    const bool live = any && !isFinal(state);
    m_stop->setEnabled(live && state != JobState::Stopping);
    m_stopNow->setEnabled(live);
    m_resume->setEnabled(any && (state == JobState::Cancelled || state == JobState::Failed));
    for (QPushButton* b : {m_log, m_results, m_again, m_edit})
        b->setEnabled(any);
}

void JobsPanel::runCli(const std::vector<std::string>& words, const QString& cwd)
{
    if (m_cli.isEmpty()) {
        m_message->setText(tr("the pitwall command was not found beside pitwall-gui or on PATH"));
        return;
    }
    QStringList shown; // the command as the user would type it, without the database the panel adds
    for (const std::string& w : words)
        shown << QString::fromStdString(w);
    QStringList args;
    for (const std::string& w : withDatabase(words, QFileInfo(m_db).absoluteFilePath().toStdString()))
        args << QString::fromStdString(w);
    auto* process = new QProcess(this);
    process->setProgram(m_cli);
    process->setArguments(args);
    if (!cwd.isEmpty())
        process->setWorkingDirectory(cwd);
    const bool starts = startsBackgroundJob(words);
    connect(process, &QProcess::finished, this, [this, process, starts](int code, QProcess::ExitStatus) {
        process->deleteLater();
        const QString out = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(process->readAllStandardError()).trimmed();
        m_message->setStyleSheet(code == 0 ? QString() : QStringLiteral("color: #d04040;"));
        m_message->setText(code == 0 ? (err.isEmpty() ? out : err) : err);
        refresh();
        bool ok = false;
        const qint64 id = out.section(QLatin1Char('\n'), -1).toLongLong(&ok);
        if (code == 0 && starts && ok) {
            selectJob(id);
            Q_EMIT jobStarted(id);
        }
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_message->setText(tr("cannot run %1: %2").arg(m_cli, process->errorString()));
            process->deleteLater();
        }
    });
    m_message->setStyleSheet({});
    m_message->setText(QStringLiteral("pitwall ") + shown.join(QLatin1Char(' ')) + QStringLiteral(" …"));
    process->start();
}

namespace {

// What resuming a job would run, read off the GUI thread: whether the user must confirm it first.
struct ResumeCheck {
    QString review; // non-empty: the stored command, log folder and best-parameters path, not confirmed before
    QString error;  // the job cannot be resumed as recorded (an edited record, a database that is gone)
};

ResumeCheck checkResume(const JobRecord& job, const std::string& db)
{
    ResumeCheck check;
    try {
        const std::optional<ResumeReview> review = reviewJobResume(job, db);
        if (review && !review->confirmed)
            check.review = QString::fromStdString(review->describe());
    } catch (const std::exception& e) {
        check.error = QString::fromStdString(e.what());
    }
    return check;
}

} // namespace

void JobsPanel::resumeSelected()
{
    const JobRecord* record = selectedRecord();
    if (!record)
        return;
    const JobRecord job = *record;
    const std::string db = QFileInfo(m_db).absoluteFilePath().toStdString();
    m_message->setStyleSheet({});
    m_message->setText(tr("checking what resuming job %1 would run …").arg(job.id));
    TaskManager::instance()->start(
        {tr("Checking job %1 before resuming it").arg(job.id), TaskManager::keyFor(this, QStringLiteral("resume"))},
        this, [job, db](TaskContext&) { return checkResume(job, db); },
        [this, id = job.id](ResumeCheck check) {
            if (!check.error.isEmpty()) {
                m_message->setStyleSheet(QStringLiteral("color: #d04040;"));
                m_message->setText(check.error);
                return;
            }
            if (check.review.isEmpty()) { // a training run, or a search this user started or confirmed
                runCli(JobResumeSpec{.job = id}.toArgs());
                return;
            }
            // The stored command runs again as this user: shown first (it may come from someone else's database
            // or have been edited since), and run only when confirmed, which `--yes` records for next time.
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Resume job %1").arg(id),
                                        tr("Resuming job %1 runs what its results database stores:").arg(id),
                                        QMessageBox::Cancel, this);
            box->setObjectName(QStringLiteral("resumeConfirm"));
            box->setTextFormat(Qt::RichText); // the command and paths unwrapped, as a terminal shows them
            box->setInformativeText(
                QStringLiteral("<pre>") + check.review.toHtmlEscaped() + QStringLiteral("</pre><p>") +
                tr("You have not run or confirmed these before. Run them?") + QStringLiteral("</p>"));
            QPushButton* run = box->addButton(tr("Resume"), QMessageBox::AcceptRole);
            run->setObjectName(QStringLiteral("resumeConfirmRun"));
            box->setDefaultButton(QMessageBox::Cancel);
            box->setAttribute(Qt::WA_DeleteOnClose);
            connect(box, &QMessageBox::finished, this, [this, box, run, id] {
                if (box->clickedButton() == run)
                    runCli(JobResumeSpec{.job = id, .yes = true}.toArgs());
                else
                    m_message->setText(tr("job %1 was not resumed").arg(id));
            });
            box->open();
        });
}

void JobsPanel::openLog()
{
    const JobRecord* job = selectedRecord();
    if (!job)
        return;
    if (job->logFile.empty()) {
        m_message->setText(tr("job %1 ran in the foreground: its output went to the terminal that started it").arg(job->id));
        return;
    }
    auto* dialog = new JobLogDialog(job->id, QString::fromStdString(job->logFile), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void JobsPanel::showResultsOfSelected()
{
    const JobRecord* job = selectedRecord();
    if (!job)
        return;
    if (isBenchmark(job->kind)) {
        Q_EMIT showBenchmarks();
        return;
    }
    std::optional<JobLink> study, run;
    for (const JobLink& link : job->links) {
        if (link.kind == "study" && !study)
            study = link;
        if (link.kind == "run")
            run = link; // the newest run
    }
    const bool search = job->kind.rfind("hpo", 0) == 0;
    if (run && !(search && study)) {
        Q_EMIT showRun(QString::fromStdString(run->ref).toLongLong());
    } else if (study) {
        Q_EMIT showStudy(QString::fromStdString(study->ref));
    } else {
        m_message->setText(tr("job %1 has produced no runs or studies yet").arg(job->id));
    }
}

JobLogDialog::JobLogDialog(std::int64_t jobId, const QString& logFile, QWidget* parent)
    : QDialog(parent), m_file(logFile)
{
    setObjectName("jobLogDialog");
    setWindowTitle(tr("Job %1 — %2").arg(jobId).arg(logFile));
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName("jobLogText");
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    resize(800, 450);
    auto* timer = new QTimer(this);
    timer->setInterval(kLogRefreshMs);
    connect(timer, &QTimer::timeout, this, &JobLogDialog::reload);
    timer->start();
    reload();
}

void JobLogDialog::reload()
{
    QFile file(m_file);
    if (!file.open(QIODevice::ReadOnly)) {
        m_text->setPlainText(tr("cannot read %1: %2").arg(m_file, file.errorString()));
        return;
    }
    if (file.size() == m_shownSize)
        return;
    m_shownSize = file.size();
    if (file.size() > kLogTailBytes)
        file.seek(file.size() - kLogTailBytes);
    // Progress lines redraw with '\r': keep each line's last state.
    QStringList lines;
    for (const QString& line : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n')))
        lines << line.section(QLatin1Char('\r'), -1);
    const bool atEnd = m_text->verticalScrollBar()->value() == m_text->verticalScrollBar()->maximum();
    m_text->setPlainText(lines.join(QLatin1Char('\n')));
    if (atEnd)
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

JobsPanel::~JobsPanel()
{
    releaseRunningCommands(this);
}

} // namespace pitwall::ui
