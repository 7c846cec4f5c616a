#include "core/pool/commandrunner.h"

#include "core/hpo/searchspace.h"
#include "core/pool/commandline.h"
#include "core/pool/internal/spawn.h"
#include "core/pool/trialstate.h"
#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <filesystem>

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
    if (out.json.contains("objectives")) {
        const Json& list = out.json["objectives"];
        if (!list.is_array() || list.empty()) {
            out.error = "\"objectives\" is not a list of numbers (one per objective)";
            return out;
        }
        for (const Json& v : list) {
            if (!v.is_number()) {
                out.error = "\"objectives\" holds " + v.dump() + ", not a number";
                return out;
            }
            out.values.push_back(v.get<double>());
        }
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
    if (!out.values.empty()) {
        out.kind = CommandOutputLine::Kind::Objective;
        return out;
    }
    if (out.json.contains("step") || out.json.contains("value") || out.json.contains("values")) {
        const Json& step = out.json.contains("step") ? out.json["step"] : Json();
        if (!step.is_number_integer() || step.get<std::int64_t>() < 0) {
            out.error = "\"step\" must be an integer >= 0";
            return out;
        }
        if (out.json.contains("values")) { // one per objective of a study with several
            const Json& list = out.json["values"];
            if (!list.is_array() || list.empty() ||
                !std::all_of(list.begin(), list.end(), [](const Json& v) { return v.is_number(); })) {
                out.error = "\"values\" must be a list of numbers (one per objective)";
                return out;
            }
            for (const Json& v : list)
                out.values.push_back(v.get<double>());
            out.value = out.values.front();
        } else {
            const Json& value = out.json.contains("value") ? out.json["value"] : Json();
            if (!value.is_number()) {
                out.error = "\"value\" must be a number";
                return out;
            }
            out.value = value.get<double>();
        }
        out.step = step.get<std::int64_t>();
        out.kind = CommandOutputLine::Kind::Intermediate;
        return out;
    }
    out.kind = CommandOutputLine::Kind::OtherJson;
    return out;
}

CommandRunner::CommandRunner(CommandRunnerOptions options) : m_options(std::move(options))
{
}

namespace {

// The template's placeholder values for this trial, all but {config}.
std::map<std::string, std::string> placeholderValues(const CommandRunnerOptions& options, const TrialContext& context)
{
    const AskedTrial& asked = *context.asked;
    std::map<std::string, std::string> values{{"trial", std::to_string(asked.trial.number)},
                                              {"trial_dir", context.trialDir},
                                              {"study", context.studyName},
                                              {"device", options.device},
                                              {"threads", std::to_string(options.threads)}};
    if (options.epochs)
        values["epochs"] = std::to_string(*options.epochs);
    for (auto it = asked.fixed.begin(); it != asked.fixed.end(); ++it)
        values[it.key()] = overrideText(it.value());
    for (auto it = asked.params.begin(); it != asked.params.end(); ++it)
        values[it.key()] = overrideText(it.value());
    return values;
}

// argv as one line a shell would read back, for the log.
std::string commandText(const std::vector<std::string>& argv)
{
    std::string text;
    for (const std::string& word : argv)
        text += (text.empty() ? "" : " ") + quoteWord(word);
    return text;
}

std::map<std::string, std::string> commandEnvironment(const CommandRunnerOptions& options, const TrialContext& context)
{
    std::map<std::string, std::string> environment = options.environment;
    environment["PITWALL_STUDY"] = context.studyName;
    environment["PITWALL_TRIAL"] = std::to_string(context.asked->trial.number);
    environment["PITWALL_TRIAL_DIR"] = context.trialDir;
    return environment;
}

// Records the trial's run and its log artifact; returns the run's id.
std::int64_t recordRun(Store& store, const CommandRunnerOptions& options, const TrialContext& context,
                       const std::vector<std::string>& argv, const std::string& configYaml, pid_t pid,
                       const std::string& logPath)
{
    RunRecord run;
    run.trialId = context.asked->trial.id;
    run.kind = "command";
    run.configYaml = configYaml.empty() ? "command: " + Json(argv).dump() + "\n" : configYaml;
    run.logicalDevice = options.device;
    run.host = hostName();
    run.pid = pid;
    run.startTime = nowSeconds();
    const std::int64_t runId = store.createRun(run);
    ArtifactRecord artifact;
    artifact.runId = runId;
    artifact.kind = "log";
    artifact.path = logPath;
    artifact.description = "stderr and non-JSON stdout of trial " + std::to_string(context.asked->trial.number);
    artifact.time = nowSeconds();
    store.addArtifact(artifact);
    return runId;
}

// Follows one running command to its end: logs and classifies its output lines, stores its metrics, asks the
// pruner, and stops the command (SIGTERM, then SIGKILL after the grace time) when pruned or cancelled.
class CommandWatch {
public:
    CommandWatch(sched_internal::CommandProcess& process, sched_internal::TrialLog& log, Store& store,
                 std::int64_t runId, TrialContext& context, double termGraceSeconds)
        : m_process(process), m_log(log), m_store(store), m_runId(runId), m_context(context),
          m_termGraceSeconds(termGraceSeconds)
    {
    }

