// `pitwall hpo --final-epochs N`, the last step of AutoSpeed's HPO protocol: the trials tuned on train_hpo /
// val_hpo (data.hpo_split); now the default and the best configuration each train N epochs on the whole
// training split and are evaluated on the held-out validation split, side by side.
#include "app/cli/cmd_hpo_final.h"

#include "core/engine/train/experiment.h"
#include "core/report/table.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;

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

void writeBestParams(const TrialRecord& best, const std::string& path)
{
    YAML::Emitter yaml;
    yaml << YAML::BeginMap;
    for (const TrialParam& p : best.params) {
        yaml << YAML::Key << p.name << YAML::Value;
        const Json v = p.value();
        if (v.is_string())
            yaml << v.get<std::string>();
        else if (v.is_boolean())
            yaml << v.get<bool>();
        else if (v.is_number_integer())
            yaml << v.get<long long>();
        else
            yaml << YAML::Precision(17) << v.get<double>();
    }
    yaml << YAML::EndMap;
    const fs::path target(path);
    if (!target.parent_path().empty())
        fs::create_directories(target.parent_path());
    const fs::path temporary = target.string() + ".tmp";
    {
        std::ofstream out(temporary);
        out << "# Best trial " << best.number << " (value " << formatDouble(best.values.front())
            << "): its sampled parameters under the search space's names.\n"
            << yaml.c_str() << "\n";
        if (!out)
            throw RuntimeError("cannot write " + temporary.string());
    }
    fs::rename(temporary, target); // never a half-written file under the real name
}

FinalComparison runFinalComparison(const SearchSetup& setup, const TrialRecord& best, const FinalOptions& options)
{
    FinalComparison result;
    const std::vector<std::string> finalKeys = {"data.hpo_split=false"};
    const auto epochs = epochOverrides(*setup.base, options.epochs);
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
        overrides.insert(overrides.end(), finalKeys.begin(), finalKeys.end());
        overrides.insert(overrides.end(), epochs.begin(), epochs.end());
        overrides.push_back("experiment.name=" + options.studyName + "/final-" + v.label);
        overrides.push_back("experiment.seeds=[" + std::to_string(setup.base->value("experiment.seeds").asIntList().front()) + "]");
        const ResolvedConfig config = setup.trialConfig(overrides);
        engine::ExperimentOptions run;
        run.storeLocation = options.storeLocation;
        run.cancel = options.cancel;
        run.message = options.message;
        run.progress = [&](std::int64_t, const engine::TrainProgress& p) {
            if (options.progress)
                options.progress(v.label, p);
        };
        const engine::ExperimentResult r = engine::runExperiment(config, run);
        FinalRun row;
        row.label = v.label;
        row.study = r.study;
        if (!r.seeds.empty()) {
            row.metrics = r.seeds.front().train.finalMetrics;
            row.cancelled = r.seeds.front().train.cancelled;
        }
        result.runs.push_back(row);
        if (row.cancelled)
            break;
    }
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

} // namespace pitwall::cli
