// TPE after Optuna's (optuna/samplers/_tpe/sampler.py): finished trials are ranked (complete ones by value, pruned
// ones by how far they got and then their last intermediate value), the best gamma(n) form l(x) and the rest g(x);
// of n_ei_candidates drawn from l(x), the one with the largest l(x)/g(x) wins. TpeOptions::version picks the newest
// Optuna's defaults and estimator (5.x) or 3.1's. With several objectives the split and l(x)'s weights follow the
// newest Optuna (internal/motpe.h). With one objective, refinement trials (TpeOptions::refineEvery) draw from the
// best complete trial's kernel of l(x) alone, narrowed by refineWidth().
#include "core/hpo/internal/motpe.h"
#include "core/hpo/internal/parzen.h"
#include "core/hpo/internal/samplers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <span>

namespace pitwall::hpo_internal {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// How many of n finished trials form l(x) with one objective: Optuna's default_gamma is the best 10 %, at most 25;
// `fraction` is TpeOptions::gammaFor().
std::size_t belowCount(std::size_t n, double fraction)
{
    return std::min<std::size_t>(static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(n))), 25);
}

// One trial's rank key (tpeRankKey; +inf for a running trial) and its trial.
struct Observation {
    double stepKey = 0.0; // -inf: complete; -last step: pruned; 1: pruned without values; +inf: running
    double score = 0.0;   // value with the sign that makes smaller better
    const TrialRecord* trial = nullptr;
};

