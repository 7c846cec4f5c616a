#pragma once
// Shared by the hpo tests: the schema with the AutoSpeed keys, and an in-memory study loop that runs a
// sampler on a test function without a database.

#include "core/config/schema.h"
#include "core/hpo/sampler.h"
#include "core/util/paths.h"
#include "tests/support/testenv.h"

#include <functional>
#include <limits>
#include <vector>

namespace hpotest {

inline pitwall::Schema schemaWithAutoSpeed()
{
    pitwall::Schema schema = pitwall::builtinSchema();
    const std::string file = pitwall::test::sourceFile("/plugins/autospeed/autospeed.schema.yaml");
    schema.addFromYaml(pitwall::readTextFile(file), file);
    return schema;
}

inline pitwall::Distribution floatRange(double low, double high, bool log = false)
{
    pitwall::Distribution d;
    d.low = low;
    d.high = high;
    d.log = log;
    return d;
}

inline pitwall::Distribution intRange(double low, double high, double step = 1.0)
{
    pitwall::Distribution d;
    d.kind = pitwall::Distribution::Kind::Int;
    d.low = low;
    d.high = high;
    d.step = step;
    return d;
}

inline pitwall::Distribution choices(std::vector<pitwall::Json> values)
{
    pitwall::Distribution d;
    d.kind = pitwall::Distribution::Kind::Categorical;
    d.choices = std::move(values);
    return d;
}

using Objective = std::function<double(const std::vector<double>&)>; // internal values in request order

// Runs `trials` sequential trials (ask, evaluate, tell COMPLETE) in memory; returns them in order.
inline std::vector<pitwall::TrialRecord> optimize(const pitwall::SamplerSettings& settings,
                                                  const std::vector<pitwall::ParamRequest>& requests,
                                                  const Objective& objective, int trials, std::uint64_t seed,
                                                  pitwall::StudyDirection direction = pitwall::StudyDirection::Minimize)
{
    const auto sampler = pitwall::makeSampler(settings);
    std::vector<pitwall::TrialRecord> history;
    for (int n = 0; n < trials; ++n) {
        pitwall::SampleContext context;
        context.studyName = "memory";
        context.direction = direction;
        context.trials = history;
        context.trialNumber = n;
        context.seed = seed * 1000003ull + static_cast<std::uint64_t>(n);
        const auto result = sampler->sample(context, requests);
        pitwall::TrialRecord trial;
        trial.number = n;
        trial.state = pitwall::TrialState::Complete;
        for (std::size_t i = 0; i < requests.size(); ++i)
            trial.params.push_back({requests[i].name, result.internalValues[i], requests[i].distribution});
        trial.systemAttrs = result.trialSystemAttrs;
        trial.values = {objective(result.internalValues)};
        history.push_back(std::move(trial));
    }
    return history;
}

inline double bestValue(const std::vector<pitwall::TrialRecord>& trials)
{
    double best = std::numeric_limits<double>::infinity();
    for (const auto& t : trials)
        best = std::min(best, t.values.front());
    return best;
}

} // namespace hpotest