    // Returns once the command has ended and its output is closed (or stayed open kDrainSeconds after).
    void watchToEnd()
    {
        for (;;) {
            for (const sched_internal::OutputLine& line : m_process.readLines(kReadTimeoutMs))
                handleLine(line);
            if (!cancelled && !pruned && m_context.cancel && m_context.cancel->requested()) {
                cancelled = true;
                m_log.write("[pitwall] cancelled: stopping the command\n");
                stop();
            }
            if (m_stopSent && !exit && secondsSince(*m_stopSent) > m_termGraceSeconds)
                m_process.signal(SIGKILL);
            if (!exit && (exit = m_process.poll()))
                m_endedAt = Clock::now();
            if (exit && (m_process.outputClosed() || secondsSince(*m_endedAt) > kDrainSeconds)) {
                settleCancel();
                return;
            }
        }
    }

    std::optional<double> objective;
    std::vector<double> objectives; // its "objectives" list, if it printed one
    Json metrics = Json::object(); // the objective line's other fields
    std::string firstBadLine, firstBadError;
    int badLines = 0;
    bool pruned = false, cancelled = false;
    std::optional<sched_internal::CommandExit> exit;

private:
    void handleLine(const sched_internal::OutputLine& output)
    {
        const std::string& line = output.text;
        CommandOutputLine parsed = classifyOutputLine(line);
        if (output.cutBytes > 0) { // never protocol: its end is gone
            const std::string length = std::to_string(line.size() + output.cutBytes);
            m_log.write(line + "\n[pitwall] the line above was " + length + " bytes long: only its first " +
                        std::to_string(line.size()) + " are kept, the rest was dropped\n");
            if (parsed.kind != CommandOutputLine::Kind::Text)
                noteBadLine(line, "a line of " + length + " bytes, over the limit of " +
                                      std::to_string(sched_internal::kMaxOutputLineBytes));
            return;
        }
        switch (parsed.kind) {
        case CommandOutputLine::Kind::Text:
        case CommandOutputLine::Kind::OtherJson:
            m_log.write(line + "\n");
            break;
        case CommandOutputLine::Kind::BadJson:
            m_log.write(line + "\n[pitwall] the line above is not valid protocol JSON: " + parsed.error + "\n");
            noteBadLine(line, parsed.error);
            break;
        case CommandOutputLine::Kind::Intermediate:
            handleIntermediate(parsed);
            break;
        case CommandOutputLine::Kind::Objective:
            if (parsed.json.contains("objective"))
                objective = parsed.value;
            objectives = parsed.values;
            for (auto it = parsed.json.begin(); it != parsed.json.end(); ++it)
                if (it.key() != "objective" && it.key() != "objectives")
                    metrics[it.key()] = it.value();
            break;
        }
    }

    void noteBadLine(const std::string& line, const std::string& error)
    {
        if (badLines++ == 0) {
            firstBadLine = line.substr(0, 200);
            firstBadError = error;
        }
    }

    // Stores the line's numeric fields as metric samples, then asks the pruner.
    void handleIntermediate(const CommandOutputLine& parsed)
    {
        std::vector<MetricSample> samples;
        for (auto it = parsed.json.begin(); it != parsed.json.end(); ++it)
            if (it.key() != "step" && it.value().is_number())
                samples.push_back({m_runId, "command", parsed.step, it.key(), it.value().get<double>(), nowSeconds()});
        m_store.appendMetrics(samples);
        if (pruned || cancelled)
            return;
        const bool prune = !parsed.values.empty() && m_context.reportValues
                               ? m_context.reportValues(parsed.step, parsed.values)
                               : m_context.report(parsed.step, parsed.value);
        if (prune) {
            pruned = true;
            m_log.write("[pitwall] pruned at step " + std::to_string(parsed.step) + ": stopping the command\n");
            stop();
        }
    }

    // A command ended by SIGTERM, SIGINT or SIGHUP that this worker did not send: a stop sent to a whole group of
    // processes (scancel signals every process of a Slurm step; a terminal's Ctrl-C its foreground group) reaches the
    // worker too, perhaps a moment later. Its trial is then cancelled (interrupted), not failed.
    void settleCancel()
    {
        if (cancelled || pruned || m_stopSent || !m_context.cancel || exit->exited ||
            (exit->code != SIGTERM && exit->code != SIGINT && exit->code != SIGHUP))
            return;
        for (int wait = 0; wait < 20 && !m_context.cancel->requested(); ++wait)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (m_context.cancel->requested()) {
            cancelled = true;
            m_log.write("[pitwall] cancelled: the command was stopped together with this worker\n");
        }
    }

