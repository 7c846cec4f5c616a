#pragma once
// What `pitwall eval driving` reports, as JSON and as text (plain C++: no torch): each policy's routes and
// scores, and for several runs (training seeds) the mean ± sample std across them.

#include "core/engine/drive/policyeval.h"
#include "core/jobs/evaljob.h"
#include "core/util/cmdline.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pitwall::drive {

// Default routes: a smoke-trained policy's DS varies by about 10–15 points from route to route, so 20 routes give a
// standard error of about 2–3.5 points (0.3 s a route for that policy on 2 cores; the README has the figures).
inline constexpr int kDefaultEvalRoutes = kDefaultDrivingRoutes;

// The job's policies, routes, seed, route seconds, plan rate, threads (checked by validateEvalOptions), replay folder
// and database. InputError naming the option for a bad or missing value. The second reads the job from a parsed
// command line.
PolicyEvalSpec policyEvalSpecFromJob(const DrivingEvalJob& job);
PolicyEvalSpec policyEvalSpec(const cmdline::Args& args);

// --check: {"ok", "policies" (checkPolicies' lines), "routes"}
nlohmann::json policyCheckJson(const PolicyEvalSpec& spec, const std::vector<std::string>& policies);
// --check: "ok: LINE" per policy, then "ok: would drive N route(s) per policy (seed S)".
std::string policyCheckText(const PolicyEvalSpec& spec, const std::vector<std::string>& policies);

// A blank line, the table of routes (status, length, time, km, RC, penalty, DS, infractions), a blank line, and
// the policy's scores with their standard errors and the infractions per km.
std::string drivingReportText(const DrivingReport& report);

// One policy: its reportJson; several: the means across runs and "runs" with each reportJson. Both with
// "options" (routes, seed, route_seconds).
nlohmann::json policyEvalJson(const PolicyEvalSpec& spec, const PolicyEvalResult& result);

// For several runs: the blank line and the lines of the mean ± sample std across them; empty for one run.
std::string policyEvalAcrossRunsText(const PolicyEvalSpec& spec, const PolicyEvalResult& result);

// Every policy's drivingReportText, policyEvalAcrossRunsText, and for run policies where they were recorded.
std::string policyEvalText(const PolicyEvalSpec& spec, const PolicyEvalResult& result);

} // namespace pitwall::drive
