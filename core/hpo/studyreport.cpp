#include "core/hpo/studyreport.h"

#include "core/hpo/hypervolume.h"
#include "core/hpo/searchspace.h"
#include "core/hpo/study.h"
#include "core/util/printable.h"
#include "core/util/printf.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>

namespace pitwall {

nlohmann::json studyListJson(const std::vector<StudySummary>& studies)
{
    nlohmann::json out = nlohmann::json::array();
    for (const StudySummary& s : studies) {
        nlohmann::json row{
            {"name", s.study.name},
            {"directions", nlohmann::json::array()},
            {"trials", s.total()},
            {"complete", s.complete},
            {"pruned", s.pruned},
            {"failed", s.failures()},       // by the trials' own fault
            {"interrupted", s.interrupted}, // stopped or lost: not counted against a target, re-run on resume
            {"running", s.running},
            {"best_value", jsonNumber(s.bestValue)},
            {"best_trial", s.bestTrialNumber ? nlohmann::json(*s.bestTrialNumber) : nlohmann::json(nullptr)}};
        for (StudyDirection d : s.study.directions)
            row["directions"].push_back(toLower(studyDirectionName(d)));
        if (!s.study.directions.empty()) {
            const StudyOptions options = studyOptions(s.study);
            row["sampler"] = samplerKindName(options.sampler.kind);
            if (s.study.directions.size() == 1)
                row["pruner"] = prunerKindName(options.pruner.kind);
        }
        if (s.paretoSize)
            row["pareto_front"] = *s.paretoSize; // best_value and best_trial follow the first objective
        out.push_back(row);
    }
    return out;
}

std::string studyListText(const std::vector<StudySummary>& studies)
{
    const nlohmann::json rows = studyListJson(studies);
    int directionWidth = 9; // "direction"; wider for a study with several objectives
    for (const nlohmann::json& row : rows)
        directionWidth = std::max(directionWidth,
                                  static_cast<int>(join(row["directions"].get<std::vector<std::string>>(), ",").size()));
    // The name column is as wide as the longest name (28 at least), so a long one never pushes its row's columns.
    int nameWidth = 28;
    for (const StudySummary& s : studies)
        nameWidth = std::max(nameWidth, static_cast<int>(printable(s.study.name).size()));
    std::string text = stringPrintf("%-*s %-*s %-7s %-9s %6s %8s %6s %6s %11s %7s  %s\n", nameWidth, "study",
                                    directionWidth, "direction", "sampler", "pruner", "trials", "complete", "pruned",
                                    "failed", "interrupted", "running", "best");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const nlohmann::json& row = rows[i];
        const std::optional<double>& best = studies[i].bestValue;
        text +=
            stringPrintf("%-*s %-*s %-7s %-9s %6d %8d %6d %6d %11d %7d  %s\n", nameWidth,
                         printable(studies[i].study.name).c_str(),
                         directionWidth,
                         join(row["directions"].get<std::vector<std::string>>(), ",").c_str(),
                         row.value("sampler", std::string("-")).c_str(), row.value("pruner", std::string("-")).c_str(),
                         row["trials"].get<int>(), row["complete"].get<int>(), row["pruned"].get<int>(),
                         row["failed"].get<int>(), row["interrupted"].get<int>(), row["running"].get<int>(),
                         studies[i].paretoSize ? ("Pareto front of " + std::to_string(*studies[i].paretoSize)).c_str()
                         : best                ? formatDouble(*best).c_str()
                                               : "-");
    }
    return text;
}

nlohmann::json bestTrialJson(const TrialRecord& best)
{
    nlohmann::json params = nlohmann::json::object();
    for (const TrialParam& p : best.params)
        params[p.name] = p.value();
    return {{"number", best.number}, {"value", jsonNumber(best.values.front())}, {"params", params}};
}

std::string bestTrialText(const std::string& studyName, const TrialRecord& best)
{
    std::string text = "best trial " + std::to_string(best.number) + " of '" + printable(studyName) + "': value " +
                       formatDouble(best.values.front()) + "\n";
    for (const TrialParam& p : best.params)
        text += "  " + printable(p.name) + ": " + printable(overrideText(p.value())) + "\n";
    return text;
}

