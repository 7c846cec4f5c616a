#pragma once
// `pitwall eval driving` and `pitwall eval detection` as typed specs: the CLI parses them with fromArgs (the engine
// drives or scores from them); the window's driving page fills DrivingEvalJob and starts toArgs().

#include "core/eval/detection.h"
#include "core/jobs/jobproblems.h"
#include "core/util/cmdline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// Routes driven when --routes is not given (the reasoning is at drive::kDefaultEvalRoutes).
inline constexpr int kDefaultDrivingRoutes = 20;

struct DrivingEvalJob {
    static constexpr const char* kCommand = "eval driving";

    // --policy: "expert", "idle", or run ids (one per training seed), as given; empty when absent.
    std::vector<std::string> policies;
    std::optional<int> routes;          // 1..10000
    std::optional<std::int64_t> seed;   // 0..2^62
    std::optional<double> routeSeconds; // 2..3600
    std::optional<double> planHz;       // 1..20
    std::optional<int> threads;         // 0..1024
    std::optional<int> routesTogether;  // 1..1024
    std::string replay;                 // --replay DIR, "" when absent
    std::optional<std::string> database;

    std::vector<std::string> toArgs() const; // "eval", "driving", options
    // InputError naming the option for a value out of its range or a --policy that is neither expert, idle nor run ids.
    static DrivingEvalJob fromArgs(const cmdline::Args& args);
    static DrivingEvalJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs(); // besides --db and --json
    // policy (also where a run's problems go: no such run, no checkpoint, ...), routes, seed, route_seconds, ...
    static const JobFields& fields();
};

// `pitwall eval detection`: boxes predicted elsewhere, scored against a labelled dataset. The required --dataset and
// --predictions are checked where the scoring is set up (core/engine/eval/predictionreport.h), not here.
struct DetectionEvalJob {
    static constexpr const char* kCommand = "eval detection";

    std::string dataset;        // --dataset DIR, "" when absent
    std::string split;          // --split NAME, "" for the whole folder
    std::string predictions;    // --predictions FILE, "" when absent
    std::optional<eval::ApMethod> ap; // --ap autospeed|coco; AutoSpeed's when absent

    std::vector<std::string> toArgs() const; // "eval", "detection", options
    // InputError naming --ap for a method other than autospeed or coco.
    static DetectionEvalJob fromArgs(const cmdline::Args& args);
    static DetectionEvalJob fromArgs(const std::vector<std::string>& words);
    static std::vector<cmdline::OptionSpec> optionSpecs(); // besides --json
    // dataset (also where the dataset's own problems go), split, predictions (its file's problems), ap.
    static const JobFields& fields();
};

// --policy's text as a list: "expert", "idle", or run ids > 0 separated by commas (spaces trimmed). InputError naming
// --policy otherwise.
std::vector<std::string> parsePolicyList(const std::string& text);

} // namespace pitwall
