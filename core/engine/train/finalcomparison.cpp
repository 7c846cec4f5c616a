#include "core/engine/train/finalcomparison.h"

#include "core/engine/train/experiment.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>

namespace pitwall::engine {

namespace {

// The metrics of the table, AutoSpeed's P / R / mAP50 / mAP50-95 when the model reports them.
const std::vector<std::pair<std::string, std::string>> kDetectionColumns = {
    {"precision", "P"}, {"recall", "R"}, {"map50", "mAP50"}, {"map50_95", "mAP50-95"}};

std::vector<std::string> fixedOverrides(const SearchSpace& space)
{
    std::vector<std::string> out;
    for (const SpaceParam& p : space.params())
        if (!p.searched())
            out.push_back(p.configKey + "=" + p.fixedText);
    return out;
}

} // namespace

FinalComparison runFinalComparison(const SearchSetup& setup, const TrialRecord& best, const FinalComparisonSpec& spec,
                                   CancelToken& cancel, const ProgressReporter& reporter)
{
    reporter.message("final comparison: the default and the best configuration, " + std::to_string(spec.epochs) +
                     " epoch(s) each on the whole training split, evaluated on the held-out validation split");
    FinalComparison result;
    const auto epochs = epochOverrides(*setup.base, spec.epochs);
    struct Variant {
        std::string label;
        std::vector<std::string> overrides;
    };
    Json sampled = Json::object();
    for (const TrialParam& p : best.params)
        sampled[p.name] = p.value();
    const std::vector<Variant> variants = {{"default", fixedOverrides(*setup.space)},
                                           {"optimised", setup.space->overrides(sampled)}};
    for (const Variant& v : variants) {
        std::vector<std::string> overrides = v.overrides;
        overrides.push_back("data.hpo_split=false");
        overrides.insert(overrides.end(), epochs.begin(), epochs.end());
        overrides.push_back("experiment.name=" + spec.studyName + "/final-" + v.label);
        overrides.push_back("experiment.seeds=[" +
                            std::to_string(setup.base->value("experiment.seeds").asIntList().front()) + "]");
        const ResolvedConfig config = setup.trialConfig(overrides);
        ExperimentOptions run;
        run.storeLocation = spec.storeLocation;
        run.cancel = &cancel;
        run.reporter = reporter;
        run.reporter.onProgress = [&](const ProgressReport& p) {
            reporter.progress({"final " + v.label + " " + p.label, p.done, p.total, p.detail});
        };
        const ExperimentResult r = runExperiment(config, run);
        FinalRun row;
        row.label = v.label;
        row.study = r.study;
        if (!r.seeds.empty()) {
            row.metrics = r.seeds.front().train.finalMetrics;
            row.notices = r.seeds.front().train.notices;
            row.cancelled = r.seeds.front().train.cancelled;
        }
        result.runs.push_back(row);
        if (row.cancelled)
            break;
    }
    reporter.phaseDone();
    return result;
}

Table finalTable(const FinalComparison& comparison, const std::string& objectiveMetric)
{
    // AutoSpeed's columns when every run has them, else the objective.
    std::vector<std::pair<std::string, std::string>> columns;
    for (const auto& c : kDetectionColumns) {
        bool all = !comparison.runs.empty();
        for (const FinalRun& r : comparison.runs)
            all = all && r.metrics.count(c.first);
        if (all)
            columns.push_back(c);
    }
    const bool percent = !columns.empty();
    if (columns.empty())
        columns.push_back({objectiveMetric, "val/" + objectiveMetric});
    std::vector<std::string> header = {"Configuration"};
    for (const auto& c : columns)
        header.push_back(c.second + (percent ? " (%)" : ""));
    Table table(header);
    for (const FinalRun& r : comparison.runs) {
        const auto loss = r.metrics.find("loss");
        const bool diverged = loss != r.metrics.end() && !std::isfinite(loss->second);
        std::vector<std::string> row = {r.label + (diverged ? " (diverged)" : r.cancelled ? " (cancelled)" : "")};
        for (const auto& c : columns) {
            const auto it = r.metrics.find(c.first);
            row.push_back(it == r.metrics.end()
                              ? formatFixed(std::nullopt)
                              : formatFixed(percent ? 100.0 * it->second : it->second, percent ? 1 : 4));
        }
        table.addRow(row);
    }
    return table;
}

std::vector<std::string> finalNotices(const FinalComparison& comparison)
{
    std::vector<std::string> out;
    for (const FinalRun& r : comparison.runs)
        for (const std::string& note : r.notices)
            if (std::find(out.begin(), out.end(), note) == out.end())
                out.push_back(note);
    return out;
}

} // namespace pitwall::engine
