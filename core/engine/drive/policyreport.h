#pragma once
// What `pitwall eval driving` reports, as JSON and as text (plain C++: no torch): each policy's routes and
// scores, and for several runs (training seeds) the mean ± sample std across them.

#include "core/engine/drive/policyeval.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::drive {

// A blank line, the table of routes (status, length, time, km, RC, penalty, DS, infractions), a blank line, and
// the policy's scores with their standard errors and the infractions per km.
std::string drivingReportText(const DrivingReport& report);

// One policy: its reportJson; several: the means across runs and "runs" with each reportJson. Both with
// "options" (routes, seed, route_seconds).
nlohmann::json policyEvalJson(const PolicyEvalSpec& spec, const PolicyEvalResult& result);

// For several runs: the blank line and the lines of the mean ± sample std across them; empty for one run.
std::string policyEvalAcrossRunsText(const PolicyEvalSpec& spec, const PolicyEvalResult& result);

} // namespace pitwall::drive