    void stop()
    {
        if (!m_stopSent) {
            m_process.signal(SIGTERM);
            m_stopSent = Clock::now();
        }
    }

    sched_internal::CommandProcess& m_process;
    sched_internal::TrialLog& m_log;
    Store& m_store;
    const std::int64_t m_runId;
    TrialContext& m_context;
    const double m_termGraceSeconds;
    std::optional<Clock::time_point> m_stopSent, m_endedAt;
};

// Fills in the outcome of a command that was not pruned and finishes its run: COMPLETE with the objective, or
// FAIL with the reason, the first malformed line and the log's tail (not when cancelled).
void finishUnprunedTrial(TrialOutcome& outcome, const CommandWatch& watch, const std::string& ended, int exitCode,
                         Store& store, std::int64_t runId, const std::string& logFile)
{
    if (watch.cancelled) {
        outcome.interrupted = true;
        outcome.failReason = "cancelled";
    } else if (!watch.exit->exited || watch.exit->code != 0) {
        outcome.failReason = "the command ended with " + ended;
    } else if (!watch.objective && watch.objectives.empty()) {
        outcome.failReason = "the command exited 0 without printing {\"objective\": V} (or {\"objectives\": [V, ...]})";
    } else {
        outcome.state = TrialState::Complete;
        outcome.value = watch.objective;
        outcome.objectives = watch.objectives;
        if (watch.objective)
            outcome.metrics["objective"] = *watch.objective;
        for (auto it = watch.metrics.begin(); it != watch.metrics.end(); ++it)
            if (it.value().is_number())
                outcome.metrics[it.key()] = it.value().get<double>();
        store.finishRun(runId, RunStatus::Succeeded, exitCode, "");
        return;
    }
    if (watch.badLines > 0 && !watch.cancelled)
        outcome.failReason += "; " + std::to_string(watch.badLines) +
                              " output line(s) were not valid protocol JSON, the first: '" +
                              watch.firstBadLine.substr(0, 200) + "' (" + watch.firstBadError + ")";
    if (!watch.cancelled) {
        const std::string tail = fileTail(logFile, kLogTailBytes);
        if (!tail.empty())
            outcome.failReason += "\n--- end of " + logFile + " ---\n" + tail;
    }
    store.finishRun(runId, watch.cancelled ? RunStatus::Cancelled : RunStatus::Failed, exitCode, outcome.failReason);
}

} // namespace

TrialOutcome CommandRunner::run(TrialContext& context)
{
    const int number = context.asked->trial.number;
    std::map<std::string, std::string> values = placeholderValues(m_options, context);
    std::string configYaml;
    if (m_options.writeConfig) {
        values["config"] = m_options.writeConfig(*context.asked, context.trialDir);
        configYaml = readTextFile(values["config"]);
    }
    std::vector<std::string> argv = expandCommand(m_options.words, values);
    argv[0] = findExecutable(argv[0]);

    const std::map<std::string, std::string> environment = commandEnvironment(m_options, context);
    sched_internal::TrialLog log(context.logFile);
    log.write("[pitwall] trial " + std::to_string(number) + ": " + commandText(argv) + "\n");
    auto process = sched_internal::CommandProcess::start(argv, environment, log);

    auto store = openStore(m_options.storeLocation);
    const std::string logPath = std::filesystem::absolute(context.logFile).string();
    const std::int64_t runId = recordRun(*store, m_options, context, argv, configYaml, process.pid(), logPath);

    TrialOutcome outcome;
    outcome.userAttrs["log_file"] = logPath;
    outcome.userAttrs["command"] = argv;
    CommandWatch watch(process, log, *store, runId, context, m_options.termGraceSeconds);
    watch.watchToEnd();
    if (!watch.metrics.empty())
        outcome.userAttrs["metrics"] = watch.metrics;
    const int exitCode = watch.exit->exited ? watch.exit->code : 128 + watch.exit->code;
    const std::string ended = describeExit(watch.exit->exited, watch.exit->code);
    log.write("[pitwall] the command ended with " + ended + "\n");

    if (watch.pruned) {
        outcome.state = TrialState::Pruned;
        store->finishRun(runId, RunStatus::Cancelled, exitCode, "pruned");
        return outcome;
    }
    finishUnprunedTrial(outcome, watch, ended, exitCode, *store, runId, context.logFile);
    return outcome;
}

} // namespace pitwall
