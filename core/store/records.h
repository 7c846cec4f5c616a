#pragma once
// Plain records that cross the store interface. No backend types, no tensors.

#include "core/store/stepvalues.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pitwall {

using Json = nlohmann::json;

// A number for JSON output (exports and every --json). JSON has no infinity, so +inf and -inf are the strings
// "inf" and "-inf" (as Optuna's storage writes them); NaN and a missing value are null, so an infinite value
// stays distinguishable from a failed trial's missing one.
Json jsonNumber(double value);
Json jsonNumber(const std::optional<double>& value);

// Trial states under Optuna's names (RUNNING, WAITING, COMPLETE, PRUNED, FAIL).
enum class TrialState { Running, Waiting, Complete, Pruned, Fail };
std::string_view trialStateName(TrialState state);
std::optional<TrialState> parseTrialState(std::string_view name); // accepts any case

enum class StudyDirection { Minimize, Maximize };
std::string_view studyDirectionName(StudyDirection direction); // "MINIMIZE" / "MAXIMIZE"
std::optional<StudyDirection> parseStudyDirection(std::string_view name);

// A parameter's distribution, as Optuna stores it in trial_params.distribution_json.
struct Distribution {
    enum class Kind { Float, Int, Categorical };
    Kind kind = Kind::Float;
    double low = 0.0;
    double high = 1.0;
    bool log = false;
    std::optional<double> step;   // Float: optional; Int: always set (default 1)
    std::vector<Json> choices;    // Categorical only

    // {"name": "FloatDistribution", "attributes": {...}} exactly as Optuna 3.1 writes it.
    std::string toOptunaJson() const;
    // Reads Optuna 3.x's distribution JSON (also the 2.x names UniformDistribution, LogUniformDistribution,
    // DiscreteUniformDistribution, IntUniformDistribution, IntLogUniformDistribution). Throws InputError.
    static Distribution fromOptunaJson(const std::string& text);

    // Optuna stores categorical values as the index into choices; numbers as themselves.
    Json toExternal(double internalValue) const;
    double toInternal(const Json& externalValue) const; // throws InputError for a value not in choices
};

struct TrialParam {
    std::string name;
    double internalValue = 0.0;
    Distribution distribution;
    Json value() const { return distribution.toExternal(internalValue); }
};

struct TrialRecord {
    std::int64_t id = 0;
    int number = 0;
    std::int64_t studyId = 0;
    TrialState state = TrialState::Running;
    std::optional<double> startTime;    // Unix seconds
    std::optional<double> completeTime; // Unix seconds
    std::vector<double> values;          // one per objective (±inf allowed); empty unless complete, except
                                         // that a pruned trial carries its last intermediate value (as Optuna)
    std::vector<TrialParam> params;
    StepValues intermediateValues; // step -> value (the first objective's), core/store/stepvalues.h
    // Several objectives: step -> one value per objective (the first is intermediateValues' at that step); only
    // steps reported as a vector.
    std::map<std::int64_t, std::vector<double>> intermediateVectors;
    // False when the record was read summarised (Store::trialsSummarised): intermediateValues and
    // intermediateVectors then hold the trial's last step alone.
    bool allIntermediates = true;
    Json userAttrs = Json::object();
    Json systemAttrs = Json::object();
    std::optional<double> heartbeatTime; // Unix seconds of the last heartbeat, if any
};

// Store::trialRevisionsSince's answer: finished trials changed since a revision. `tracked` is false for a file whose
// Pitwall tables predate revisions (schema 5 and older; an older Pitwall may change finished trials unrecorded):
// then a reader must read all trials again.
struct TrialRevisions {
    std::int64_t latest = 0;
    bool tracked = true;
    struct Revised {
        std::int64_t studyId = 0;
        int number = 0;
    };
    std::vector<Revised> trials; // oldest revision first; a trial revised twice is listed once
};

struct StudyRecord {
    std::int64_t id = 0;
    std::string name;
    std::vector<StudyDirection> directions;
    Json userAttrs = Json::object();
    Json systemAttrs = Json::object();
};

