#pragma once
// Config files and overrides from a command's words (`pitwall config`, train, bench, hpo, data synth): the
// positionals are config files and `dotted.key=value` overrides (an override's key has no '/').

#include "core/config/config.h"
#include "core/util/cmdline.h"

#include <string>
#include <vector>

namespace pitwall {

// The positionals split into files and overrides, in their order.
void splitConfigArgs(const cmdline::Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides);
// The config files of --config then of the positionals, made absolute, and the positionals' overrides.
void absoluteConfigArgs(const cmdline::Args& args, std::vector<std::string>& files,
                        std::vector<std::string>& overrides);
// The schema with plugin keys; problems with plugin schema files are printed on stderr as warnings
// ("warning: plugin schema left out: ...").
Schema schemaWithWarnings();
// Resolves the positionals; InputError when invalid, or when requireFile and no file is given.
ResolvedConfig resolveConfigArgs(const cmdline::Args& args, bool requireFile);

} // namespace pitwall