std::vector<Observation> observations(const SampleContext& context, bool constantLiar)
{
    std::vector<Observation> out;
    for (const TrialRecord& trial : context.trials) {
        if (trial.number == context.trialNumber)
            continue;
        Observation o;
        o.trial = &trial;
        if (trial.state == TrialState::Complete || trial.state == TrialState::Pruned) {
            if (trial.state == TrialState::Complete && trial.values.empty())
                continue;
            const TpeRankKey key = tpeRankKey(trial, context.direction);
            o.stepKey = key.stepKey;
            o.score = key.score;
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

// Which observations form l(x), and with several objectives the weight of each (none: defaultWeights).
struct Split {
    std::vector<char> isBelow;
    std::optional<std::vector<double>> weights; // one per observation, read for the below ones
};

class TpeSampler final : public Sampler {
public:
    TpeSampler(const TpeOptions& options, MotpeBelowWeights belowWeights)
        : m_options(options), m_belowWeights(belowWeights)
    {
    }

    SampleResult sample(const SampleContext& context, const std::vector<ParamRequest>& requests) const override
    {
        Rng rng(context.seed);
        SampleResult result;
        result.internalValues.assign(requests.size(), std::numeric_limits<double>::quiet_NaN());

        const std::vector<Observation> all = observations(context, m_options.constantLiarOn());
        const std::size_t finished = static_cast<std::size_t>(
            std::count_if(all.begin(), all.end(), [](const Observation& o) { return o.stepKey < kInf; }));
        const bool learning = finished >= static_cast<std::size_t>(std::max(m_options.startupTrials, 0));

        const std::size_t objectives = std::max<std::size_t>(context.directions.size(), 1);
        // Split into below (the best gamma(n)) and above, each in trial order.
        Split split;
        split.isBelow.assign(all.size(), 0);
        if (learning && context.directions.size() > 1) {
            split = splitSeveralObjectives(all, context.directions, finished);
        } else if (learning) {
            std::vector<std::size_t> order(all.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                if (all[a].stepKey != all[b].stepKey)
                    return all[a].stepKey < all[b].stepKey;
                return all[a].score < all[b].score;
            });
            // With refinement, a refinement trial takes no slot: l(x) holds the best gamma(n) of the other trials
            // and every refinement trial ranked among them, so l(x) stays as wide as TPE's own trials make it.
            const bool extra = m_options.refineEveryFor() > 0 && m_options.refineExtraBelow;
            const std::size_t below = belowCount(finished, m_options.gammaFor());
            for (std::size_t i = 0, counted = 0; i < order.size() && counted < below; ++i) {
                split.isBelow[order[i]] = 1;
                if (!extra || !all[order[i]].trial->systemAttrs.contains(TpeOptions::kRefineAttr))
                    ++counted;
            }
        }

        const int every = m_options.refineEveryFor();
        const bool refine = learning && objectives == 1 && every > 0 &&
                            finished >= static_cast<std::size_t>(TpeOptions::kRefineAfter) &&
                            context.trialNumber % every == every - 1;
        const double width = refine ? refineWidth(context.trials, context.direction, context.trialNumber) : 0.0;
        bool refined = false;

        // Multivariate: the parameters every finished trial has, with the same distribution, jointly.
        std::vector<std::size_t> joint;
        if (learning && m_options.multivariateFor(objectives) && finished > 0) {
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
                refined |= sampleJoint(all, split, requests, joint, true, width, rng, result.internalValues);
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
                refined |= sampleJoint(all, split, requests, {r}, m_options.multivariateFor(objectives), width, rng,
                                       result.internalValues);
        }
        if (refined)
            result.trialSystemAttrs[TpeOptions::kRefineAttr] = true;
        return result;
    }

private:
    // Several objectives: the newest Optuna's split (internal/motpe.h), gamma ceil(0.1 n) without a cap.
    Split splitSeveralObjectives(const std::vector<Observation>& all, std::span<const StudyDirection> directions,
                                 std::size_t finished) const
    {
        std::vector<const TrialRecord*> trials;
        for (const Observation& o : all)
            trials.push_back(o.trial);
        Split split;
        split.isBelow = splitMultiObjective(trials, directions, multiObjectiveGamma(finished));
        split.weights = std::vector<double>(all.size(), 1.0);
        if (m_belowWeights == MotpeBelowWeights::HypervolumeContribution) {
            std::vector<const TrialRecord*> below;
            std::vector<std::size_t> at;
            for (std::size_t i = 0; i < all.size(); ++i)
                if (split.isBelow[i]) {
                    below.push_back(all[i].trial);
                    at.push_back(i);
                }
            const std::vector<double> weights = contributionWeights(below, directions);
            for (std::size_t k = 0; k < at.size(); ++k)
                (*split.weights)[at[k]] = weights[k];
        }
        return split;
    }

    // Fits l(x) and g(x) over the parameters `which` and writes the winning candidate into `out`. With a refinement
    // width (> 0) and a complete trial among l(x)'s, draws from that best trial's kernel instead and returns true.
    bool sampleJoint(const std::vector<Observation>& all, const Split& split, const std::vector<ParamRequest>& requests,
                     const std::vector<std::size_t>& which, bool multivariate, double refineWidth, Rng& rng,
                     std::vector<double>& out) const
    {
        std::vector<Distribution> space;
        for (std::size_t r : which)
            space.push_back(requests[r].distribution);
        std::vector<std::vector<double>> below(which.size()), above(which.size());
        std::vector<double> belowWeights;
        std::optional<std::size_t> incumbent; // l(x)'s kernel at the best complete trial
        double incumbentScore = kInf;
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::vector<double> values;
            bool complete = true;
            for (std::size_t r : which) {
                values.push_back(paramValue(*all[i].trial, requests[r]));
                complete = complete && !std::isnan(values.back());
            }
            if (!complete) // trials without the parameter take part in the split, not in the estimators
                continue;
            if (split.isBelow[i] && all[i].stepKey == -kInf && all[i].score < incumbentScore) {
                incumbentScore = all[i].score;
                incumbent = below.front().size();
            }
            auto& target = split.isBelow[i] ? below : above;
            for (std::size_t p = 0; p < which.size(); ++p)
                target[p].push_back(values[p]);
            if (split.isBelow[i] && split.weights)
                belowWeights.push_back((*split.weights)[i]);
        }
        const bool optuna31 = m_options.version == TpeVersion::Optuna31;
        ParzenOptions options = optuna31 ? ParzenOptions() : optuna5ParzenOptions();
        options.considerPrior = m_options.considerPrior;
        options.priorWeight = m_options.priorWeight;
        options.considerMagicClip = m_options.considerMagicClip;
        options.considerEndpoints = m_options.considerEndpoints;
        options.scottBandwidths = optuna31 && multivariate; // 3.1: also for parameters sampled on their own
        ParzenOptions belowOptions = options;
        if (split.weights)
            belowOptions.observationWeights = std::move(belowWeights);
        const ParzenEstimator lower(below, space, belowOptions);
        if (refineWidth > 0.0 && incumbent) { // g(x) is not needed
            const std::vector<double> drawn = lower.sampleKernel(rng, *incumbent, refineWidth);
            for (std::size_t p = 0; p < which.size(); ++p)
                out[which[p]] = drawn[p];
            return true;
        }
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
        return false;
    }

    TpeOptions m_options;
    MotpeBelowWeights m_belowWeights;
};

} // namespace

double refineWidth(std::span<const TrialRecord> trials, StudyDirection direction, int trialNumber)
{
    constexpr double kStart = 0.5, kGrow = 1.5;
    const double shrink = std::pow(kGrow, -0.25);
    double width = kStart, best = kInf;
    for (const TrialRecord& trial : trials) {
        if (trial.number >= trialNumber)
            break;
        if (trial.state != TrialState::Complete || trial.values.empty())
            continue;
        const double score = tpeRankKey(trial, direction).score;
        if (trial.systemAttrs.contains(TpeOptions::kRefineAttr))
            width *= score < best ? kGrow : shrink;
        best = std::min(best, score);
    }
    return std::clamp(width, 1e-3, 1.0);
}

std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options, MotpeBelowWeights belowWeights)
{
    return std::make_unique<TpeSampler>(options, belowWeights);
}

std::unique_ptr<Sampler> makeTpeSampler(const TpeOptions& options)
{
    return makeTpeSampler(options, MotpeBelowWeights::Uniform);
}

} // namespace pitwall::hpo_internal
