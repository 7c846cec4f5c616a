// TPE after Optuna 3.1 (optuna/samplers/_tpe/sampler.py): finished trials are ranked (complete ones by
// value, pruned ones by how far they got and then their last intermediate value), the best gamma(n) form
// l(x) and the rest g(x); of n_ei_candidates drawn from l(x), the one with the largest l(x)/g(x) wins.
#include "core/hpo/internal/parzen.h"
#include "core/hpo/internal/samplers.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace pitwall::hpo_internal {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Optuna's default_gamma: the best 10 %, at most 25.
std::size_t defaultGamma(std::size_t n)
{
    return std::min<std::size_t>(static_cast<std::size_t>(std::ceil(0.1 * n)), 25);
}

// One trial's rank key (Optuna's (-step, value) pair) and its trial.
struct Observation {
    double stepKey = 0.0; // -inf: complete; -last step: pruned; 1: pruned without values; +inf: running
    double score = 0.0;   // value with the sign that makes smaller better
    const TrialRecord* trial = nullptr;
};

std::vector<Observation> observations(const SampleContext& context, bool constantLiar)
{
    const double sign = context.direction == StudyDirection::Minimize ? 1.0 : -1.0;
    std::vector<Observation> out;
    for (const TrialRecord& trial : context.trials) {
        if (trial.number == context.trialNumber)
            continue;
        Observation o;
        o.trial = &trial;
        if (trial.state == TrialState::Complete) {
            if (trial.values.empty())
                continue;
            o.stepKey = -kInf;
            o.score = sign * trial.values.front();
        } else if (trial.state == TrialState::Pruned) {
            if (!trial.intermediateValues.empty()) {
                const auto& [step, value] = *trial.intermediateValues.rbegin();
                o.stepKey = -static_cast<double>(step);
                o.score = std::isnan(value) ? kInf : sign * value;
            } else {
                o.stepKey = 1.0;
                o.score = 0.0;
            }
        } else if (trial.state == TrialState::Running && constantLiar) {
            o.stepKey = kInf;
            o.score = kInf;
        } else {
            continue;
        }
        out.push_back(o);
    }
    return out;
}

// The internal value of `name` in a trial when its distribution matches, else NaN.
double paramValue(const TrialRecord& trial, const ParamRequest& request)
{
    for (const TrialParam& param : trial.params)
        if (param.name == request.name)
            return sameDistribution(param.distribution, request.distribution)
                       ? param.internalValue
                       : std::numeric_limits<double>::quiet_NaN();
    return std::numeric_limits<double>::quiet_NaN();
}

class TpeSampler final : public Sampler {
public:
    explicit TpeSampler(const TpeOptions& options) : m_options(options) {}

    SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const override
    {
        if (context.directions.size() > 1)
            throw InputError("study '" + context.studyName + "' has " + std::to_string(context.directions.size()) +
                             " objectives and Pitwall's TPE handles one; use the sampler nsga2 (the default for "
                             "several objectives), random or grid");
        Rng rng(context.seed);
        SampleResult result;
        result.internalValues.assign(requests.size(), std::numeric_limits<double>::quiet_NaN());

        const std::vector<Observation> all = observations(context, m_options.constantLiar);
        const std::size_t finished = static_cast<std::size_t>(
            std::count_if(all.begin(), all.end(), [](const Observation& o) { return o.stepKey < kInf; }));
        const bool learning = finished >= static_cast<std::size_t>(std::max(m_options.startupTrials, 0));

        // Split into below (the best gamma(n)) and above, each in trial order.
        std::vector<char> isBelow(all.size(), 0);
        if (learning) {
            std::vector<std::size_t> order(all.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                if (all[a].stepKey != all[b].stepKey)
                    return all[a].stepKey < all[b].stepKey;
                return all[a].score < all[b].score;
            });
            const std::size_t below = std::min(defaultGamma(finished), order.size());
            for (std::size_t i = 0; i < below; ++i)
                isBelow[order[i]] = 1;
        }

        // Multivariate: the parameters every finished trial has, with the same distribution, jointly.
        std::vector<std::size_t> joint;
        if (learning && m_options.multivariate && finished > 0) {
            for (std::size_t r = 0; r < requests.size(); ++r) {
                if (isSingleValued(requests[r].distribution))
                    continue;
                bool inAll = true;
                for (const Observation& o : all)
                    if (o.stepKey < kInf && std::isnan(paramValue(*o.trial, requests[r])))
                        inAll = false;
                if (inAll)
                    joint.push_back(r);
            }
            if (!joint.empty())
                sampleJoint(all, isBelow, requests, joint, rng, result.internalValues);
        }

        for (std::size_t r = 0; r < requests.size(); ++r) {
            if (!std::isnan(result.internalValues[r]))
                continue;
            const Distribution& d = requests[r].distribution;
            if (isSingleValued(d))
                result.internalValues[r] = singleValue(d);
            else if (!learning)
                result.internalValues[r] = sampleUniformly(d, rng);
            else
                sampleJoint(all, isBelow, requests, {r}, rng, result.internalValues);
        }
        return result;
    }

private:
    // Fits l(x) and g(x) over the parameters `which` and writes the winning candidate into `out`.
    void sampleJoint(const std::vector<Observation>& all, const std::vector<char>& isBelow,
                     const std::vector<ParamRequest>& requests, const std::vector<std::size_t>& which, Rng& rng,
                     std::vector<double>& out) const
    {
        std::vector<Distribution> space;
        for (std::size_t r : which)
            space.push_back(requests[r].distribution);
        std::vector<std::vector<double>> below(which.size()), above(which.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::vector<double> values;
            bool complete = true;
            for (std::size_t r : which) {
                values.push_back(paramValue(*all[i].trial, requests[r]));
                complete = complete && !std::isnan(values.back());
            }
            if (!complete) // trials without the parameter take part in the split, not in the estimators
                continue;
            auto& target = isBelow[i] ? below : above;
            for (std::size_t p = 0; p < which.size(); ++p)
                target[p].push_back(values[p]);
        }
        ParzenOptions options;
        options.considerPrior = m_options.considerPrior;
        options.priorWeight = m_options.priorWeight;
        options.considerMagicClip = m_options.considerMagicClip;
        options.considerEndpoints = m_options.considerEndpoints;
        options.multivariate = m_options.multivariate;
        const ParzenEstimator lower(below, space, options);
        const ParzenEstimator upper(above, space, options);
        const auto candidates = lower.sample(rng, m_options.eiCandidates);
        const std::vector<double> logL = lower.logPdf(candidates);
        const std::vector<double> logG = upper.logPdf(candidates);
        std::size_t best = 0;
        double bestScore = logL[0] - logG[0];
        for (std::size_t k = 1; k < logL.size(); ++k) {
            const double score = logL[k] - logG[k];
            if (score > bestScore) {
                bestScore = score;
                best = k;
            }
        }
        for (std::size_t p = 0; p < which.size(); ++p)
            out[which[p]] = candidates[p][best];
    }

    TpeOptions m_options;
};

} // namespace

std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options)
{
    return std::make_unique<TpeSampler>(options);
}

} // namespace pitwall::hpo_internal
