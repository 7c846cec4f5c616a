#pragma once
// "What to run" in the configure view: the kind of job (training run, hyperparameter search, variant
// benchmark, partition benchmark, closed-loop driving evaluation, data-loader benchmark) and the options of
// that kind, as form fields. Each kind is a page (internal/runpage.h) that fills its typed job spec (core/jobs: HpoJob,
// VariantsBenchJob, ...): words() returns the current page's spec's toArgs(), the same command line a terminal user
// would type; loadWords() reads one back through the matching page's fromArgs(). check() marks every bad field in
// place (red, with the reason beside it) and returns the problems; showProblems() puts the CLI's (`--check --json`)
// at the fields they name. RunOptions holds no kind's details: it lists the pages and forwards. GUI thread only.

#include "core/jobs/jobproblems.h"

#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QStackedWidget;

namespace pitwall {
class Schema;
}

namespace pitwall::ui {

class DrivingPage;
class RunPage;
class RunPicker;
class SearchPage;
class VariantsPage;

enum class RunKind { Train, Search, Variants, Partitions, Driving, Loader };

// A command line between the job specs' words and Qt's.
QStringList toQt(const std::vector<std::string>& words);
std::vector<std::string> fromQt(const QStringList& words);

// What the configure view supplies besides these fields: the files it wrote for this start.
struct RunContext {
    QString configFile; // the form's config, saved for this start
    QString spaceFile;  // the search space editor's rows, saved for this start ("" unless Search)
    QString database;
};

class RunOptions : public QWidget {
    Q_OBJECT
public:
    // `schema` must outlive the widget.
    explicit RunOptions(const Schema* schema, QWidget* parent = nullptr);

    RunKind kind() const;
    void setKind(RunKind kind);
    // Whether Start first runs the command's own checks, words() + `--check` (a search, the benchmarks and a
    // driving evaluation).
    bool checkedByCli() const;
    QComboBox* kindBox() const { return m_kind; }
    // The configure view tells which model the form configures (objectives, final comparison) and what the
    // chosen partition mode gives.
    void setModel(const QString& model);
    void setPartition(const QString& mode, int logicalDevices);
    // A search reads its space from the space editor's rows unless a space file is given here.
    QString spaceFile() const;
    // A variant benchmark of this file (written by "Compare these"); the kind becomes Variants.
    void setVariantsFile(const QString& path);

    // Marks and returns the problems of the fields for the current kind ("" entries never). `spaceProblems`
    // are the space editor's (they count for a search that uses the editor's rows).
    QStringList check(const QString& spaceProblems);
    // The command line (without "pitwall" and without --detach).
    QStringList words(const RunContext& context) const;
    // Fills the fields from a job's command line (Edit spec). Returns the config files and dotted overrides
    // found in it (for the form), or sets `error` for a command line this panel cannot show.
    bool loadWords(const QStringList& words, QStringList& configFiles, QStringList& overrides, QString& error);

    // The results database: the driving evaluation's run picker lists its runs (read off the GUI thread).
    void setDatabase(const QString& location);
    RunPicker* runPicker() const;

    // The problem shown at a field (by object name), "" when none: what check() found.
    QString problemAt(const QString& fieldName) const;
    // Shows the problems the CLI's own check found (`pitwall <kind> ... --check --json`), each at the field its
    // `field` names (several at one field one under the other); a problem of no field of this kind is not shown
    // here. Returns the object names of the fields that got one.
    QStringList showProblems(const std::vector<JobProblem>& problems);

Q_SIGNALS:
    void kindChanged();

private:
    RunPage* page() const; // the current kind's

    QComboBox* m_kind = nullptr;
    QStackedWidget* m_stack = nullptr;
    std::vector<RunPage*> m_pages; // one per kind, in the order of m_kind's items
    SearchPage* m_search = nullptr;
    VariantsPage* m_variants = nullptr;
    DrivingPage* m_driving = nullptr;
};

} // namespace pitwall::ui
