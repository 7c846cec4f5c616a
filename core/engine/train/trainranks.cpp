#include "core/engine/train/trainranks.h"

#include "core/config/configargs.h"
#include "core/engine/train/experiment.h"
#include "core/util/cancel.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"
#include "core/util/strings.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

namespace pitwall::engine {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);

std::vector<std::string> rankArguments(const RankLaunch& r)
{
    std::vector<std::string> argv = {executablePath().string(),
                                     "train-rank",
                                     r.configFile,
                                     "--rank=" + std::to_string(r.rank),
                                     "--world-size=" + std::to_string(r.worldSize)};
    if (!r.rendezvous.empty())
        argv.push_back("--rendezvous=" + r.rendezvous);
    for (std::string option : {"--db=" + r.storeLocation, "--seed=" + std::to_string(r.seed), "--data-dir=" + r.dataDir,
                               "--checkpoint-dir=" + r.checkpointDir, "--device=" + r.device.id,
                               "--threads=" + std::to_string(r.threads), "--result=" + r.resultFile})
        argv.push_back(std::move(option));
    if (r.trialId)
        argv.push_back("--trial-id=" + std::to_string(*r.trialId));
    if (r.resume)
        argv.push_back("--resume");
    return argv;
}

} // namespace

RankExits runTrainRanks(const std::vector<RankLaunch>& ranks, const CancelToken* cancel, RankFailure onFailure)
{
    std::vector<ChildProcess> children;
    for (const RankLaunch& r : ranks) {
        ProcessOptions options;
        options.environment = r.device.environment;
        options.cpuSet = r.device.cpuSet;
        options.stderrFile = r.logFile;
        options.stdoutFile = r.outputFile;
        children.push_back(ChildProcess::start(rankArguments(r), options));
    }
    std::vector<std::optional<ProcessExit>> exits(children.size());
    RankExits result;
    bool cancelSent = false;
    for (std::size_t done = 0; done < children.size();) {
        if (cancel && cancel->requested() && !cancelSent) {
            cancelSent = true;
            for (ChildProcess& child : children)
                child.signal(SIGTERM);
        }
        done = 0;
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (!exits[i])
                exits[i] = children[i].poll();
            if (!exits[i])
                continue;
            ++done;
            const bool failed = !exits[i]->exited || exits[i]->code != 0;
            if (failed && !result.firstFailure) {
                result.firstFailure = i;
                if (onFailure == RankFailure::StopAll)
                    for (ChildProcess& other : children)
                        other.signal(SIGTERM);
            }
        }
        if (done < children.size())
            std::this_thread::sleep_for(kPollInterval);
    }
    for (const auto& e : exits)
        result.exits.push_back(*e);
    return result;
}

int trainRankCommand(const cmdline::Args& args)
{
    const auto integer = [&](const char* name) {
        const auto text = args.value(name);
        const auto value = text ? parseInteger(*text) : std::nullopt;
        if (!value)
            throw InputError(std::string("train-rank: --") + name + " is required and must be an integer");
        return *value;
    };
    if (args.positionals.size() != 1)
        throw InputError("train-rank: give the resolved config file");
    const ResolvedConfig config =
        resolveConfigText(schemaWithWarnings(), readTextFile(args.positionals[0]), args.positionals[0]);
    TrainRequest request;
    request.config = &config;
    request.storeLocation = args.database();
    request.rank = static_cast<int>(integer("rank"));
    request.worldSize = static_cast<int>(integer("world-size"));
    request.rendezvous = args.value("rendezvous", "");
    request.seed = integer("seed");
    request.dataDir = args.value("data-dir", "");
    request.checkpointDir = args.value("checkpoint-dir", "");
    request.device.id = args.value("device", "");
    request.device.threads = static_cast<int>(integer("threads"));
    if (args.value("trial-id"))
        request.trialId = integer("trial-id");
    request.resume = args.flag("resume");
    request.cancel = &processCancelToken();
    installInterruptHandlers(InterruptPolicy::Command);
    const TrainResult result = train(request);
    writeFileAtomically(args.value("result", ""), trainResultToJson(result).dump()); // RuntimeError: exit 1
    return cmdline::kExitOk;
}

std::vector<cmdline::OptionSpec> trainRankOptionSpecs()
{
    return {{"rank", "R", ""},       {"world-size", "N", ""},       {"rendezvous", "FILE", ""}, {"seed", "S", ""},
            {"data-dir", "DIR", ""}, {"checkpoint-dir", "DIR", ""}, {"device", "ID", ""},       {"threads", "T", ""},
            {"result", "FILE", ""},  {"trial-id", "ID", ""},        {"resume", "", ""}};
}

} // namespace pitwall::engine
