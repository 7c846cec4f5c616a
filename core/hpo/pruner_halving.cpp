// Asynchronous successive halving and hyperband after Optuna 3.1 (optuna/pruners/_successive_halving.py,
// _hyperband.py). A trial that reaches a rung's step records its value there ("completed_rung_<k>") and is
// promoted when it is among the best 1/reduction_factor of the values recorded at that rung.
#include "core/hpo/internal/pruners.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pitwall::hpo_internal {

namespace {

std::string rungKey(int rung)
{
    return "completed_rung_" + std::to_string(rung);
}

// The last step of the longest completed trial; nullopt before any trial completed with steps.
std::optional<std::int64_t> longestCompletedStep(const std::vector<TrialRecord>& trials)
{
    std::optional<std::int64_t> longest;
    for (const TrialRecord& t : trials)
        if (t.state == TrialState::Complete && lastStep(t))
            longest = std::max(longest.value_or(0), *lastStep(t));
    return longest;
}

bool maximizing(const StudyRecord& study)
{
    return !study.directions.empty() && study.directions.front() == StudyDirection::Maximize;
}

std::optional<std::int64_t> integerAttr(const Json& attrs, const char* key)
{
    if (attrs.contains(key) && attrs[key].is_number_integer())
        return attrs[key].get<std::int64_t>();
    return std::nullopt;
}

// zlib's CRC-32 (Python's binascii.crc32).
std::uint32_t crc32(const std::string& text)
{
    static const auto table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char byte : text)
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

// Optuna's _is_trial_promotable_to_next_rung.
bool promotable(double value, std::vector<double> competing, int reductionFactor, bool maximize)
{
    long index = static_cast<long>(competing.size()) / reductionFactor - 1;
    if (index == -1)
        index = 0;
    std::sort(competing.begin(), competing.end());
    if (maximize)
        return value >= competing[competing.size() - 1 - static_cast<std::size_t>(index)];
    return value <= competing[static_cast<std::size_t>(index)];
}

// One SHA judgement over `trials` (already filtered to a hyperband bracket), with min_resource known.
void halving(std::int64_t minResource, int reductionFactor, int minEarlyStoppingRate, int bootstrapCount,
             bool countJudgedTwice, const StudyRecord& study, std::vector<TrialRecord> trials, const TrialRecord& trial,
             PruneDecision& decision)
{
    const auto step = lastStep(trial);
    if (!step)
        return;
    int rung = 0;
    while (trial.systemAttrs.contains(rungKey(rung)))
        ++rung;
    const double value = trial.intermediateValues.at(*step);
    // Optuna 3.1's storage cache shares the judged trial's record with the trial list it compares against, so the
    // value it records at a rung also counts among the competitors; the copy in `trials` mirrors that. The newest
    // Optuna counts it once: the judged trial's copy in `trials` keeps no value at that rung.
    TrialRecord* self = nullptr;
    for (TrialRecord& t : trials)
        if (t.number == trial.number)
            self = &t;
    if (!countJudgedTwice)
        self = nullptr;
    while (true) {
        const double promotionStep = static_cast<double>(minResource) *
                                     std::pow(static_cast<double>(reductionFactor), minEarlyStoppingRate + rung);
        if (static_cast<double>(*step) < promotionStep)
            return;
        if (std::isnan(value)) {
            decision.prune = true;
            return;
        }
        const std::string key = rungKey(rung);
        decision.trialSystemAttrs[key] = value;
        if (self)
            self->systemAttrs[key] = value;
        std::vector<double> competing;
        for (const TrialRecord& t : trials)
            if (t.systemAttrs.contains(key) && t.systemAttrs[key].is_number())
                competing.push_back(t.systemAttrs[key].get<double>());
        competing.push_back(value);
        if (static_cast<int>(competing.size()) <= bootstrapCount ||
            !promotable(value, competing, reductionFactor, maximizing(study))) {
            decision.prune = true;
            return;
        }
        ++rung;
    }
}

class SuccessiveHalvingPruner final : public Pruner {
public:
    explicit SuccessiveHalvingPruner(const PrunerSettings& settings) : m_settings(settings) {}