HypervolumeReport hypervolumeReport(Store& store, const StudyRecord& study, const std::string& referenceText)
{
    HypervolumeReport report;
    for (const std::string& item : split(referenceText, ',')) {
        const auto value = parseDouble(trim(item));
        if (!value || !std::isfinite(*value))
            throw InputError::forOption("reference", "--reference '" + referenceText +
                                                         "' is not a list of numbers R1,R2,... (one per objective)");
        report.reference.push_back(*value);
    }
    if (report.reference.size() != study.directions.size())
        throw InputError::forOption("reference", "--reference '" + referenceText + "' has " +
                                                     std::to_string(report.reference.size()) + " value(s); study '" +
                                                     study.name + "' has " + std::to_string(study.directions.size()) +
                                                     " objectives");
    report.history = hypervolumeHistory(store.trials(study.id), study.directions, report.reference);
    report.hypervolume = report.history.empty() ? 0.0 : report.history.back().second;
    return report;
}

nlohmann::json bestTrialsJson(const std::vector<TrialRecord>& front, const std::optional<HypervolumeReport>& volume,
                              const std::vector<TrialLabel>& labels)
{
    nlohmann::json trials = nlohmann::json::array();
    for (const TrialRecord& t : front) {
        nlohmann::json params = nlohmann::json::object();
        for (const TrialParam& p : t.params)
            params[p.name] = p.value();
        nlohmann::json values = nlohmann::json::array();
        for (double v : t.values)
            values.push_back(jsonNumber(v));
        trials.push_back({{"number", t.number}, {"values", values}, {"params", params}});
        if (!labels.empty())
            trials.back()["labels"] = labelsOf(t, labels);
    }
    nlohmann::json out{{"best_trials", trials}};
    if (volume) {
        out["reference"] = volume->reference;
        out["hypervolume"] = jsonNumber(volume->hypervolume);
        out["hypervolume_history"] = nlohmann::json::array();
        for (const auto& [number, value] : volume->history)
            out["hypervolume_history"].push_back({number, jsonNumber(value)});
    }
    return out;
}

std::string bestTrialsText(const StudyRecord& study, const std::vector<TrialRecord>& front,
                           const std::optional<HypervolumeReport>& volume, const std::vector<TrialLabel>& labels)
{
    std::vector<std::string> directions;
    for (StudyDirection d : study.directions)
        directions.push_back(toLower(studyDirectionName(d)));
    std::string text = "Pareto front of '" + printable(study.name) + "' (" + join(directions, ", ") + "): " +
                       std::to_string(front.size()) + " trial" + (front.size() == 1 ? "" : "s") + "\n";
    for (const TrialRecord& t : front) {
        std::vector<std::string> values, params;
        for (double v : t.values)
            values.push_back(formatDouble(v));
        for (const TrialParam& p : t.params)
            params.push_back(printable(p.name) + "=" + printable(overrideText(p.value())));
        const std::vector<std::string> names = labelsOf(t, labels);
        text += "  trial " + std::to_string(t.number) +
                (names.empty() ? std::string() : " [" + printable(join(names, "; ")) + "]") + ": values " +
                join(values, ", ") + (params.empty() ? "" : "  (" + join(params, " ") + ")") + "\n";
    }
    if (volume) {
        std::vector<std::string> reference;
        for (double r : volume->reference)
            reference.push_back(formatDouble(r));
        text += "hypervolume " + formatDouble(volume->hypervolume) + " from reference (" + join(reference, ", ") +
                ") over " + std::to_string(volume->history.size()) + " counted trial" +
                (volume->history.size() == 1 ? "" : "s") + " (--json: its history)\n";
    }
    return text;
}

std::string studyCreatedText(const std::string& studyName, const StudyOptions& options, const std::string& location)
{
    std::vector<std::string> directions;
    for (StudyDirection d : options.objectives())
        directions.push_back(toLower(std::string(studyDirectionName(d))));
    return "created study '" + printable(studyName) + "' (" + join(directions, ", ") + ", sampler " +
           options.sampler.toJson().dump() + ", pruner " + options.pruner.toJson().dump() + ") in " + location + "\n";
}

nlohmann::json askedTrialJson(const AskedTrial& asked)
{
    return nlohmann::json{
        {"number", asked.trial.number}, {"params", asked.params}, {"fixed", asked.fixed}, {"overrides", asked.overrides}};
}

std::string toldTrialText(const TrialRecord& trial)
{
    std::string text = "trial " + std::to_string(trial.number) + ": " + std::string(trialStateName(trial.state));
    std::vector<std::string> values;
    for (double v : trial.values)
        values.push_back(formatDouble(v));
    if (!values.empty())
        text += std::string(values.size() == 1 ? " (value " : " (values ") + join(values, ", ") + ")";
    return text + "\n";
}

} // namespace pitwall
