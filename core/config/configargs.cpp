#include "core/config/configargs.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <iostream>

namespace pitwall {

void splitConfigArgs(const cmdline::Args& args, std::vector<std::string>& files, std::vector<std::string>& overrides)
{
    for (const std::string& word : args.positionals) {
        const auto eq = word.find('=');
        if (eq != std::string::npos && word.substr(0, eq).find('/') == std::string::npos)
            overrides.push_back(word);
        else
            files.push_back(word);
    }
}

void absoluteConfigArgs(const cmdline::Args& args, std::vector<std::string>& files,
                        std::vector<std::string>& overrides)
{
    std::vector<std::string> given;
    splitConfigArgs(args, given, overrides);
    for (const std::string& file : args.values("config"))
        files.push_back(absolutePath(file));
    for (const std::string& file : given)
        files.push_back(absolutePath(file));
}

Schema schemaWithWarnings()
{
    std::vector<Diagnostic> problems;
    Schema schema = loadSchema(&problems);
    for (const Diagnostic& d : problems)
        std::cerr << "warning: plugin schema left out: " << d.toString() << "\n";
    return schema;
}

ResolvedConfig resolveConfigArgs(const cmdline::Args& args, bool requireFile)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    if (requireFile && files.empty())
        throw InputError("give a config file (e.g. configs/transfuser/smoke.yaml), then any dotted.key=value overrides");
    if (files.empty() && overrides.empty())
        throw InputError("give at least one config file or dotted.key=value override");
    return resolveConfig(schemaWithWarnings(), files, overrides);
}

} // namespace pitwall
