#pragma once
// The ask/tell steps of `pitwall study ask|tell` as workflows of core (the CLI parses and prints around them): the
// space a trial is asked from, and a tell request carried out on a study.

#include "core/hpo/searchspace.h"
#include "core/hpo/tellrequest.h"

#include <optional>
#include <string>

namespace pitwall {

class Schema;
class Study;

// The search space `study ask` samples from: `file` against `schema`. With `model` (a schema owner: transfuser,
// autospeed), every name must be one of that model's keys (bare names resolve inside it); without, a name of no
// config key is a free parameter (a black-box objective). InputError for a model that declares no keys.
SearchSpace loadAskSpace(const Schema& schema, const std::string& file, const std::optional<std::string>& model);

// Carries out `request` on trial `number`: its intermediate values in order (a step already reported keeps its
// first value, as Optuna does, with a warning), then its end state when it names one. Returns the state the trial
// ended in (Fail when a value was not acceptable, with a warning), or nullopt when the request only reported steps.
std::optional<TrialState> applyTellRequest(Study& study, int number, const TellRequest& request,
                                           const TellWarning& warn);

} // namespace pitwall
