// pitwall eval driving | detection: a policy driven in closed loop; boxes predicted elsewhere, scored as AutoSpeed.
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/drive/policyreport.h"
#include "core/engine/eval/predictionreport.h"
#include "core/util/cancel.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {

int evalDrivingCheck(const Args& args)
{
    return checkReport(args, DrivingEvalJob::fields(), [&] {
        const drive::PolicyEvalSpec spec = drive::policyEvalSpec(args);
        const std::vector<std::string> policies = drive::checkPolicies(spec);
        return printReport(args, drive::policyCheckJson(spec, policies), drive::policyCheckText(spec, policies));
    });
}

int evalDriving(const Args& args)
{
    const drive::PolicyEvalSpec spec = drive::policyEvalSpec(args);
    installInterruptHandlers(InterruptPolicy::Command);
    ProgressLine line;
    const drive::PolicyEvalResult result = drive::evaluatePolicies(spec, processCancelToken(), line.reporter());
    if (result.cancelled) {
        std::fprintf(stderr, "cancelled: the unfinished evaluation is not recorded\n");
        return kExitCancelled;
    }
    return printReport(args, drive::policyEvalJson(spec, result), drive::policyEvalText(spec, result));
}

// `eval detection --check`: the dataset, its ground truth and every prediction read and checked; nothing scored.
int evalDetectionCheck(const Args& args)
{
    return checkReport(args, DetectionEvalJob::fields(), [&] {
        const engine::eval::PredictionScoreSpec spec =
            engine::eval::predictionScoreSpec(DetectionEvalJob::fromArgs(args));
        ProgressLine line;
        const engine::eval::PredictionCheck check = engine::eval::checkPredictions(spec, line.reporter());
        return printReport(args, engine::eval::predictionCheckJson(check, spec),
                           engine::eval::predictionCheckText(check, spec));
    });
}

int evalDetection(const Args& args)
{
    const engine::eval::PredictionScoreSpec spec = engine::eval::predictionScoreSpec(DetectionEvalJob::fromArgs(args));
    ProgressLine line;
    ProgressReporter reporter = line.reporter();
    reporter.onProgress = nullptr; // scoring is quick: no progress line
    const engine::eval::PredictionScore score = engine::eval::scorePredictions(spec, processCancelToken(), reporter);
    return printReport(args, engine::eval::predictionScoreJson(score, spec.nms),
                       engine::eval::predictionScoreText(score));
}

} // namespace

void addEvalCommands(Cli& cli)
{
    cli.add({.path = "eval driving",
             .options = withOptions({dbOption(), jsonOption()}, DrivingEvalJob::optionSpecs()),
             .run = evalDriving,
             .check = evalDrivingCheck});
    cli.add({.path = "eval detection",
             .options = withOptions(DetectionEvalJob::optionSpecs(), {jsonOption()}),
             .run = evalDetection,
             .check = evalDetectionCheck});
}

} // namespace pitwall::cli
