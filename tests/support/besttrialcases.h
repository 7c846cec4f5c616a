// The edge cases of "which trial is best" (core/store/besttrial.h), shared by the core test that checks the
// store, the study and the job counts (tests/core/hpo/tst_hpo_best) and the window's test of its study views
// (tests/ui/tst_studyview), so both sides are held to the same answers.
#pragma once

#include "core/store/records.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::test {

// One trial of a case: its state and the first value it carries (any state may carry one, as a damaged or
// foreign file can; a pruned trial carries its last intermediate value).
struct CaseTrial {
    TrialState state = TrialState::Complete;
    std::optional<double> value;
};

struct BestTrialCase {
    std::string name; // also the study's name in the store
    StudyDirection direction = StudyDirection::Minimize;
    std::vector<CaseTrial> trials; // numbered 0, 1, ... in this order
    std::optional<int> bestNumber; // what every caller must answer
    std::optional<double> bestValue;
};

inline std::vector<BestTrialCase> bestTrialCases()
{
    const double inf = HUGE_VAL;
    const double nan = std::nan("");
    constexpr auto C = TrialState::Complete, P = TrialState::Pruned, F = TrialState::Fail, R = TrialState::Running,
                   W = TrialState::Waiting;
    return {
        {"empty-min", StudyDirection::Minimize, {}, std::nullopt, std::nullopt},
        {"empty-max", StudyDirection::Maximize, {}, std::nullopt, std::nullopt},
        {"ties-min", StudyDirection::Minimize, {{C, 0.5}, {C, 0.25}, {C, 0.25}, {C, 0.75}}, 1, 0.25},
        {"ties-max", StudyDirection::Maximize, {{C, 0.5}, {C, 0.75}, {C, 0.25}, {C, 0.75}}, 1, 0.75},
        {"plus-inf-wins-max", StudyDirection::Maximize, {{C, 1.0}, {C, inf}, {C, 5.0}, {C, inf}}, 1, inf},
        {"plus-inf-loses-min", StudyDirection::Minimize, {{C, inf}, {C, 3.0}, {C, inf}}, 1, 3.0},
        {"minus-inf-wins-min", StudyDirection::Minimize, {{C, 1.0}, {C, -inf}, {C, -inf}}, 1, -inf},
        {"minus-inf-loses-max", StudyDirection::Maximize, {{C, -inf}, {C, 2.0}, {C, -inf}}, 1, 2.0},
        {"only-minus-inf-max", StudyDirection::Maximize, {{C, -inf}, {P, 10.0}}, 0, -inf},
        {"nan-skipped-min", StudyDirection::Minimize, {{C, nan}, {C, 2.0}, {C, nan}, {C, 4.0}}, 1, 2.0},
        {"nan-skipped-max", StudyDirection::Maximize, {{C, 2.0}, {C, nan}, {C, 1.0}}, 0, 2.0},
        {"only-nan", StudyDirection::Maximize, {{C, nan}}, std::nullopt, std::nullopt},
        {"unfinished-min",
         StudyDirection::Minimize,
         {{P, 0.1}, {F, -5.0}, {R, -inf}, {W, -1.0}, {C, 0.7}, {P, -inf}},
         4,
         0.7},
        {"unfinished-max", StudyDirection::Maximize, {{P, 9.0}, {F, inf}, {R, 8.0}, {C, 0.5}, {C, 0.5}}, 3, 0.5},
        {"no-complete", StudyDirection::Maximize, {{P, 1.0}, {F, 2.0}, {R, 3.0}, {W, 4.0}}, std::nullopt, std::nullopt},
    };
}

// The trials of a case as the store hands them out: numbered in order, values only where a value is given.
inline std::vector<TrialRecord> caseTrials(const BestTrialCase& c)
{
    std::vector<TrialRecord> trials;
    for (const CaseTrial& spec : c.trials) {
        TrialRecord t;
        t.number = static_cast<int>(trials.size());
        t.id = t.number + 1;
        t.state = spec.state;
        if (spec.value)
            t.values = {*spec.value};
        trials.push_back(std::move(t));
    }
    return trials;
}

} // namespace pitwall::test
