#pragma once
// The last step of AutoSpeed's HPO protocol (`pitwall hpo --final-epochs N`): the trials tuned on train_hpo /
// val_hpo (data.hpo_split); now the default and the best configuration each train N epochs on the whole
// training split and are evaluated on the held-out validation split, side by side. Plain values only: no torch
// in this header.

#include "core/report/table.h"
#include "core/search/searchsetup.h"
#include "core/store/records.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <map>
#include <string>
#include <vector>

namespace pitwall::engine {

struct FinalComparisonSpec {
    int epochs = 0;            // per configuration, every enabled stage
    std::string storeLocation;
    std::string studyName;     // the search; the runs go to studies '<study>/final-default' and '<study>/final-optimised'
};

struct FinalRun {
    std::string label; // "default" / "optimised"
    std::string study;
    std::map<std::string, double> metrics; // final validation metrics on the held-out split
    std::vector<std::string> notices;      // the run's notes, e.g. the AP method of AutoSpeed-lite's mAP
    bool cancelled = false;
};

struct FinalComparison {
    std::vector<FinalRun> runs; // default first; stops after a cancelled run
};

// Trains the default (the base config with the space's fixed values) and the optimised configuration (plus the
// best trial's values) for spec.epochs epochs with data.hpo_split off, one after the other. Reports a message
// first, then per-step progress labelled "final <label> <stage> epoch E/N", and ends the phase.
FinalComparison runFinalComparison(const SearchSetup& setup, const TrialRecord& best, const FinalComparisonSpec& spec,
                                   CancelToken& cancel, const ProgressReporter& reporter);

// P / R / mAP50 / mAP50-95 in % when every run reports them, else the objective metric.
Table finalTable(const FinalComparison& comparison, const std::string& objectiveMetric);
// The runs' notices, each once, in the order they first appear: printed under the table, which they qualify.
std::vector<std::string> finalNotices(const FinalComparison& comparison);

} // namespace pitwall::engine
