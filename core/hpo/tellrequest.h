#pragma once
// What a caller of the ask/tell protocol reports about a trial (`pitwall study tell`, the window), read from
// text and checked against the protocol's rules before anything is written: values (one per objective) complete a
// trial, pruned and fail take none, and something must be told. The number of values is checked against the study
// by Study::tell.

#include "core/store/records.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pitwall {

struct TellRequest {
    // (step >= 0, values: one, or one per objective from "STEP=V1,V2") in the order given
    std::vector<std::pair<std::int64_t, std::vector<double>>> intermediate;
    std::vector<double> values;                                // one per objective; only with state Complete
    std::vector<double> constraints;                           // Optuna's: feasible when every one is <= 0
    std::optional<TrialState> state;                           // Complete, Pruned or Fail; nullopt: only steps
};

// Called with a warning that does not stop the request ("--value '1e999' is beyond the range of a double ...").
using TellWarning = std::function<void(const std::string&)>;

// A reported number. Text beyond a double's range (1e999) reads as ±inf, as strtod reads it; that is kept, with a
// warning, since an overflow is rarely what was meant (an explicit inf is not). InputError
// "<what> '<text>' is not a number" otherwise.
double parseReportedValue(const std::string& text, const std::string& what, const TellWarning& warn);

// The request from `study tell`'s options: `intermediate` items "STEP=VALUE" (or "STEP=V1,V2,..."), the --value texts (repeated, one per
// objective), the --constraint texts and the --state text. Values without a state complete the trial. InputError
// (naming the option) when a rule is broken.
TellRequest parseTellRequest(const std::vector<std::string>& intermediate, const std::vector<std::string>& values,
                             const std::vector<std::string>& constraints, const std::optional<std::string>& state,
                             const TellWarning& warn);
// One value at most (a single-objective caller).
TellRequest parseTellRequest(const std::vector<std::string>& intermediate, const std::optional<std::string>& value,
                             const std::optional<std::string>& state, const TellWarning& warn);

} // namespace pitwall