// The names of the study's objectives, one per direction: Optuna's (Study.set_metric_names stores them as the study
// system attribute "study:metric_names") when there is one name per objective, else the metrics a `pitwall hpo`
// search reads (its settings' "objective" or "objectives", core/pool/hposettings.h), else "objective" for a single
// objective and "objective 1", "objective 2", … for several.
inline constexpr const char* kMetricNamesAttr = "study:metric_names";
inline constexpr const char* kHpoSettingsAttr = "pitwall:hpo";
std::vector<std::string> objectiveNames(const StudyRecord& study);
// "minimise" or "maximise" (the window's and reports' word for a direction).
std::string_view directionVerb(StudyDirection direction);

// Trial system attribute: true when a FAIL trial's failure was not its own fault (stopped, its worker lost, not run
// because the study was full). Such trials are "interrupted": shown apart from failures, not counted against a
// search's target, re-run on resume (core/pool/trialstate.h).
inline constexpr const char* kInterruptedAttr = "pitwall:interrupted";

// A study with the counts a study list shows. bestValue follows the first objective's direction.
struct StudySummary {
    StudyRecord study;
    int running = 0, waiting = 0, complete = 0, pruned = 0;
    int failed = 0;      // FAIL trials, the interrupted ones included (Optuna's count)
    int interrupted = 0; // FAIL trials marked kInterruptedAttr
    // FAIL trials that failed by their own fault: what every display calls "failed", beside "interrupted".
    int failures() const { return failed - interrupted; }
    std::optional<double> bestValue;
    std::optional<int> bestTrialNumber;
    std::optional<int> paretoSize; // several objectives: how many trials are on the Pareto front (core/store/pareto.h)
    int total() const { return running + waiting + complete + pruned + failed; }
};

enum class RunStatus { Running, Succeeded, Failed, Cancelled };
std::string_view runStatusName(RunStatus status); // "running", "succeeded", "failed", "cancelled"
std::optional<RunStatus> parseRunStatus(std::string_view name);

// A run is one training job of a trial (one seed on one logical device).
struct RunRecord {
    std::int64_t id = 0;
    std::optional<std::int64_t> trialId;
    std::string kind;          // "train", "bench", "eval", ...
    std::string configYaml;    // the resolved config
    std::int64_t seed = 0;
    std::string logicalDevice; // e.g. "cpu:0/2"
    std::string host;
    std::int64_t pid = 0;
    double startTime = 0.0;    // Unix seconds
    std::optional<double> endTime;
    RunStatus status = RunStatus::Running;
    std::optional<int> exitCode;
    std::string message;       // why it ended, for failures
};

// One point of a metric series. wallTime is Unix seconds.
struct MetricSample {
    std::int64_t runId = 0;
    std::string stage;
    std::int64_t step = 0;
    std::string key;
    double value = 0.0;
    double wallTime = 0.0;
};

struct MetricRow {
    std::int64_t cursor = 0; // strictly increasing in insertion order
    MetricSample sample;
};

enum class EventLevel { Debug, Info, Warning, Error };
std::string_view eventLevelName(EventLevel level);
std::optional<EventLevel> parseEventLevel(std::string_view name);

struct EventRecord {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    double time = 0.0;
    EventLevel level = EventLevel::Info;
    std::string message;
};

struct ArtifactRecord {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    std::string kind; // "checkpoint", "profile", "plot", ...
    std::string path;
    std::string description;
    double time = 0.0;
};

struct BenchmarkRecord {
    std::int64_t id = 0;
    std::string suite;  // "loader", "partitions", "variants", ...
    std::string name;
    Json parameters = Json::object();
    Json results = Json::object();
    std::string host;
    double time = 0.0;
};

struct SchemaInfo {
    std::string backend;   // "sqlite"
    std::string location;  // file path
    int pitwallSchemaVersion = 0;       // 0: no Pitwall tables yet (e.g. a file written by Optuna)
    int latestPitwallSchemaVersion = 0; // what this build migrates to
    std::optional<int> optunaSchemaVersion;   // version_info.schema_version
    std::string optunaLibraryVersion;        // version_info.library_version
    std::string alembicVersion;              // alembic_version.version_num
    std::int64_t studies = 0, trials = 0, runs = 0, metricRows = 0;
    std::int64_t fileBytes = 0;
    std::string journalMode;
};

} // namespace pitwall
