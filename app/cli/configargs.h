#pragma once
// Config files and overrides from a command's positional arguments (shared by config, train, bench).

#include "app/cli/cli.h"

#include "core/config/config.h"
#include "core/hpo/study.h"

namespace pitwall::cli {

// Positionals are config files and `dotted.key=value` overrides (an override's key has no '/').
void splitConfigArgs(const Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides);
// The config files of --config then of the positionals, made absolute, and the positionals' overrides.
void absoluteConfigArgs(const Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides);
// The schema with plugin keys; problems with plugin schema files are printed as warnings.
Schema schemaWithWarnings();
// Resolves the positionals; InputError when invalid, or when requireFile and no file is given.
ResolvedConfig resolveConfigArgs(const Args& args, bool requireFile);

// Sampler and pruner of a new study from the options that `study create` and `hpo` share (--sampler, --seed,
// --startup-trials, --multivariate, --constant-liar, --pruner, --warmup-steps, --pruner-startup-trials,
// --min-resource, --max-resource, --reduction-factor; absent ones keep their defaults). The direction is left
// to the command. InputError naming the option for a bad value.
StudyOptions studyOptionsFromArgs(const Args& args);

} // namespace pitwall::cli
