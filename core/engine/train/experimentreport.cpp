#include "core/engine/train/experimentreport.h"

#include "core/util/printf.h"

namespace pitwall::engine {

nlohmann::json experimentResultJson(const ExperimentResult& result)
{
    nlohmann::json runs = nlohmann::json::array();
    for (const SeedResult& s : result.seeds) {
        nlohmann::json run{{"seed", s.seed},
                           {"trial", s.trialNumber},
                           {"run_id", s.train.runId},
                           {"total_seconds", s.train.totalSeconds},
                           {"cancelled", s.train.cancelled},
                           {"notices", s.train.notices}};
        nlohmann::json metrics = nlohmann::json::object();
        for (const StageResult& st : s.train.stages) {
            metrics["stage_seconds/" + st.stage] = st.seconds;
            metrics["compute_fps/" + st.stage] = st.computeFps;
            metrics["full_fps/" + st.stage] = st.fullFps;
            metrics["data_wait_ms/" + st.stage] = st.dataWaitMs;
            metrics["loss/" + st.stage] = st.finalLoss;
        }
        for (const auto& [key, value] : s.train.finalMetrics)
            metrics["val/" + key] = value;
        run["metrics"] = metrics;
        runs.push_back(run);
    }
    return {{"study", result.study}, {"data_dir", result.dataDir}, {"runs", runs}};
}

std::string experimentResultText(const ExperimentResult& result, const std::string& storeLocation)
{
    std::string text = stringPrintf("\nstudy '%s' in %s (data: %s)\n", result.study.c_str(), storeLocation.c_str(),
                                    result.dataDir.c_str());
    text += stringPrintf("  %-5s %-6s %-10s %8s %12s %10s %10s\n", "seed", "trial", "stage", "seconds", "compute FPS",
                         "full FPS", "val loss");
    for (const SeedResult& s : result.seeds) {
        for (const StageResult& st : s.train.stages) {
            const auto loss = st.validation.find("loss");
            text += stringPrintf("  %-5lld %-6d %-10s %8.1f %12.1f %10.1f %10s\n", static_cast<long long>(s.seed),
                                 s.trialNumber, st.stage.c_str(), st.seconds, st.computeFps, st.fullFps,
                                 loss == st.validation.end() ? "-" : stringPrintf("%.4f", loss->second).c_str());
        }
        std::string metrics;
        for (const auto& [key, value] : s.train.finalMetrics)
            metrics += "  " + key + "=" + stringPrintf("%.4f", value);
        text += stringPrintf("  final validation:%s\n", metrics.c_str());
        for (const std::string& note : s.train.notices)
            text += stringPrintf("  note: %s\n", note.c_str());
    }
    return text;
}

ProgressReport trainProgressReport(std::int64_t seed, const TrainProgress& p)
{
    ProgressReport out;
    out.label = "seed " + std::to_string(seed) + " " + p.stage;
    out.done = static_cast<double>(p.epoch) * static_cast<double>(p.stepsPerEpoch) + static_cast<double>(p.step);
    out.total = static_cast<double>(p.epochs) * static_cast<double>(p.stepsPerEpoch);
    out.detail = "epoch " + std::to_string(p.epoch + 1) + "/" + std::to_string(p.epochs) + "  " +
                 trainProgressText(seed, p).detail;
    return out;
}

void reportTrainProgress(const ProgressReporter& reporter, std::int64_t seed, const TrainProgress& progress)
{
    if (progress.epochDone)
        reporter.message(trainProgressText(seed, progress).text);
    else
        reporter.progress(trainProgressReport(seed, progress));
}

TrainProgressText trainProgressText(std::int64_t seed, const TrainProgress& p)
{
    TrainProgressText out;
    out.label = "seed " + std::to_string(seed) + " " + p.stage + " epoch " + std::to_string(p.epoch + 1) + "/" +
                std::to_string(p.epochs);
    if (p.epochDone) {
        std::string val;
        for (const auto& [key, value] : p.validation)
            val += " " + key + " " + stringPrintf("%.4f", value);
        out.text = out.label + " done: train loss " + stringPrintf("%.4f", p.loss) + ", val" + val;
    } else {
        out.detail = "loss " + stringPrintf("%.4f", p.loss) + "  " + stringPrintf("%.1f", p.computeFps) + " samples/s";
    }
    return out;
}

} // namespace pitwall::engine
