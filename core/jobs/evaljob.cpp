#include "core/jobs/evaljob.h"

#include "core/jobs/internal/jobwords.h"
#include "core/util/error.h"
#include "core/util/strings.h"

namespace pitwall {

namespace {

constexpr int kMaxRoutes = 10000;
constexpr std::int64_t kMaxSeed = 1LL << 62;

std::optional<double> numberOption(const cmdline::Args& args, const std::string& name, double minimum, double maximum)
{
    return args.value(name) ? std::optional<double>(args.numberIn(name, 0, minimum, maximum)) : std::nullopt;
}

} // namespace

std::vector<std::string> parsePolicyList(const std::string& text)
{
    if (text == "expert" || text == "idle")
        return {text};
    std::vector<std::string> out;
    for (const std::string& part : split(text, ',')) {
        const auto id = parseInteger(trim(part));
        if (!id || *id <= 0)
            throw InputError::forOption("policy", "--policy '" + text +
                                                      "': give expert, idle, a run id or a comma-separated list of "
                                                      "run ids (one per training seed; see 'pitwall db export --run')");
        out.push_back(trim(part));
    }
    return out;
}

std::vector<std::string> DrivingEvalJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    if (!policies.empty())
        jobs::addOption(words, "policy", join(policies, ","));
    jobs::addOption(words, "routes", routes);
    if (seed)
        jobs::addOption(words, "seed", std::to_string(*seed));
    jobs::addOption(words, "route-seconds", routeSeconds);
    if (!replay.empty())
        jobs::addOption(words, "replay", replay);
    jobs::addOption(words, "plan-hz", planHz);
    jobs::addOption(words, "threads", threads);
    jobs::addOption(words, "routes-together", routesTogether);
    jobs::addOption(words, "db", database);
    return words;
}

DrivingEvalJob DrivingEvalJob::fromArgs(const cmdline::Args& args)
{
    DrivingEvalJob job;
    if (const auto policy = args.value("policy"))
        job.policies = parsePolicyList(*policy);
    if (args.value("routes"))
        job.routes = static_cast<int>(args.integerIn("routes", 0, 1, kMaxRoutes));
    if (args.value("seed"))
        job.seed = args.integerIn("seed", 0, 0, kMaxSeed);
    job.routeSeconds = numberOption(args, "route-seconds", 2, 3600);
    job.planHz = numberOption(args, "plan-hz", 1, 20);
    if (args.value("threads"))
        job.threads = static_cast<int>(args.integerIn("threads", 0, 0, 1024));
    if (args.value("routes-together"))
        job.routesTogether = static_cast<int>(args.integerIn("routes-together", 0, 1, 1024));
    job.replay = args.value("replay", "");
    job.database = args.value("db");
    return job;
}

DrivingEvalJob DrivingEvalJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> DrivingEvalJob::optionSpecs()
{
    return {{"policy", "RUN_ID[,RUN_ID...]|expert|idle", "what drives"},
            {"routes", "N", "routes to drive (default " + std::to_string(kDefaultDrivingRoutes) + ")"},
            {"seed", "S", "evaluation seed: the same seed gives the same routes and results (default 0)"},
            {"route-seconds", "T", "nominal route duration in simulated seconds (default 30)"},
            {"replay", "DIR", "write one PNG per route: snapshots with camera, top-down sketch and infractions"},
            {"plan-hz", "HZ", "how often a model plans, 1..20 (default 10)"},
            {"threads", "N", "torch threads for a model; scores depend on it (default 1, 0 = unchanged)"},
            {"routes-together", "N",
             "routes a model drives side by side, its plans for them one batch (default 32, 1 = one after the "
             "other): the same routes either way; a model's float rounding, and so its scores, differ between widths"}};
}

const JobFields& DrivingEvalJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "", "policy");
    return fields;
}

std::vector<std::string> DetectionEvalJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    if (!dataset.empty())
        jobs::addOption(words, "dataset", dataset);
    if (!split.empty())
        jobs::addOption(words, "split", split);
    if (!predictions.empty())
        jobs::addOption(words, "predictions", predictions);
    if (ap)
        jobs::addOption(words, "ap", std::string(eval::apMethodName(*ap)));
    return words;
}

DetectionEvalJob DetectionEvalJob::fromArgs(const cmdline::Args& args)
{
    DetectionEvalJob job;
    job.dataset = args.value("dataset", "");
    job.split = args.value("split", "");
    job.predictions = args.value("predictions", "");
    if (const auto ap = args.value("ap")) {
        try {
            job.ap = eval::parseApMethod(*ap, "--ap");
        } catch (const InputError& e) {
            throw InputError::forOption("ap", e.what());
        }
    }
    return job;
}

DetectionEvalJob DetectionEvalJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> DetectionEvalJob::optionSpecs()
{
    return {
        {"dataset", "DIR", "the labelled dataset: YOLO (images/ + labels/), OpenLane CIPO or synthetic"},
        {"split", "S", "the dataset's split (e.g. val, validation); default: the whole folder"},
        {"predictions", "FILE", "JSON list of predicted boxes {image, class, x, y, width, height, score}, in pixels"},
        {"ap", "METHOD", "autospeed (default: AutoSpeed's trapezoid over the envelope) or coco"}};
}

const JobFields& DetectionEvalJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "", "dataset");
    return fields;
}

} // namespace pitwall
