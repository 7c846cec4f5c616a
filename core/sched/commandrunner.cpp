#include "core/sched/commandrunner.h"

#include "core/hpo/searchspace.h"
#include "core/sched/commandline.h"
#include "core/sched/internal/spawn.h"
#include "core/sched/trialstate.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace pitwall {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReadTimeoutMs = 200;
constexpr double kDrainSeconds = 2.0; // output still open after the command ended (a child kept the pipe)
constexpr std::size_t kLogTailBytes = 1500;

std::string quoteWord(const std::string& word)
{
    if (!word.empty() && word.find_first_of(" \t'\"\\") == std::string::npos)
        return word;
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

std::set<std::string> knownPlaceholders(const SearchSpace& space, bool withConfig, bool withEpochs)
{
    std::set<std::string> names{"trial", "trial_dir", "study", "device", "threads"};
    if (withConfig)
        names.insert("config");
    if (withEpochs)
        names.insert("epochs");
    for (const SpaceParam& p : space.params())
        names.insert(p.name);
    return names;
}

CommandOutputLine classifyOutputLine(const std::string& line)
{
    CommandOutputLine out;
    const std::string text = trim(line);
    if (text.empty() || text.front() != '{')
        return out;
    out.kind = CommandOutputLine::Kind::BadJson;
    try {
        out.json = Json::parse(text);
    } catch (const Json::exception& e) {
        out.error = e.what();
        return out;
    }
    if (!out.json.is_object()) {
        out.error = "not a JSON object";
        return out;
    }
    if (out.json.contains("objective")) {
        if (!out.json["objective"].is_number()) {
            out.error = "\"objective\" is not a number";
            return out;
        }
        out.value = out.json["objective"].get<double>();
        out.kind = CommandOutputLine::Kind::Objective;
        return out;
    }
    if (out.json.contains("step") || out.json.contains("value")) {
        const Json& step = out.json.contains("step") ? out.json["step"] : Json();
        const Json& value = out.json.contains("value") ? out.json["value"] : Json();
        if (!step.is_number_integer() || step.get<std::int64_t>() < 0) {
            out.error = "\"step\" must be an integer >= 0";
            return out;
        }
        if (!value.is_number()) {
            out.error = "\"value\" must be a number";
            return out;
        }
        out.step = step.get<std::int64_t>();
        out.value = value.get<double>();
        out.kind = CommandOutputLine::Kind::Intermediate;
        return out;
    }
    out.kind = CommandOutputLine::Kind::OtherJson;
    return out;
}

CommandRunner::CommandRunner(CommandRunnerOptions options) : m_options(std::move(options))
{
}

TrialOutcome CommandRunner::run(TrialContext& context)
{
    const AskedTrial& asked = *context.asked;
    const int number = asked.trial.number;
    std::map<std::string, std::string> values{{"trial", std::to_string(number)},
                                              {"trial_dir", context.trialDir},
                                              {"study", context.studyName},
                                              {"device", m_options.device},
                                              {"threads", std::to_string(m_options.threads)}};
    if (m_options.epochs)
        values["epochs"] = std::to_string(*m_options.epochs);
    for (auto it = asked.fixed.begin(); it != asked.fixed.end(); ++it)
        values[it.key()] = overrideText(it.value());
    for (auto it = asked.params.begin(); it != asked.params.end(); ++it)
        values[it.key()] = overrideText(it.value());
    std::string configYaml;
    if (m_options.writeConfig) {
        values["config"] = m_options.writeConfig(asked, context.trialDir);
        configYaml = readTextFile(values["config"]);
    }
    std::vector<std::string> argv = expandCommand(m_options.words, values);
    argv[0] = findExecutable(argv[0]);
    std::string commandText;
    for (const std::string& word : argv)
        commandText += (commandText.empty() ? "" : " ") + quoteWord(word);

    std::map<std::string, std::string> environment = m_options.environment;
    environment["PITWALL_STUDY"] = context.studyName;
    environment["PITWALL_TRIAL"] = std::to_string(number);
    environment["PITWALL_TRIAL_DIR"] = context.trialDir;
    std::ofstream log(context.logFile, std::ios::app);
    log << "[pitwall] trial " << number << ": " << commandText << "\n" << std::flush;
    auto process = sched_internal::CommandProcess::start(argv, environment, context.logFile);

    auto store = openStore(m_options.storeLocation);
    RunRecord run;
    run.trialId = asked.trial.id;
    run.kind = "command";
    run.configYaml = configYaml.empty() ? "command: " + Json(argv).dump() + "\n" : configYaml;
    run.logicalDevice = m_options.device;
    run.host = hostName();
    run.pid = process.pid();
    run.startTime = nowSeconds();
    const std::int64_t runId = store->createRun(run);
    ArtifactRecord artifact;
    artifact.runId = runId;
    artifact.kind = "log";
    artifact.path = std::filesystem::absolute(context.logFile).string();
    artifact.description = "stderr and non-JSON stdout of trial " + std::to_string(number);
    artifact.time = nowSeconds();
    store->addArtifact(artifact);

    TrialOutcome outcome;
    outcome.userAttrs["log_file"] = artifact.path;
    outcome.userAttrs["command"] = argv;
    std::optional<double> objective;
    Json metrics = Json::object();
    std::string firstBadLine, firstBadError;
    int badLines = 0;
    bool pruned = false, cancelled = false;
    std::optional<Clock::time_point> stopSent, endedAt;
    std::optional<sched_internal::CommandExit> exit;
    const auto stop = [&] {
        if (!stopSent) {
            process.signal(SIGTERM);
            stopSent = Clock::now();
        }
    };
    for (;;) {
        for (const std::string& line : process.readLines(kReadTimeoutMs)) {
            const CommandOutputLine parsed = classifyOutputLine(line);
            switch (parsed.kind) {
            case CommandOutputLine::Kind::Text:
            case CommandOutputLine::Kind::OtherJson:
                log << line << "\n";
                break;
            case CommandOutputLine::Kind::BadJson:
                log << line << "\n[pitwall] the line above is not valid protocol JSON: " << parsed.error << "\n";
                if (badLines++ == 0) {
                    firstBadLine = line;
                    firstBadError = parsed.error;
                }
                break;
            case CommandOutputLine::Kind::Intermediate: {
                std::vector<MetricSample> samples;
                for (auto it = parsed.json.begin(); it != parsed.json.end(); ++it)
                    if (it.key() != "step" && it.value().is_number())
                        samples.push_back(
                            {runId, "command", parsed.step, it.key(), it.value().get<double>(), nowSeconds()});
                store->appendMetrics(samples);
                if (!pruned && !cancelled && context.report(parsed.step, parsed.value)) {
                    pruned = true;
                    log << "[pitwall] pruned at step " << parsed.step << ": stopping the command\n";
                    stop();
                }
                break;
            }
            case CommandOutputLine::Kind::Objective:
                objective = parsed.value;
                for (auto it = parsed.json.begin(); it != parsed.json.end(); ++it)
                    if (it.key() != "objective")
                        metrics[it.key()] = it.value();
                break;
            }
        }
        log.flush();
        if (!cancelled && !pruned && context.cancel && context.cancel->load()) {
            cancelled = true;
            log << "[pitwall] cancelled: stopping the command\n";
            stop();
        }
        if (stopSent && !exit && secondsSince(*stopSent) > m_options.termGraceSeconds)
            process.signal(SIGKILL);
        if (!exit && (exit = process.poll()))
            endedAt = Clock::now();
        if (exit && (process.outputClosed() || secondsSince(*endedAt) > kDrainSeconds))
            break;
    }
    if (!metrics.empty())
        outcome.userAttrs["metrics"] = metrics;
    const int exitCode = exit->exited ? exit->code : 128 + exit->code;
    const std::string ended = describeExit(exit->exited, exit->code);
    log << "[pitwall] the command ended with " << ended << "\n";
    log.close();

    if (pruned) {
        outcome.state = TrialState::Pruned;
        store->finishRun(runId, RunStatus::Cancelled, exitCode, "pruned");
        return outcome;
    }
    if (cancelled) {
        outcome.interrupted = true;
        outcome.failReason = "cancelled";
    } else if (!exit->exited || exit->code != 0) {
        outcome.failReason = "the command ended with " + ended;
    } else if (!objective) {
        outcome.failReason = "the command exited 0 without printing {\"objective\": V}";
    } else {
        outcome.state = TrialState::Complete;
        outcome.value = objective;
        store->finishRun(runId, RunStatus::Succeeded, exitCode, "");
        return outcome;
    }
    if (badLines > 0 && !cancelled)
        outcome.failReason += "; " + std::to_string(badLines) +
                              " output line(s) were not valid protocol JSON, the first: '" +
                              firstBadLine.substr(0, 200) + "' (" + firstBadError + ")";
    if (!cancelled) {
        const std::string tail = fileTail(context.logFile, kLogTailBytes);
        if (!tail.empty())
            outcome.failReason += "\n--- end of " + context.logFile + " ---\n" + tail;
    }
    store->finishRun(runId, cancelled ? RunStatus::Cancelled : RunStatus::Failed, exitCode, outcome.failReason);
    return outcome;
}

} // namespace pitwall
