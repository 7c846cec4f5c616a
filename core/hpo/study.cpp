#include "core/hpo/study.h"

#include "core/hpo/internal/rng.h"
#include "core/store/besttrial.h"
#include "core/store/pareto.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace pitwall {

namespace {

std::uint64_t freshSeed()
{
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

std::string trialName(const StudyRecord& study, int number)
{
    return "trial " + std::to_string(number) + " of study '" + study.name + "'";
}

void requireRunning(const StudyRecord& study, const TrialRecord& trial, const std::string& what)
{
    if (trial.state == TrialState::Running)
        return;
    std::string state(trialStateName(trial.state));
    if (!trial.values.empty())
        state += " with value " + formatDouble(trial.values.front());
    throw InputError("cannot " + what + " " + trialName(study, trial.number) + ": it is " + state +
                     (trial.state == TrialState::Waiting ? "" : "; a finished trial cannot change"));
}

} // namespace

StudyOptions studyOptions(const StudyRecord& study)
{
    StudyOptions options;
    if (!study.directions.empty())
        options.direction = study.directions.front();
    if (study.directions.size() > 1) {
        options.directions = study.directions;
        options.sampler.kind = SamplerKind::Nsga2; // Optuna's default for several objectives
        // Optuna's NSGAIISampler keeps each generation's elite in a study attribute: Optuna 3.1 as
        // "nsga2:population:<hash>" = [generation, [trial numbers]], the newest Optuna as "NSGAIISampler:parent:<g>" =
        // [trial ids]. The elite is exactly population_size trials, so a study Optuna ran keeps its population size
        // when Pitwall continues it (Optuna does not store its sampler's settings).
        for (auto it = study.systemAttrs.begin(); it != study.systemAttrs.end(); ++it) {
            if (it.key().starts_with("nsga2:population:") && it->is_array() && it->size() == 2 &&
                (*it)[1].is_array() && (*it)[1].size() >= 2)
                options.sampler.nsga2.populationSize = static_cast<int>((*it)[1].size());
            if (it.key().starts_with("NSGAIISampler:parent:") && it->is_array() && it->size() >= 2)
                options.sampler.nsga2.populationSize = static_cast<int>(it->size());
        }
    }
    if (study.systemAttrs.contains(kSamplerAttr))
        options.sampler = SamplerSettings::fromJson(study.systemAttrs[kSamplerAttr]);
    if (study.systemAttrs.contains(kPrunerAttr))
        options.pruner = PrunerSettings::fromJson(study.systemAttrs[kPrunerAttr]);
    return options;
}

Study::Study(Store& store, StudyRecord record, StudyOptions options)
    : m_store(&store), m_record(std::move(record)), m_options(std::move(options))
{
}

Study Study::create(Store& store, const std::string& name, const StudyOptions& options)
{
    if (name.empty())
        throw InputError("a study needs a name");
    const std::vector<StudyDirection> objectives = options.objectives();
    const std::int64_t id = store.createStudy(name, objectives);
    store.setStudySystemAttr(id, kSamplerAttr, options.sampler.toJson());
    store.setStudySystemAttr(id, kPrunerAttr, options.pruner.toJson());
    return load(store, name);
}

Study Study::load(Store& store, const std::string& name)
{
    StudyRecord record = store.requireStudy(name);
    if (record.directions.empty())
        throw InputError("study '" + name + "' has no objective (no study_directions row): a damaged or foreign file");
    StudyOptions options = studyOptions(record);
    return Study(store, std::move(record), std::move(options));
}

TrialRecord Study::requireTrial(int trialNumber)
{
    if (auto trial = m_store->trial(m_record.id, trialNumber))
        return *trial;
    const auto summaries = m_store->listStudies();
    int total = 0;
    for (const StudySummary& s : summaries)
        if (s.study.id == m_record.id)
            total = s.total();
    throw InputError(
        "study '" + m_record.name + "' has no trial " + std::to_string(trialNumber) +
        (total == 0 ? " (it has no trials yet)" : " (its trials are numbered 0 to " + std::to_string(total - 1) + ")"));
}

AskedTrial Study::ask(const SearchSpace& space)
{
    return *askIf(space, nullptr);
}

std::optional<AskedTrial> Study::askIf(const SearchSpace& space, const AdmitTrials& admit)
{
    std::optional<AskedTrial> asked = askRequests(space.requests(), admit);
    if (!asked)
        return asked;
    for (const SpaceParam& p : space.params())
        if (!p.searched())
            asked->fixed[p.name] = p.fixedValue;
    asked->overrides = space.overrides(asked->params);
    return asked;
}

AskedTrial Study::ask(const std::vector<ParamRequest>& requests)
{
    return *askRequests(requests, nullptr);
}

const std::vector<TrialRecord>& Study::currentTrials()
{
    std::vector<TrialRecord> fresh = m_store->trialsFrom(m_record.id, static_cast<int>(m_finishedPrefix));
    m_trials.resize(m_finishedPrefix); // what was read from there last time may have changed since
    for (TrialRecord& t : fresh)
        m_trials.push_back(std::move(t));
    const auto finished = [](TrialState state) {
        return state == TrialState::Complete || state == TrialState::Pruned || state == TrialState::Fail;
    };
    while (m_finishedPrefix < m_trials.size() && finished(m_trials[m_finishedPrefix].state) &&
           m_trials[m_finishedPrefix].number == static_cast<int>(m_finishedPrefix))
        ++m_finishedPrefix;
    return m_trials;
}

std::optional<AskedTrial> Study::askRequests(const std::vector<ParamRequest>& requests, const AdmitTrials& admit)
{
    // Sample for the number the next trial will get, then create the trial with its parameters in one
    // transaction; when another process took that number meanwhile, nothing was written: sample again.
    constexpr int kAttempts = 100;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        const std::vector<TrialRecord>& all = currentTrials();
        std::span<const TrialRecord> trials = all;
        const int number = static_cast<int>(all.size()); // Optuna's numbering: trials created before
        if (admit && !admit(all))
            return std::nullopt;
        std::vector<TrialRecord> sameBracket;
        if (m_options.pruner.kind == PrunerKind::Hyperband) {
            // TPE learns from the new trial's bracket only (Optuna's _BracketStudy); the bracket layout may
            // have been fixed by another process since this study was opened.
            if (auto fresh = m_store->findStudy(m_record.name))
                m_record = *fresh;
            if (const auto bracket = hyperbandBracket(m_options.pruner, m_record, number)) {
                for (const TrialRecord& t : all)
                    if (hyperbandBracket(m_options.pruner, m_record, t.number) == bracket)
                        sameBracket.push_back(t);
                trials = sameBracket;
            }
        }
        SampleContext context;
        context.studyName = m_record.name;
        context.direction = direction();
        if (m_record.directions.size() > 1)
            context.directions = m_record.directions;
        context.trials = trials;
        context.trialNumber = number;
        context.seed = m_options.sampler.seed ? hpo_internal::deriveSeed(*m_options.sampler.seed, number) : freshSeed();
        const SampleResult result = makeSampler(m_options.sampler)->sample(context, requests);

        std::vector<TrialParam> params;
        for (std::size_t i = 0; i < requests.size(); ++i)
            params.push_back({requests[i].name, result.internalValues[i], requests[i].distribution});
        auto trial = m_store->createTrialWithParams(m_record.id, number, params, result.trialSystemAttrs);
        if (!trial)
            continue;
        AskedTrial asked;
        for (const TrialParam& p : params)
            asked.params[p.name] = p.value();
        asked.trial = std::move(*trial);
        return asked;
    }
    throw RuntimeError("could not start a trial of study '" + m_record.name + "': other processes started one first " +
                       std::to_string(kAttempts) + " times in a row");
}

