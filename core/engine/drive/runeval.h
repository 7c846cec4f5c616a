#pragma once
// Driving evaluation of a finished training run, and keeping its result with the run in the results store.
// Used by `pitwall eval driving --policy RUN_ID` and by `pitwall bench variants` (a `driving:` section).
// Plain C++ (no torch in this header).

#include "core/drive/simulator.h"
#include "core/engine/drive/modelpolicy.h"

#include <string>

namespace pitwall::drive {

// Loads run `runId` from the store at `storeLocation` (loadRunPolicy) and drives options.routes routes with it.
// Replays use the run's own camera. InputError for a bad run (see loadRunPolicy) or bad options.
DrivingReport evaluateRun(const std::string& storeLocation, std::int64_t runId, DrivingEvalOptions options,
                          const ModelPolicyOptions& model = {}, const DriveCallbacks& callbacks = {});

// Records `report` with run `runId`, where the workbench and `pitwall db export --run` read it:
// - metrics of stage "eval": at step 0 the summary (drivingSummaryJson's keys), and per route (step = route
//   index) route/driving_score, route/route_completion, route/infraction_penalty;
// - when the run belongs to a trial, trial user attributes driving_score, driving_score_stderr,
//   route_completion, infraction_penalty, infractions_per_km (next to the trial's validation metrics);
// - a benchmark record (suite "driving", name "run <id>"): results = drivingSummaryJson(report) (flat, one
//   workbench column each), parameters = the evaluation options and route_seeds (the world seed of every
//   route: equal lists mean the runs were scored on the same routes);
// - an artifact (kind "replay") per replay PNG, and an info event on the run.
void recordRunEvaluation(Store& store, std::int64_t runId, const DrivingReport& report,
                         const DrivingEvalOptions& options);

// The global figures as one flat object of numbers: driving_score, driving_score_std, driving_score_stderr
// (standard error of the mean over routes, scoring.h), the same three for route_completion and
// infraction_penalty, infractions_per_km, infractions_per_km/<CARLA key>, km_driven, routes.
nlohmann::json drivingSummaryJson(const DrivingReport& report);

// The world seed of each route of `report`, in route order.
std::vector<std::uint64_t> routeSeeds(const DrivingReport& report);

} // namespace pitwall::drive
