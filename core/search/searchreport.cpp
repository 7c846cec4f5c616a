#include "core/search/searchreport.h"

#include "core/hpo/searchspace.h"
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
             {"counts",
              {{"complete", c.complete},
               {"pruned", c.pruned},
               {"failed", c.failed},
               {"interrupted", c.interrupted},
               {"running", c.running},
               {"epochs", c.epochsDone}}},
             {"best", r.best ? searchTrialJson(*r.best) : Json(nullptr)},
             {"best_params", r.searchDone ? Json(r.bestParamsPath) : Json(nullptr)},
             {"final", finalResults ? finalResults->toJson() : Json(nullptr)},
             {"final_notes", finalNotes},
             {"trials", Json::array()}};
    for (const TrialRecord& t : r.trials)
        out["trials"].push_back(searchTrialJson(t));
    return out;
}

std::string searchSummaryText(const std::string& storeLocation, const SearchResult& r)
{
    const StudyCounts& c = r.counts;
    std::string text = stringPrintf(
        "\nstudy '%s' in %s: %d complete, %d pruned, %d failed (%d interrupted) in %.1f s on %zu worker(s)\n",
        printable(r.studyName).c_str(), printable(storeLocation).c_str(), c.complete, c.pruned, c.failed, c.interrupted,
        r.seconds, r.workers);
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
    if (r.searchDone)
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
                {"backend", check.backend},
                {"devices", check.devices},
                {"warnings", check.warnings}};
}

std::string searchCheckText(const SearchCheck& check)
{
    return stringPrintf("ok: study '%s' would run %d trial(s) on %zu %s worker(s) (%s: %s)\n",
                        printable(check.studyName).c_str(), check.targetTrials, check.devices.size(),
                        check.backend.c_str(), check.partition.c_str(), join(check.devices, ", ").c_str());
}

} // namespace pitwall