bool Study::report(int trialNumber, std::int64_t step, double value)
{
    if (objectiveCount() > 1)
        throw InputError("study '" + m_record.name + "' has " + std::to_string(objectiveCount()) + " objectives (" +
                         directionsText() + "): report one intermediate value per objective (STEP=V1,V2)");
    return report(trialNumber, step, std::vector<double>{value});
}

bool Study::report(int trialNumber, std::int64_t step, const std::vector<double>& values)
{
    if (values.size() != objectiveCount())
        throw InputError("study '" + m_record.name + "' has " + std::to_string(objectiveCount()) + " objective" +
                         (objectiveCount() == 1 ? "" : "s") + " (" + directionsText() + "): report " +
                         std::to_string(objectiveCount()) + " intermediate value" + (objectiveCount() == 1 ? "" : "s") +
                         " per step, not " + std::to_string(values.size()));
    const TrialRecord trial = requireTrial(trialNumber);
    requireRunning(m_record, trial, "report to");
    if (step < 0)
        throw InputError("step " + std::to_string(step) + " is negative; steps count from 0");
    if (trial.intermediateValues.count(step))
        return false;
    if (values.size() == 1)
        m_store->reportIntermediate(trial.id, step, values.front());
    else
        m_store->reportIntermediates(trial.id, step, values);
    return true;
}

