#include "core/store/trialcache.h"

#include "core/store/store.h"

#include <algorithm>
#include <unordered_map>

namespace pitwall {

namespace {

bool sameDistribution(const Distribution& a, const Distribution& b)
{
    return a.kind == b.kind && a.low == b.low && a.high == b.high && a.log == b.log && a.step == b.step &&
           a.choices == b.choices;
}

bool sameParams(const std::vector<TrialParam>& a, const std::vector<TrialParam>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const TrialParam& x, const TrialParam& y) {
        return x.name == y.name && x.internalValue == y.internalValue &&
               sameDistribution(x.distribution, y.distribution);
    });
}

bool unfinished(TrialState state)
{
    return state == TrialState::Running || state == TrialState::Waiting;
}

} // namespace

bool sameTrial(const TrialRecord& a, const TrialRecord& b)
{
    return a.id == b.id && a.number == b.number && a.studyId == b.studyId && a.state == b.state &&
           a.startTime == b.startTime && a.completeTime == b.completeTime && a.values == b.values &&
           a.intermediateValues == b.intermediateValues && a.intermediateVectors == b.intermediateVectors &&
           a.allIntermediates == b.allIntermediates &&
           sameParams(a.params, b.params) && a.userAttrs == b.userAttrs && a.systemAttrs == b.systemAttrs;
}

TrialCache::TrialCache(Share share, std::optional<int> completeTail)
    : m_share(std::move(share)), m_completeTail(completeTail)
{
    if (!m_share)
        m_share = [](std::vector<TrialRecord> trials) {
            return std::make_shared<const std::vector<TrialRecord>>(std::move(trials));
        };
}

void TrialCache::clear()
{
    m_studies.clear();
    m_revision.reset();
}

void TrialCache::completeIntermediates(std::int64_t studyId, const std::vector<int>& numbers)
{
    m_toComplete[studyId].insert(numbers.begin(), numbers.end());
}

std::vector<TrialCache::Shared> TrialCache::refresh(Store& store, const std::vector<StudyKey>& studies)
{
    m_lastRead = 0;
    try {
        // Revisions before trials: a trial revised after this read is revised again after `latest`, and so is
        // read again by the next refresh.
        const TrialRevisions revised = store.trialRevisionsSince(m_revision);
        const bool incremental = m_revision && revised.tracked;
        m_revision = revised.tracked ? std::optional<std::int64_t>(revised.latest) : std::nullopt;
        std::unordered_map<std::int64_t, std::vector<int>> revisedNumbers;
        for (const TrialRevisions::Revised& r : revised.trials)
            revisedNumbers[r.studyId].push_back(r.number);

        std::map<std::int64_t, Study> kept;
        std::vector<Shared> shared;
        shared.reserve(studies.size());
        for (const StudyKey& key : studies) {
            Study study;
            if (const auto it = m_studies.find(key.id);
                incremental && it != m_studies.end() && it->second.name == key.name)
                study = std::move(it->second);
            study.name = key.name;
            const auto numbers = revisedNumbers.find(key.id);
            if (!study.trials ||
                !update(store, key.id, study, numbers == revisedNumbers.end() ? std::vector<int>{} : numbers->second,
                        key.listedTrials))
                readAll(store, key.id, study, key.listedTrials);
            shared.push_back(study.trials);
            kept.emplace(key.id, std::move(study));
        }
        m_studies = std::move(kept);
        return shared;
    } catch (...) {
        clear();
        throw;
    }
}

void TrialCache::readAll(Store& store, std::int64_t id, Study& study, int listedTrials)
{
    std::vector<TrialRecord> trials =
        m_completeTail ? store.trialsSummarised(id, listedTrials - *m_completeTail) : store.trials(id);
    // The trials asked whole before (their curves drawn) come whole again.
    if (const std::vector<int> partial = partialAmongWanted(id, trials); !partial.empty()) {
        m_lastRead += partial.size();
        for (TrialRecord& t : store.trialsNumbered(id, partial))
            if (t.number >= 0 && static_cast<std::size_t>(t.number) < trials.size() &&
                trials[static_cast<std::size_t>(t.number)].id == t.id)
                trials[static_cast<std::size_t>(t.number)] = std::move(t);
    }
    m_lastRead += trials.size();
    study.trials = m_share(std::move(trials));
    index(study);
}

std::vector<int> TrialCache::partialAmongWanted(std::int64_t studyId, const std::vector<TrialRecord>& trials) const
{
    std::vector<int> partial;
    if (const auto wanted = m_toComplete.find(studyId); wanted != m_toComplete.end())
        for (int n : wanted->second) {
            if (n < 0 || static_cast<std::size_t>(n) >= trials.size())
                continue;
            const TrialRecord& trial = trials[static_cast<std::size_t>(n)];
            if (trial.number == n && !trial.allIntermediates)
                partial.push_back(n);
        }
    return partial;
}

void TrialCache::index(Study& study)
{
    study.unfinished.clear();
    study.numbered = true;
    const std::vector<TrialRecord>& trials = *study.trials;
    for (std::size_t i = 0; i < trials.size(); ++i) {
        if (trials[i].number != static_cast<int>(i))
            study.numbered = false;
        if (unfinished(trials[i].state))
            study.unfinished.push_back(trials[i].number);
    }
}

// Reads the trials after the last one, the unfinished ones and `numbers` (revised); false when every trial must be
// read again instead.
bool TrialCache::update(Store& store, std::int64_t id, Study& study, std::vector<int> numbers, int listedTrials)
{
    const std::vector<TrialRecord>& old = *study.trials;
    const int size = static_cast<int>(old.size());
    if (!study.numbered || size > listedTrials)
        return false; // more trials kept than the study has: it was deleted and made again under the same id
    numbers.insert(numbers.end(), study.unfinished.begin(), study.unfinished.end());
    const std::vector<int> partial = partialAmongWanted(id, old);
    numbers.insert(numbers.end(), partial.begin(), partial.end());
    std::erase_if(numbers, [size](int n) { return n < 0 || n >= size; });
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());

    std::vector<TrialRecord> added = store.trialsFrom(id, size);
    std::vector<TrialRecord> changed = store.trialsNumbered(id, numbers);
    m_lastRead += added.size() + changed.size();
    for (std::size_t i = 0; i < added.size(); ++i)
        if (added[i].number != size + static_cast<int>(i))
            return false;
    if (size + static_cast<int>(added.size()) < listedTrials || changed.size() != numbers.size())
        return false; // trials went missing (a study deleted and made again under the same id and name)
    for (const TrialRecord& t : changed)
        if (old[static_cast<std::size_t>(t.number)].id != t.id)
            return false;
    std::erase_if(changed, [&](const TrialRecord& t) { return sameTrial(t, old[static_cast<std::size_t>(t.number)]); });
    if (added.empty() && changed.empty())
        return true; // the same vector: unchanged
    std::vector<TrialRecord> next;
    next.reserve(old.size() + added.size());
    next = old;
    for (TrialRecord& t : changed)
        next[static_cast<std::size_t>(t.number)] = std::move(t);
    std::move(added.begin(), added.end(), std::back_inserter(next));
    study.trials = m_share(std::move(next));
    index(study);
    return true;
}

} // namespace pitwall
