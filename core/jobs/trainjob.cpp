#include "core/jobs/trainjob.h"

#include "core/config/configargs.h"
#include "core/jobs/internal/jobwords.h"

namespace pitwall {

std::vector<std::string> TrainJob::toArgs() const
{
    std::vector<std::string> words = jobs::commandWords(kCommand);
    words.insert(words.end(), configs.begin(), configs.end());
    words.insert(words.end(), overrides.begin(), overrides.end());
    if (seed)
        jobs::addOption(words, "seed", std::to_string(*seed));
    jobs::addFlag(words, "resume", resume);
    jobs::addOption(words, "db", database);
    return words;
}

TrainJob TrainJob::fromArgs(const cmdline::Args& args)
{
    TrainJob job;
    splitConfigArgs(args, job.configs, job.overrides);
    job.seed = args.integer("seed", 0);
    job.resume = args.flag("resume");
    job.database = args.value("db");
    return job;
}

TrainJob TrainJob::fromArgs(const std::vector<std::string>& words)
{
    return fromArgs(jobs::parseJobWords(kCommand, optionSpecs(), words));
}

std::vector<cmdline::OptionSpec> TrainJob::optionSpecs()
{
    return {{"seed", "S", "train only this seed (instead of experiment.seeds)"},
            {"resume", "", "continue the study's unfinished trials of the same seeds from their checkpoints"}};
}

const JobFields& TrainJob::fields()
{
    static const JobFields fields = jobs::jobFieldsOf(optionSpecs(), "configs", "");
    return fields;
}

} // namespace pitwall