bool Study::shouldPrune(int trialNumber, std::optional<std::int64_t> step)
{
    if (objectiveCount() > 1 && m_options.pruner.kind != PrunerKind::Median && m_options.pruner.kind != PrunerKind::None)
        throw InputError("pruner " + std::string(prunerKindName(m_options.pruner.kind)) +
                         " judges one objective; study '" + m_record.name + "' has " +
                         std::to_string(objectiveCount()) + " (" + directionsText() +
                         "): use the median pruner (dominated by more than half of the completed trials) or none");
    TrialRecord trial = requireTrial(trialNumber);
    requireRunning(m_record, trial, "judge");
    if (step) {
        if (!trial.intermediateValues.count(*step))
            throw InputError(trialName(m_record, trialNumber) + " has no intermediate value at step " +
                             std::to_string(*step) + "; report it first");
        trial.intermediateValues.erase(trial.intermediateValues.upper_bound(*step), trial.intermediateValues.end());
    }
    if (auto fresh = m_store->findStudy(m_record.name))
        m_record = *fresh;
    std::vector<TrialRecord> trials = m_store->trials(m_record.id);
    for (TrialRecord& t : trials)
        if (t.number == trialNumber)
            t = trial;
    const PruneDecision decision = makePruner(m_options.pruner)->decide(m_record, trials, trial);
    for (auto it = decision.trialSystemAttrs.begin(); it != decision.trialSystemAttrs.end(); ++it)
        m_store->setTrialSystemAttr(trial.id, it.key(), it.value());
    for (auto it = decision.studySystemAttrs.begin(); it != decision.studySystemAttrs.end(); ++it) {
        m_store->setStudySystemAttr(m_record.id, it.key(), it.value());
        m_record.systemAttrs[it.key()] = it.value();
    }
    return decision.prune;
}

TrialState Study::tell(int trialNumber, TrialState state, std::optional<double> value)
{
    return tell(trialNumber, state, value ? std::vector<double>{*value} : std::vector<double>{});
}

TrialState Study::tell(int trialNumber, TrialState state, const std::vector<double>& values,
                       const std::vector<double>& constraints)
{
    const TrialRecord trial = requireTrial(trialNumber);
    requireRunning(m_record, trial, "tell");
    const std::size_t objectives = objectiveCount();
    std::vector<double> stored;
    switch (state) {
    case TrialState::Complete:
        if (values.empty())
            throw InputError(objectives == 1 ? std::string("a COMPLETE trial needs a value")
                                             : "a COMPLETE trial of study '" + m_record.name + "' needs " +
                                                   std::to_string(objectives) + " values, one per objective");
        if (values.size() != objectives)
            throw InputError("study '" + m_record.name + "' has " + std::to_string(objectives) + " objective" +
                             (objectives == 1 ? "" : "s") + " (" + directionsText() + "): give " +
                             std::to_string(objectives) + " value" + (objectives == 1 ? "" : "s") + ", not " +
                             std::to_string(values.size()));
        // Optuna: "The objective function returned nan" fails the trial; so does any NaN of several.
        if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }))
            state = TrialState::Fail;
        else
            stored = values;
        break;
    case TrialState::Pruned:
    case TrialState::Fail:
        if (!values.empty())
            throw InputError(std::string("a ") + std::string(trialStateName(state)) + " trial takes no value");
        break;
    case TrialState::Running:
    case TrialState::Waiting:
        throw InputError("tell finishes a trial: the state must be COMPLETE, PRUNED or FAIL");
    }
    if (std::any_of(constraints.begin(), constraints.end(), [](double c) { return std::isnan(c); }))
        throw InputError("a constraint value is NaN; constraints are numbers, feasible when <= 0");
    if (!constraints.empty())
        m_store->setTrialSystemAttr(trial.id, kConstraintsAttr, Json(constraints));
    m_store->finishTrial(trial.id, state, stored);
    return state;
}

std::string Study::directionsText() const
{
    std::vector<std::string> names;
    for (StudyDirection d : m_record.directions)
        names.emplace_back(studyDirectionName(d));
    return join(names, ", ");
}

std::optional<TrialRecord> Study::bestTrial()
{
    std::vector<TrialRecord> trials = m_store->trials(m_record.id);
    const std::optional<std::size_t> best = bestTrialIndex(trials, direction());
    if (!best)
        return std::nullopt;
    return std::move(trials[*best]);
}

std::vector<TrialRecord> Study::bestTrials()
{
    std::vector<TrialRecord> trials = m_store->trials(m_record.id);
    std::vector<TrialRecord> best;
    if (objectiveCount() == 1) {
        if (const auto index = bestTrialIndex(trials, direction()))
            for (TrialRecord& t : trials)
                if (rankedValue(t) && *rankedValue(t) == trials[*index].values.front())
                    best.push_back(t);
        return best;
    }
    for (std::size_t i : paretoFrontIndices(trials, m_record.directions))
        best.push_back(std::move(trials[i]));
    return best;
}

} // namespace pitwall