    PruneDecision decide(const StudyRecord& study, const std::vector<TrialRecord>& trials,
                         const TrialRecord& trial) const override
    {
        PruneDecision decision;
        if (!lastStep(trial))
            return decision;
        std::optional<std::int64_t> minResource = m_settings.minResource;
        if (!minResource)
            minResource = integerAttr(study.systemAttrs, kShaMinResourceAttr);
        if (!minResource) {
            // "auto": a hundredth of the longest completed trial, fixed from then on (as Optuna's pruner
            // object keeps it).
            const std::optional<std::int64_t> longest = longestCompletedStep(trials);
            if (!longest)
                return decision;
            minResource = std::max<std::int64_t>(*longest / 100, 1);
            decision.studySystemAttrs[kShaMinResourceAttr] = *minResource;
        }
        halving(*minResource, m_settings.reductionFactor, m_settings.minEarlyStoppingRate, m_settings.bootstrapCount,
                m_settings.countJudgedTwice, study, trials, trial, decision);
        return decision;
    }

private:
    PrunerSettings m_settings;
};

struct Brackets {
    int count = 0;
    std::vector<std::int64_t> budgets;
    std::int64_t total = 0;

    int of(const std::string& studyName, int number) const
    {
        std::int64_t n = crc32(studyName + "_" + std::to_string(number)) % total;
        for (int b = 0; b < count; ++b) {
            n -= budgets[static_cast<std::size_t>(b)];
            if (n < 0)
                return b;
        }
        return count - 1;
    }
};

Brackets makeBrackets(const PrunerSettings& settings, std::int64_t maxResource)
{
    Brackets brackets;
    const double minResource = static_cast<double>(settings.minResource.value_or(1));
    const double factor = settings.reductionFactor;
    brackets.count =
        static_cast<int>(std::floor(std::log(static_cast<double>(maxResource) / minResource) / std::log(factor))) + 1;
    brackets.count = std::max(brackets.count, 1);
    for (int b = 0; b < brackets.count; ++b) {
        const int s = brackets.count - 1 - b;
        const auto budget = static_cast<std::int64_t>(std::ceil(brackets.count * std::pow(factor, s) / (s + 1)));
        brackets.budgets.push_back(budget);
        brackets.total += budget;
    }
    return brackets;
}

class HyperbandPruner final : public Pruner {
public:
    explicit HyperbandPruner(const PrunerSettings& settings) : m_settings(settings) {}

    PruneDecision decide(const StudyRecord& study, const std::vector<TrialRecord>& trials,
                         const TrialRecord& trial) const override
    {
        PruneDecision decision;
        std::optional<std::int64_t> maxResource = m_settings.maxResource;
        if (!maxResource)
            maxResource = integerAttr(study.systemAttrs, kHyperbandMaxResourceAttr);
        if (!maxResource) {
            const std::optional<std::int64_t> longest = longestCompletedStep(trials);
            if (!longest)
                return decision;
            maxResource = *longest + 1;
            decision.studySystemAttrs[kHyperbandMaxResourceAttr] = *maxResource;
        }
        const Brackets brackets = makeBrackets(m_settings, *maxResource);
        const int bracket = brackets.of(study.name, trial.number);
        std::vector<TrialRecord> inBracket;
        for (const TrialRecord& t : trials)
            if (brackets.of(study.name, t.number) == bracket)
                inBracket.push_back(t);
        halving(m_settings.minResource.value_or(1), m_settings.reductionFactor, bracket, m_settings.bootstrapCount,
                m_settings.countJudgedTwice, study, std::move(inBracket), trial, decision);
        return decision;
    }

private:
    PrunerSettings m_settings;
};

} // namespace

std::unique_ptr<Pruner> makeSuccessiveHalvingPruner(const PrunerSettings& settings)
{
    return std::make_unique<SuccessiveHalvingPruner>(settings);
}

std::unique_ptr<Pruner> makeHyperbandPruner(const PrunerSettings& settings)
{
    return std::make_unique<HyperbandPruner>(settings);
}

} // namespace pitwall::hpo_internal

namespace pitwall {

std::optional<int> hyperbandBracket(const PrunerSettings& settings, const StudyRecord& study, int number)
{
    if (settings.kind != PrunerKind::Hyperband)
        return std::nullopt;
    std::optional<std::int64_t> maxResource = settings.maxResource;
    if (!maxResource)
        maxResource = hpo_internal::integerAttr(study.systemAttrs, kHyperbandMaxResourceAttr);
    if (!maxResource)
        return std::nullopt;
    return hpo_internal::makeBrackets(settings, *maxResource).of(study.name, number);
}

} // namespace pitwall
