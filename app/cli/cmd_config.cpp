// pitwall config show | validate | schema
#include "app/cli/cli.h"

#include "core/config/config.h"
#include "core/config/configargs.h"
#include "core/config/schemareport.h"
#include "core/util/error.h"

#include <iostream>

namespace pitwall::cli {

namespace {

ResolvedConfig resolveFromArgs(const Args& args) { return resolveConfigArgs(args, false); }

int showConfig(const Args& args)
{
    const ResolvedConfig config = resolveFromArgs(args);
    if (args.flag("json")) {
        nlohmann::json out{{"config", config.toJson()}, {"origins", config.originsJson()}};
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << config.toYaml(!args.flag("no-origins"), args.flag("changed"));
    }
    return kExitOk;
}

int validateConfig(const Args& args)
{
    const ResolvedConfig config = resolveFromArgs(args);
    std::cout << "valid: " << config.entries().size() << " keys, " << config.changedEntries().size()
              << " set differently from the defaults\n";
    return kExitOk;
}

int showSchema(const Args& args)
{
    const Schema schema = schemaWithWarnings();
    const std::vector<const KeySpec*> shown = selectKeys(schema, args.flag("speed"), args.value("group", ""));
    return printReport(args, schemaListingJson(schema, shown), schemaListingText(shown));
}

} // namespace

void addConfigCommands(Cli& cli)
{
    cli.add({.path = "config show",
             .options = {jsonOption(),
                         {"changed", "", "only keys whose value differs from the default"},
                         {"no-origins", "", "leave out the '# origin' comments"}},
             .run = showConfig});
    cli.add({.path = "config validate", .options = {}, .run = validateConfig});
    cli.add({.path = "config schema",
             .options = {jsonOption(),
                         {"speed", "", "only the speed options"},
                         {"group", "NAME", "only keys whose group starts with NAME (e.g. 'Training')"}},
             .run = showSchema});
}

} // namespace pitwall::cli
