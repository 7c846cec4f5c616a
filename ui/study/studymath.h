#pragma once
// Numbers the study and compare views show, computed from trial records. Pure functions; any thread.

#include "core/report/table.h"
#include "core/store/records.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

namespace pitwall::ui {

// The first objective of a finished trial as a point to draw: complete trials, and pruned ones that carry a
// value; finite values only. Which trial is best is core/store/besttrial.h's rule, not this.
std::optional<double> objectiveOf(const TrialRecord& trial);

// The trials as a study of objective `index` alone (several objectives: the history, top k, parallel coordinates and
// importance of that one): values hold its value (a pruned trial's from its last intermediate vector that has it),
// intermediate values its entry of each intermediate vector. Index 0 returns the trials as they are.
std::vector<TrialRecord> projectObjective(const std::vector<TrialRecord>& trials, std::size_t index);

// Numbers of the k best trials (all that count when k <= 0), best first: rankedTrialNumbers
// (core/store/besttrial.h), so the top k always hold the trial the study list calls best.
std::vector<int> topTrials(const std::vector<TrialRecord>& trials, int k, StudyDirection direction);

// A parameter on a numeric axis: its internal value (categorical: the index into choices).
struct ParamAxis {
    QString name;
    bool categorical = false;
    bool log = false;
    QStringList categories; // categorical: the choices' texts
    double low = 0, high = 1;
};
// The parameters of the trials, sorted by name, with the range the trials span.
std::vector<ParamAxis> paramAxes(const std::vector<TrialRecord>& trials);
std::optional<double> paramValue(const TrialRecord& trial, const QString& name);

// Every trial's parameter values on the axes, read once: values[trial index][axis] (NaN when missing).
struct ParamTable {
    std::vector<ParamAxis> axes;
    std::vector<std::vector<double>> values;
};
ParamTable paramTable(const std::vector<TrialRecord>& trials);

// Importance over complete trials, a first-order ("fANOVA-lite") estimate without trees: the share of the
// objective's variance explained by the parameter alone — the group means of its categories, or of quantile
// bins of a numeric parameter (log scale for log parameters; n/5 bins, 2 to 10) — bias-corrected (ε², so
// that noise scores about 0), then normalised to sum to 1. All 0 with fewer than 3 trials or no variance.
// Interactions between parameters are not attributed. In paramAxes order.
std::vector<std::pair<QString, double>> parameterImportance(const std::vector<TrialRecord>& trials);
std::vector<std::pair<QString, double>> parameterImportance(const std::vector<TrialRecord>& trials,
                                                            const ParamTable& table);

// The parameters of a study with their importance, computed once per revision of its trials (a frame of the
// study view reuses them while only the filter, the picks or the brushes change).
struct StudyParams {
    ParamTable table;
    std::vector<std::pair<QString, double>> importance; // in table.axes order (by name)
    std::vector<std::size_t> byImportance;              // axis indices, most important first (ties by name)
};
StudyParams studyParams(const std::vector<TrialRecord>& trials);

// The parameters drawn (axis indices in drawing order): `picked` names when given (unknown names skipped),
// otherwise the `cap` most important. In importance order when the study has more than `cap` parameters,
// in name order otherwise.
std::vector<std::size_t> drawnParams(const StudyParams& params, std::size_t cap,
                                     const std::optional<QStringList>& picked);

// A hash of what the views show of the trials (numbers, states, values, intermediate values, times,
// parameters' count): equal signatures mean nothing to redraw. Cheap: one pass, no allocation.
std::uint64_t trialsSignature(const std::vector<TrialRecord>& trials);
std::uint64_t runsSignature(const std::vector<RunRecord>& runs);
// The same over the runs of the trials with these ids only (equal to runsSignature of that subset).
std::uint64_t runsSignature(const std::vector<RunRecord>& runs, const std::unordered_set<std::int64_t>& trialIds);

// Mean and sample standard deviation: core/report/table.h's meanStd, the one home of that rule.
using Spread = MeanStd;
inline Spread spreadOf(const std::vector<double>& values)
{
    return meanStd(values);
}

// A study's objectives in words: "minimise", "maximise loss" (one named objective), or "2 objectives: minimise a,
// maximise b · 3 trials on the Pareto front" (paretoSize when known).
QString describeObjectives(const std::vector<StudyDirection>& directions, const std::vector<std::string>& names,
                           std::optional<int> paretoSize);

} // namespace pitwall::ui
