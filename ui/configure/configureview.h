#pragma once
// The configure view: the schema-generated form, "What to run" (training run, search, variant / partition /
// loader benchmark, driving evaluation, with their options), a "Speed options" panel (every key flagged
// `speed`, with "Compare these": a variant benchmark of the config against the toggled options), the device
// panel, the search-space editor and the resolved YAML (with origins) shown live. Start checks every field
// (problems are shown at the field), saves the config (changed keys only) and the search space beside the
// database, lets `pitwall config validate` check the config as the CLI would, and starts the job with
// `pitwall ... --detach`, so closing the window leaves it running; the Jobs panel and the store bring it
// back into the window. A job the CLI refuses, or one that dies at once, shows its log here.

#include "core/config/config.h"

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTimer;

namespace pitwall::ui {

class ConfigForm;
class DevicePanel;
class RunOptions;
class SearchSpaceEditor;
enum class RunKind;

class ConfigureView : public QWidget {
    Q_OBJECT
public:
    explicit ConfigureView(QWidget* parent = nullptr);
    // Commands still running are left to finish on their own, unheard.
    ~ConfigureView() override;

    ConfigForm* form() const { return m_form; }
    SearchSpaceEditor* searchSpace() const { return m_space; }
    DevicePanel* devices() const { return m_devices; }
    RunOptions* runOptions() const { return m_run; }
    QPlainTextEdit* resolvedYaml() const { return m_yaml; }
    QPlainTextEdit* launchOutput() const { return m_output; }
    QTabWidget* panels() const { return m_panels; }
    // Schema files that could not be read (plugins), one per line; "" when none.
    QString schemaProblems() const { return m_schemaProblems; }

    // The results database launched work writes to.
    void setDatabase(const QString& location);
    // The `pitwall` executable (default: beside this program, then ../bin, then PATH).
    void setCliPath(const QString& path) { m_cli = path; }
    QString cliPath() const { return m_cli; }

    // Returns "" or the problem. loadConfig resolves the file against the schema like `pitwall config show`.
    QString loadConfig(const QString& path);
    QString saveConfig(const QString& path);
    QString configPath() const { return m_configPath; }
    // Loads a job's command line (Edit spec in the Jobs panel): its config files and overrides into the form,
    // its options into What to run. Returns "" or the problem. Relative paths are taken from `cwd`.
    QString loadJobWords(const QStringList& words, const QString& cwd);
    // Checks, writes the config to a new file beside the database (<db dir>/pitwall-gui/<name>-<time>.yaml; the
    // loaded file is never overwritten) and starts the chosen job; progress and errors go to launchOutput().
    // Returns false when it refused to start (problems at fields, no database, no CLI).
    bool launch();
    // "Compare these": writes a variant benchmark of the current config against the speed options that differ
    // from their defaults and makes it the job to run. Returns "" or the problem.
    QString prepareSpeedComparison();

Q_SIGNALS:
    // A job was started detached: its id, kind, and the study it will fill ("" when not known).
    void launched(qint64 jobId, int kind, const QString& study);
    // The started job ended (or the CLI refused it); `stderrTail` is the end of its log.
    void launchEnded(qint64 jobId, const QString& stderrTail);
    // A Start ended without starting anything: a field's problem, a refused check, or a CLI that did not run.
    // Emitted once per refused Start, after the problems are shown.
    void launchRefused();

private:
    QWidget* buildFormColumn(); // the filter, the form and the schema's problems
    void buildPanels();         // What to run, Speed options, Devices, Search space, Resolved YAML
    QWidget* buildSpeedPanel();
    // Shows the speed options of the core and of the config's model (experiment.model) only.
    void filterSpeedOptions();
    QHBoxLayout* buildButtonBar();
    // Save asks for a file unless this view wrote one already (`ask`: Save as, always).
    void saveConfigAsking(bool ask);
    // The YAML, the space editor's and What to run's model and partition follow the form (and the devices shown).
    void followForm();
    void updateYaml();
    void startJob(const QStringList& words);
    // Runs each command line of `checks` in turn (the CLI's own checks, nothing started); all passed: startJob.
    void runChecks(QList<QStringList> checks, const QStringList& words);
    void watchLaunch();
    QString writeBesideDatabase(const QString& suffix, const QByteArray& contents);
    QString speedComparisonYaml(const QString& configFile, QString& problem) const;
    void report(const QString& text, bool error);

    QString m_schemaProblems; // before m_schema: the schema's loading fills it
    Schema m_schema;
    ResolvedConfig m_loaded; // the config as loaded: Compare these compares the speed options against it
    ConfigForm* m_form = nullptr;
    SearchSpaceEditor* m_space = nullptr;
    DevicePanel* m_devices = nullptr;
    RunOptions* m_run = nullptr;
    QTabWidget* m_panels = nullptr;
    QPlainTextEdit* m_yaml = nullptr;
    std::vector<std::pair<std::string, QWidget*>> m_speedRows; // (owner, label) of each Speed options row
    QPlainTextEdit* m_output = nullptr;
    QLabel* m_fileLabel = nullptr;
    QLabel* m_dbLabel = nullptr;
    QPushButton* m_launch = nullptr;
    QString m_db;
    QString m_cli;
    QString m_configPath; // shown: the file loaded or saved last
    QString m_savedPath;  // the file this view wrote last ("Save" writes there without asking)
    QTimer* m_watch = nullptr;
    qint64 m_jobId = 0;
    QString m_jobLog;
};

} // namespace pitwall::ui
