#pragma once
// The lines a search prints as its study's trials change ("trial 3 started on cpu:0.1: {...}", "trial 3 COMPLETE
// value 0.25", "trial 4 FAIL: reason"), from successive reads of the study: what the worker pool and the Slurm
// launcher report alike.

#include "core/pool/poolevents.h"
#include "core/store/records.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pitwall {

// A fail reason's first line, with " ..." when more lines follow.
std::string firstLine(const std::string& text);

class TrialChanges {
public:
    // Records a trial's state without reporting it (trials there before the search, or failed by the caller who
    // says so itself).
    void seen(int number, TrialState state) { m_known[number] = state; }
    // Reports every trial whose state differs from the last seen: TrialStarted for RUNNING, TrialFinished for
    // COMPLETE, PRUNED (with the values, and the step) and FAIL (with the first line of its reason).
    void report(const std::vector<TrialRecord>& trials, const std::function<void(const PoolEvent&)>& onEvent);

private:
    std::map<int, TrialState> m_known; // trial number -> last state seen
};

} // namespace pitwall
