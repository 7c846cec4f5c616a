#pragma once
// The trials of every study of a store, kept between reads by a reader that shows them live (the window's poller),
// and brought up to date by reading only what may have changed since the last read: trials numbered after the last
// one read, trials that were unfinished then, and finished trials revised since (Store::trialRevisionsSince). At
// 100,000 trials a refresh reads a handful of trials where reading all takes about half a second.
//
// A study whose trials did not change keeps the same shared vector, so a view can tell "unchanged" by the pointer.
// A changed study gets a new vector (the old one is never modified: views may still hold it). A trial whose only
// change is its heartbeat keeps the record read before (heartbeatTime may lag the store's).
//
// Every trial is read again when it must be: the first time, for a file whose Pitwall tables predate revisions,
// for a study whose trials are not numbered 0..n-1, or whose trial count disagrees with the study listing (a study
// deleted and made again under the same id and name; one made again with as many trials or more goes unnoticed).
//
// A cache made with a complete tail reads a study's older trials summarised (Store::trialsSummarised: their last
// intermediate value alone) when it reads every trial, and the newest `completeTail` trials, and those read later,
// whole; completeIntermediates asks for the rest of a summarised trial's intermediate values (the curves a view draws).

#include "core/store/records.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pitwall {

class Store;

class TrialCache {
public:
    using Shared = std::shared_ptr<const std::vector<TrialRecord>>;
    // Makes the shared vector of a changed study (the window destroys large ones on a pool thread).
    using Share = std::function<Shared(std::vector<TrialRecord>)>;

    // completeTail: std::nullopt, every trial whole; else how many of the newest trials are read whole at first.
    explicit TrialCache(Share share = {}, std::optional<int> completeTail = std::nullopt);

    struct StudyKey {
        std::int64_t id = 0;
        std::string name;
        int listedTrials = 0; // how many trials the study listing counted (StudySummary::total()), read before
    };
    // Brings the studies' trials up to date, in the order given; studies not given are forgotten. Throws what the
    // store throws (then the next refresh reads every trial again).
    std::vector<Shared> refresh(Store& store, const std::vector<StudyKey>& studies);
    // Forgets the trials read: the next refresh reads every trial (those asked whole by completeIntermediates whole).
    void clear();
    // The next refresh reads whole the trials of the study with these numbers that were read summarised (the
    // study's changed vector then has them whole), and every later refresh keeps them whole, a full read too.
    // Numbers not kept, or kept whole, are passed over.
    void completeIntermediates(std::int64_t studyId, const std::vector<int>& numbers);
    // How many trial records the last refresh read from the store (tests and benchmarks).
    std::size_t lastRead() const { return m_lastRead; }

private:
    struct Study {
        std::string name;
        Shared trials;
        std::vector<int> unfinished; // numbers of the RUNNING and WAITING trials
        bool numbered = false;       // trials[i].number == i for every i
    };
    bool update(Store& store, std::int64_t id, Study& study, std::vector<int> numbers, int listedTrials);
    void readAll(Store& store, std::int64_t id, Study& study, int listedTrials);
    void index(Study& study);

    Share m_share;
    std::optional<int> m_completeTail;
    // Of the trials asked whole (completeIntermediates), the numbers of those read summarised in `trials`.
    std::vector<int> partialAmongWanted(std::int64_t studyId, const std::vector<TrialRecord>& trials) const;
    std::map<std::int64_t, std::set<int>> m_toComplete; // by study: trial numbers asked whole (a view asks once each)
    std::map<std::int64_t, Study> m_studies;
    std::optional<std::int64_t> m_revision;
    std::size_t m_lastRead = 0;
};

// Whether two records of the same trial say the same, heartbeat aside.
bool sameTrial(const TrialRecord& a, const TrialRecord& b);

} // namespace pitwall
