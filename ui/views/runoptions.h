#pragma once
// "What to run" in the configure view: the kind of job (training run, hyperparameter search, variant
// benchmark, partition benchmark, closed-loop driving evaluation, data-loader benchmark) and the options of
// that kind, as form fields. Each kind's options are its typed job spec (core/jobs: HpoJob, VariantsBenchJob, ...):
// words() fills the spec from the fields and returns its toArgs(), the same command line a terminal user would type;
// loadWords() reads one back through the spec's fromArgs(). check() marks every bad field in place (red, with the
// reason beside it) and returns the problems; showProblems() puts the CLI's (`--check --json`) at the fields they
// name. GUI thread only.

#include "core/jobs/jobproblems.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace pitwall {
class Schema;
}

namespace pitwall::ui {

class RunPicker;

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
    RunPicker* runPicker() const { return m_runPicker; }

    // The problem shown at a field (by object name), "" when none: what check() found.
    QString problemAt(const QString& fieldName) const;
    // Shows the problems the CLI's own check found (`pitwall <kind> ... --check --json`), each at the field its
    // `field` names (several at one field one under the other); a problem of no field of this kind is not shown
    // here. Returns the object names of the fields that got one.
    QStringList showProblems(const std::vector<JobProblem>& problems);
    // The current kind's fields (the job spec's), for the problems of its check.
    const JobFields& fields() const;

Q_SIGNALS:
    void kindChanged();

private:
    QWidget* buildSearchPage();
    QWidget* buildVariantsPage();
    QWidget* buildPartitionsPage();
    QWidget* buildDrivingPage();
    QWidget* buildLoaderPage();
    // A field with its problem label under it, added to the page's form layout.
    void addField(QWidget* page, const QString& label, QWidget* field, const QString& tip);
    void setProblem(QWidget* field, const QString& problem);
    void clearProblems();
    // The job spec of the current kind filled from the fields, as its toArgs(); InputError (naming the option) for a
    // field the spec refuses.
    std::vector<std::string> jobWords(const RunContext& context) const;
    // The fields of `kind` from a command line of it (the spec's fromArgs); InputError for words it refuses.
    void loadJob(RunKind kind, const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides);
    // The widget of a spec's field in the current kind's page, null when it has none.
    QWidget* fieldWidget(const std::string& field) const;
    // The ids of a run id list that the database does not have, "" when all are there (or not known yet).
    QString unknownRuns(const QString& policy) const;

    const Schema* m_schema;
    QString m_model;
    QComboBox* m_kind = nullptr;
    QStackedWidget* m_pages = nullptr;
    QLabel* m_summary = nullptr;
    std::map<QWidget*, QLabel*> m_problemLabels;
    // search
    QSpinBox* m_trials = nullptr;
    QSpinBox* m_epochs = nullptr;
    QComboBox* m_sampler = nullptr;
    QComboBox* m_pruner = nullptr;
    QComboBox* m_objective = nullptr;
    QComboBox* m_direction = nullptr;
    QSpinBox* m_finalEpochs = nullptr;
    QLineEdit* m_study = nullptr;
    QLineEdit* m_space = nullptr;
    QLabel* m_partition = nullptr;
    // variant benchmark
    QLineEdit* m_variantsFile = nullptr;
    QLineEdit* m_variantSeeds = nullptr;
    // partition benchmark
    std::vector<QCheckBox*> m_modes;
    QLineEdit* m_batchSizes = nullptr;
    QSpinBox* m_benchEpochs = nullptr;
    // driving evaluation
    QLineEdit* m_policy = nullptr;
    RunPicker* m_runPicker = nullptr;
    QSpinBox* m_routes = nullptr;
    QSpinBox* m_driveSeed = nullptr;
    // loader benchmark
    QLineEdit* m_images = nullptr;
    QSpinBox* m_loaderBatches = nullptr;
};

} // namespace pitwall::ui
