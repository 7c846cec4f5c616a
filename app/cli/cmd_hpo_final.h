#pragma once
// The final step of `pitwall hpo --final-epochs N` (cmd_hpo_final.cpp): best_params.yaml, then the default and
// the best configuration trained on the whole training split and evaluated on the held-out split.
#include "core/engine/train/trainer.h"
#include "core/report/table.h"
#include "core/sched/searchsetup.h"
#include "core/store/records.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pitwall::cli {

struct FinalOptions {
    int epochs = 0;
    std::string storeLocation;
    std::string studyName; // the search; the runs go to studies '<study>/final-default' and '<study>/final-optimised'
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const std::string&)> message;
    std::function<void(const std::string& label, const engine::TrainProgress&)> progress;
};

struct FinalRun {
    std::string label; // "default" / "optimised"
    std::string study;
    std::map<std::string, double> metrics; // final validation metrics on the held-out split
    bool cancelled = false;
};

struct FinalComparison {
    std::vector<FinalRun> runs;
};

// The best trial's sampled parameters as YAML under the space's names (AutoSpeed's best_params.yaml), written
// to a temporary file and renamed.
void writeBestParams(const TrialRecord& best, const std::string& path);

// Trains the default (the base config with the space's fixed values) and the optimised configuration (plus the
// best trial's values) for options.epochs epochs with data.hpo_split off, one after the other.
FinalComparison runFinalComparison(const SearchSetup& setup, const TrialRecord& best, const FinalOptions& options);

// P / R / mAP50 / mAP50-95 in % when the model reports them, else the objective metric.
Table finalTable(const FinalComparison& comparison, const std::string& objectiveMetric);

} // namespace pitwall::cli
