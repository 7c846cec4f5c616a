#pragma once
// The Jobs panel (a dock of the workbench, visible from every view): the database's jobs — started from the
// window, from a terminal or by another machine — with kind, state, a progress bar and message, elapsed time,
// ETA and devices, read from the store every second by a task (readJobs, off the GUI thread), which also marks
// a job whose process is gone as failed. Its actions run the same `pitwall jobs` commands a terminal user would
// (stop, stop now, resume), start a job again from its spec, show its log as a live tail, and hand the job's
// results or spec to the window (showResults, editSpec); they act on the records of the latest refresh.
// Reopening the window re-attaches: everything shown comes from the store. GUI thread only.

#include "core/store/jobstore.h"

#include <QDialog>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace pitwall::ui {

struct JobsRead {
    std::vector<JobRecord> jobs; // newest first
    QString error;               // the store could not be read (no jobs table: an Optuna or older database)
    bool missing = false;        // no such file (yet)
};

// The jobs of the database at `db`, after marking those whose process is gone as failed (the rule of
// `pitwall jobs list`: the one write the panel makes). Any thread; opens its own connections.
JobsRead readJobs(const QString& db);

class JobsPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobsPanel(QWidget* parent = nullptr);
    // Commands still running are left to finish on their own, unheard.
    ~JobsPanel() override;

    void setDatabase(const QString& location);
    void setCliPath(const QString& path) { m_cli = path; }
    QTreeWidget* table() const { return m_table; }
    // Reads the store now, in a task (the panel also does every second).
    void refresh();
    // The job shown selected (0 when none) and selecting one by id (false when it is not listed yet: then
    // it is selected once a refresh lists it).
    std::int64_t selectedJob() const;
    bool selectJob(std::int64_t id);
    // Output of the last action ("" before any).
    QString lastMessage() const;

Q_SIGNALS:
    // "Show results": a study (the Study view) or a run (the Live view), or a benchmark's kind (Benchmarks).
    void showStudy(const QString& name);
    void showRun(std::int64_t runId);
    void showBenchmarks();
    // "Edit spec": the job's command line (without "pitwall") and the folder it ran in.
    void editSpec(const QStringList& words, const QString& cwd);
    // A job was started or resumed from the panel.
    void jobStarted(std::int64_t id);

private:
    void showJobs(JobsRead read);
    // The latest refresh's record of the selected job (null when none).
    const JobRecord* selectedRecord() const;
    void updateButtons();
    // Runs `pitwall <words>` (attached, short: the jobs commands) and reports its output in the status line.
    void runCli(const std::vector<std::string>& words, const QString& cwd = {});
    // "Resume": a search whose stored command this user has not run or confirmed is shown in a dialog (object
    // name "resumeConfirm") and resumed with --yes only when its "Resume" button is clicked.
    void resumeSelected();
    void openLog();
    void showResultsOfSelected();

    QString m_db;
    QString m_cli;
    QTreeWidget* m_table = nullptr;
    QLabel* m_message = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_stopNow = nullptr;
    QPushButton* m_resume = nullptr;
    QPushButton* m_log = nullptr;
    QPushButton* m_results = nullptr;
    QPushButton* m_again = nullptr;
    QPushButton* m_edit = nullptr;
    QTimer* m_timer = nullptr;
    std::map<std::int64_t, JobRecord> m_jobs; // as last shown
    std::int64_t m_wantedSelection = 0;
};

// "Open log": the job's log file, followed while the dialog is open (the last 256 KiB).
class JobLogDialog : public QDialog {
    Q_OBJECT
public:
    JobLogDialog(std::int64_t jobId, const QString& logFile, QWidget* parent = nullptr);
    QPlainTextEdit* text() const { return m_text; }
    void reload();

private:
    QString m_file;
    QPlainTextEdit* m_text = nullptr;
    qint64 m_shownSize = -1;
};

// The `pitwall` executable the window runs (beside this program, then ../bin, then PATH; "" when none).
QString defaultCliPath();
// A widget going away with `pitwall` commands still running: they finish on their own, unheard (a QProcess
// destroyed while running would kill its command and wait).
void releaseRunningCommands(QObject* owner);

} // namespace pitwall::ui
