#include "core/search/searchreport.h"

#include "core/store/pareto.h"

#include "core/hpo/searchspace.h"
#include "core/search/partitionauto.h"
#include "core/util/printable.h"
#include "core/util/printf.h"
#include "core/util/strings.h"

namespace pitwall {

Json searchTrialJson(const TrialRecord& t)
{
    Json params = Json::object();
    for (const TrialParam& p : t.params)
        params[p.name] = p.value();
    Json row{{"number", t.number}, {"state", trialStateName(t.state)}, {"params", params}};
    row["value"] = t.values.empty() ? Json(nullptr) : Json(t.values.front());
    if (t.values.size() > 1)
        row["values"] = t.values;
    if (const auto constraints = t.systemAttrs.find(kConstraintsAttr); constraints != t.systemAttrs.end())
        row["constraints"] = *constraints;
    if (const auto reason = t.systemAttrs.find(kFailReasonAttr); reason != t.systemAttrs.end())
        row["fail_reason"] = *reason;
    row["interrupted"] = isInterrupted(t);
    row["intermediate_values"] = t.intermediateValues.size();
    return row;
}

Json searchResultJson(const std::string& storeLocation, const SearchResult& r, const std::optional<Table>& finalResults,
                      const std::vector<std::string>& finalNotes, bool cancelled)
{
    const StudyCounts& c = r.counts;
    Json out{{"study", r.studyName},
             {"db", storeLocation},
             {"target", r.settings.targetTrials},
             {"workers", r.workers},
             {"partition", r.settings.partition},
             {"backend", r.settings.backend},
             {"seconds", r.seconds},
             {"cancelled", cancelled},
             {"error", r.error},
             {"warnings", r.warnings},
             {"objective", r.settings.objective},
             {"objectives", r.settings.objectives},
             {"constraints", r.settings.constraints},
             {"counts",
              {{"complete", c.complete},
               {"pruned", c.pruned},
               {"failed", c.failed},
               {"interrupted", c.interrupted},
               {"running", c.running},
               {"epochs", c.epochsDone}}},
             {"best", r.best ? searchTrialJson(*r.best) : Json(nullptr)},
             {"best_params", r.searchDone && r.front.empty() ? Json(r.bestParamsPath) : Json(nullptr)},
             {"pareto_front", Json::array()},
             {"final", finalResults ? finalResults->toJson() : Json(nullptr)},
             {"final_notes", finalNotes},
             {"trials", Json::array()}};
    for (const TrialRecord& t : r.trials)
        out["trials"].push_back(searchTrialJson(t));
    for (const TrialRecord& t : r.front)
        out["pareto_front"].push_back(t.number);
    return out;
}

std::string searchSummaryText(const std::string& storeLocation, const SearchResult& r)
{
    const StudyCounts& c = r.counts;
    std::string text = stringPrintf("\nstudy '%s' in %s: %s in %.1f s on %zu worker(s)\n",
                                    printable(r.studyName).c_str(), printable(storeLocation).c_str(),
                                    countsText(c).c_str(), r.seconds, r.workers);
    for (const TrialRecord& t : r.trials)
        if (t.state == TrialState::Fail && !isInterrupted(t) && t.systemAttrs.contains(kFailReasonAttr))
            text +=
                stringPrintf("  trial %d failed: %s\n", t.number,
                             printable(split(t.systemAttrs[kFailReasonAttr].get<std::string>(), '\n').front()).c_str());
    if (r.best) {
        text += stringPrintf("best trial %d: %s %s\n", r.best->number, printable(r.settings.objective).c_str(),
                             formatDouble(r.best->values.front()).c_str());
        for (const TrialParam& p : r.best->params)
            text += stringPrintf("  %s: %s\n", printable(p.name).c_str(), printable(overrideText(p.value())).c_str());
    }
    if (!r.front.empty()) {
        std::vector<std::string> names;
        for (const std::string& key : r.settings.objectives)
            names.push_back(key.empty() ? "objectives[" + std::to_string(names.size()) + "]" : key);
        text += stringPrintf("Pareto front: %zu trial(s) (%s)\n", r.front.size(), printable(join(names, ", ")).c_str());
        for (const TrialRecord& t : r.front) {
            std::vector<std::string> values;
            for (double v : t.values)
                values.push_back(formatDouble(v));
            text += stringPrintf("  trial %d: %s\n", t.number, join(values, ", ").c_str());
        }
        text += stringPrintf("the front with parameters: pitwall study best --study %s\n",
                             printable(r.studyName).c_str());
    }
    if (r.searchDone && r.front.empty())
        text += stringPrintf("best parameters written to %s\n", printable(r.bestParamsPath).c_str());
    return text;
}

std::string finalComparisonText(int epochs, const std::string& studyName, const Table& table,
                                const std::vector<std::string>& notes)
{
    std::string text =
        stringPrintf("\nheld-out validation after %d epoch(s) (studies '%s/final-default', '%s/final-optimised'):\n%s",
                     epochs, printable(studyName).c_str(), printable(studyName).c_str(), table.toText().c_str());
    for (const std::string& note : notes)
        text += stringPrintf("note: %s\n", note.c_str());
    return text;
}

Json searchCheckJson(const SearchCheck& check)
{
    return Json{{"ok", true},
                {"study", check.studyName},
                {"trials", check.targetTrials},
                {"partition", check.partition},
                {"partition_reason", check.partitionReason},
                {"backend", check.backend},
                {"devices", check.devices},
                {"warnings", check.warnings}};
}

std::string searchCheckText(const SearchCheck& check)
{
    if (check.partition == kAutoPartition) // nothing measured yet: the workers are not known
        return stringPrintf("ok: study '%s' would run %d trial(s) on %s, partition auto: %s\n",
                            printable(check.studyName).c_str(), check.targetTrials, check.backend.c_str(),
                            check.partitionReason.c_str());
    return (check.partitionReason.empty() ? std::string() : check.partitionReason + "\n") + stringPrintf("ok: study '%s' would run %d trial(s) on %zu %s worker(s) (%s: %s)\n",
                        printable(check.studyName).c_str(), check.targetTrials, check.devices.size(),
                        check.backend.c_str(), check.partition.c_str(), join(check.devices, ", ").c_str());
}

} // namespace pitwall
