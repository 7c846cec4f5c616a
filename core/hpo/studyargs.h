#pragma once
// A new study's sampler and pruner from the options that `pitwall study create` and `pitwall hpo` share.

#include "core/hpo/study.h"
#include "core/util/cmdline.h"

namespace pitwall {

// --sampler, --seed, --startup-trials, --tpe-version, --multivariate/--independent, --constant-liar/--no-constant-liar,
// --hypervolume-weights, --tpe-gamma, --tpe-refine-every,
// --pruner, --warmup-steps,
// --pruner-startup-trials, --min-resource, --max-resource, --reduction-factor; absent ones keep their defaults
// (TPE, median; NSGA-II when `objectives` > 1), and NSGA-II's --population-size, --mutation-prob, --crossover-prob,
// --swapping-prob. The directions are left to the command. InputError naming the option for a bad value.
StudyOptions studyOptionsFromArgs(const cmdline::Args& args, std::size_t objectives = 1);

// --direction: minimize or maximize (in any case), nullopt when absent; InputError for anything else.
std::optional<StudyDirection> directionFromArgs(const cmdline::Args& args);
// Every --direction given (a repeatable option: one per objective, in order); empty when absent.
std::vector<StudyDirection> directionsFromArgs(const cmdline::Args& args);

// Those options, declared for a command's help and its parser.
std::vector<cmdline::OptionSpec> studyOptionSpecs();

} // namespace pitwall
