#pragma once
// The configure view: the schema-generated form, a "Speed options" panel (every key flagged `speed`), the
// device panel, the search-space editor and the resolved YAML (with origins) shown live. Saves the config
// (changed keys only) and launches `pitwall train <file> --db <db>` detached (QProcess::startDetached), so
// closing the window leaves the training running; the store brings it back into the window. A config the
// CLI rejects, or a run that dies at once, shows its stderr here.

#include "core/config/config.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTimer;

namespace pitwall::ui {

class ConfigForm;
class DevicePanel;
class SearchSpaceEditor;

class ConfigureView : public QWidget {
    Q_OBJECT
public:
    explicit ConfigureView(QWidget* parent = nullptr);

    ConfigForm* form() const { return m_form; }
    SearchSpaceEditor* searchSpace() const { return m_space; }
    DevicePanel* devices() const { return m_devices; }
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
    // Checks, writes the config to a new file beside the database (<db dir>/pitwall-gui/<name>-<time>.yaml; the
    // loaded file is never overwritten) and launches; progress and errors go to launchOutput(). Returns false when it
    // refused to start (problems in the form, no database, no CLI).
    bool launch();

Q_SIGNALS:
    // A training was started detached (pid of the `pitwall` process).
    void launched(qint64 pid, const QString& configPath);
    // The launched process ended (it was seen gone); `stderrTail` is what it printed on stderr.
    void launchEnded(qint64 pid, const QString& stderrTail);

private:
    QWidget* buildSpeedPanel();
    void updateYaml();
    void startTraining(const QString& configFile);
    void watchLaunch();
    void report(const QString& text, bool error);

    QString m_schemaProblems; // before m_schema: the schema's loading fills it
    Schema m_schema;
    ConfigForm* m_form = nullptr;
    SearchSpaceEditor* m_space = nullptr;
    DevicePanel* m_devices = nullptr;
    QTabWidget* m_panels = nullptr;
    QPlainTextEdit* m_yaml = nullptr;
    QPlainTextEdit* m_output = nullptr;
    QLabel* m_fileLabel = nullptr;
    QLabel* m_dbLabel = nullptr;
    QPushButton* m_launch = nullptr;
    QString m_db;
    QString m_cli;
    QString m_configPath; // shown: the file loaded or saved last
    QString m_savedPath;  // the file this view wrote last ("Save" writes there without asking)
    QTimer* m_watch = nullptr;
    qint64 m_pid = 0;
    QString m_stderrFile;
};

} // namespace pitwall::ui
