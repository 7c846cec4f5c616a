#pragma once
// The pages of What to run, one per kind of job, each filling its job spec (core/jobs): TrainJob, HpoJob,
// VariantsBenchJob, PartitionBenchJob, DrivingEvalJob, LoaderBenchJob. GUI thread only.

#include "ui/configure/internal/runpage.h"

class QCheckBox;

namespace pitwall {
class Schema;
}

namespace pitwall::ui {

class RunPicker;

// `pitwall train`: the form's config, nothing else to choose.
class TrainPage : public RunPage {
    Q_OBJECT
public:
    explicit TrainPage(QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;
};

// `pitwall hpo`: trials, sampler, pruner, objective, ...; the space from a file or the Search space tab's rows.
class SearchPage : public RunPage {
    Q_OBJECT
public:
    // `schema` (the metrics each model records) must outlive the page.
    SearchPage(const Schema* schema, QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    // InputError for a search that continues an earlier one (--resume).
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;

    // The objectives offered are the metrics `model` records.
    void setModel(const QString& model);
    void setPartition(const QString& mode, int logicalDevices);
    // The space file given, "" when the space is the Search space tab's rows.
    QString spaceFile() const;

protected:
    void checkFields(const RunCheckContext& context) override;

private:
    QStringList knownObjectives() const;
    // The Workers row: the Devices tab's mode, and the box that chooses it by measurement instead.
    void addWorkersRow();

    const Schema* m_schema;
    QString m_model;
    QSpinBox* m_trials = nullptr;
    QSpinBox* m_epochs = nullptr;
    QComboBox* m_sampler = nullptr;
    QComboBox* m_pruner = nullptr;
    QComboBox* m_objective = nullptr;
    QComboBox* m_direction = nullptr;
    QComboBox* m_objective2 = nullptr; // a second objective ("" for one), with its direction
    QComboBox* m_direction2 = nullptr;
    QLineEdit* m_labels = nullptr;     // --labels
    QSpinBox* m_finalEpochs = nullptr;
    QLineEdit* m_study = nullptr;
    QLineEdit* m_space = nullptr;
    QLabel* m_partition = nullptr;
    QCheckBox* m_partitionAuto = nullptr; // --partition auto
    QString m_workers;                    // the Devices tab's mode and its workers
    void showWorkers();
};

// `pitwall bench variants`: a bench file and its seeds.
class VariantsPage : public RunPage {
    Q_OBJECT
public:
    explicit VariantsPage(QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;
    void setFile(const QString& path);

protected:
    void checkFields(const RunCheckContext& context) override;

private:
    QLineEdit* m_file = nullptr;
    QLineEdit* m_seeds = nullptr;
};

// `pitwall bench partitions`: the partition modes, batch sizes and epochs.
class PartitionsPage : public RunPage {
    Q_OBJECT
public:
    explicit PartitionsPage(QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;

protected:
    void checkFields(const RunCheckContext& context) override;

private:
    QWidget* m_modesBox = nullptr;
    std::vector<QCheckBox*> m_modes;
    QCheckBox* m_recommend = nullptr; // --recommend: the config's batch size and 1 epoch (the two fields greyed)
    QLineEdit* m_batchSizes = nullptr;
    QSpinBox* m_epochs = nullptr;
};

// `pitwall eval driving`: the policy (typed, or picked from the database's runs), routes and seed.
class DrivingPage : public RunPage {
    Q_OBJECT
public:
    explicit DrivingPage(QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;
    void selected() override; // the runs trained since are listed
    RunPicker* runPicker() const { return m_runPicker; }

protected:
    void checkFields(const RunCheckContext& context) override;

private:
    // The ids of a run id list that the database does not have, "" when all are there (or not known yet).
    QString unknownRuns(const QString& policy) const;

    QLineEdit* m_policy = nullptr;
    RunPicker* m_runPicker = nullptr;
    QSpinBox* m_routes = nullptr;
    QSpinBox* m_seed = nullptr;
};

// `pitwall bench loader`: an image folder and the batches measured.
class LoaderPage : public RunPage {
    Q_OBJECT
public:
    explicit LoaderPage(QWidget* parent);
    std::vector<std::string> words(const RunContext& context) const override;
    void setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides) override;

protected:
    void checkFields(const RunCheckContext& context) override;

private:
    QLineEdit* m_images = nullptr;
    QSpinBox* m_batches = nullptr;
};

} // namespace pitwall::ui
