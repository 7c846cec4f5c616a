#include "core/store/storecopy.h"

#include "core/util/error.h"

#include <unordered_map>

namespace pitwall {

namespace {

constexpr std::size_t kMetricBatch = 20000;

struct Copier {
    Store& from;
    Store& to;
    const ProgressReporter& progress;
    CopyReport report;
    std::unordered_map<std::int64_t, std::int64_t> trialIds; // source trial id -> target trial id

    std::string copiedSoFar() const
    {
        return "; copied before this: " + std::to_string(report.studies) + " stud" +
               (report.studies == 1 ? "y" : "ies") + ", " + std::to_string(report.runs) + " run(s), " +
               std::to_string(report.metricRows) + " metric row(s)";
    }

    void copyStudy(const StudySummary& summary)
    {
        const StudyRecord& study = summary.study;
        const std::vector<TrialRecord> trials = from.trials(study.id);
        const std::int64_t id = to.createStudy(study.name, study.directions);
        for (auto it = study.userAttrs.begin(); it != study.userAttrs.end(); ++it)
            to.setStudyUserAttr(id, it.key(), it.value());
        for (auto it = study.systemAttrs.begin(); it != study.systemAttrs.end(); ++it)
            to.setStudySystemAttr(id, it.key(), it.value());
        if (!trials.empty())
            to.addTrials(id, trials);
        // The copies have the originals' numbers (a study's numbers run from 0 without gaps).
        std::unordered_map<int, std::int64_t> copied;
        for (const TrialRecord& trial : to.trials(id))
            copied[trial.number] = trial.id;
        for (const TrialRecord& trial : trials)
            if (const auto it = copied.find(trial.number); it != copied.end())
                trialIds[trial.id] = it->second;
        report.studies += 1;
        report.trials += static_cast<std::int64_t>(trials.size());
        progress.progress({"trials", static_cast<double>(report.trials), 0, "study '" + study.name + "'"});
    }

    void copyRun(const RunRecord& run)
    {
        RunRecord copy = run;
        if (run.trialId) {
            const auto it = trialIds.find(*run.trialId);
            copy.trialId = it != trialIds.end() ? std::optional<std::int64_t>(it->second) : std::nullopt;
        }
        const std::int64_t id = to.createRun(copy); // with its status, end time, exit code and message
        std::int64_t cursor = 0;
        for (;;) {
            const auto rows = from.metricsSince(run.id, cursor, kMetricBatch);
            if (rows.empty())
                break;
            std::vector<MetricSample> samples;
            samples.reserve(rows.size());
            for (const MetricRow& row : rows) {
                samples.push_back(row.sample);
                samples.back().runId = id;
            }
            to.appendMetrics(samples);
            cursor = rows.back().cursor;
            report.metricRows += static_cast<std::int64_t>(rows.size());
            progress.progress({"metric rows", static_cast<double>(report.metricRows), 0, "run " + std::to_string(id)});
        }
        for (const EventRecord& event : from.eventsSince(run.id, 0)) {
            to.addEvent(id, event.level, event.message, event.time);
            ++report.events;
        }
        for (ArtifactRecord artifact : from.artifacts(run.id)) {
            artifact.runId = id;
            to.addArtifact(artifact);
            ++report.artifacts;
        }
        ++report.runs;
    }
};

} // namespace

CopyReport copyStore(Store& from, Store& to, const std::optional<std::string>& study, const ProgressReporter& progress)
{
    std::vector<StudySummary> studies = from.listStudies();
    if (study) {
        std::erase_if(studies, [&](const StudySummary& summary) { return summary.study.name != *study; });
        if (studies.empty())
            from.requireStudy(*study); // InputError naming the known studies
    }
    std::vector<std::string> taken;
    for (const StudySummary& summary : to.listStudies())
        for (const StudySummary& copied : studies)
            if (copied.study.name == summary.study.name)
                taken.push_back("'" + copied.study.name + "'");
    if (!taken.empty()) {
        std::string names;
        for (const std::string& name : taken)
            names += (names.empty() ? "" : ", ") + name;
        throw InputError(to.location() + " already has " + (taken.size() == 1 ? "a study named " : "studies named ") +
                         names + "; nothing was copied (a copy never merges into an existing study)");
    }

    Copier copier{from, to, progress, {}, {}};
    try {
        for (const StudySummary& summary : studies)
            copier.copyStudy(summary);
        for (const RunRecord& run : from.runs()) {
            // One study: the runs of its trials. Everything: every run, those of no trial too.
            if (study && !(run.trialId && copier.trialIds.count(*run.trialId)))
                continue;
            copier.copyRun(run);
        }
        if (!study)
            for (const BenchmarkRecord& benchmark : from.benchmarks()) {
                to.addBenchmark(benchmark);
                ++copier.report.benchmarks;
            }
    } catch (const InputError& error) {
        throw InputError(std::string(error.what()) + copier.copiedSoFar());
    } catch (const std::exception& error) {
        throw RuntimeError(std::string(error.what()) + copier.copiedSoFar());
    }
    progress.phaseDone();
    return copier.report;
}

} // namespace pitwall
