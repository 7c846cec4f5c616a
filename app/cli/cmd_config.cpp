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
    if (args.flag("json"))
        std::cout << schemaListingJson(schema, shown).dump(2) << "\n";
    else
        std::cout << schemaListingText(shown);
    return kExitOk;
}

const char* const kLayering =
    "CONFIG files are YAML, applied in order after the schema defaults; several documents in one file\n"
    "(separated by ---) apply in order too, and `include: [other.yaml]` pulls files in first (paths relative\n"
    "to the including file). Arguments of the form dotted.key=value are overrides applied last, e.g.\n"
    "  pitwall config show cfg.yaml training.optimization.batch_size=96 policy.transfuser.upsample_mode=nearest\n"
    "Every problem is reported with file:line:column (or the override), and the exit status is 2.";

} // namespace

void addConfigCommands(Cli& cli)
{
    cli.add({"config show", "print the resolved configuration with where each value came from",
             "CONFIG... [dotted.key=value...] [--json] [--changed] [--no-origins]",
             kLayering,
             {jsonOption(),
              {"changed", "", "only keys whose value differs from the default"},
              {"no-origins", "", "leave out the '# origin' comments"}},
             showConfig});
    cli.add({"config validate", "check configuration files and overrides against the schema",
             "CONFIG... [dotted.key=value...]", kLayering, {}, validateConfig});
    cli.add({"config schema", "list every config key: type, default, range or choices, doc",
             "[--json] [--speed] [--group NAME]",
             "Keys come from core and from the schema files of the plugins on the plugin path\n"
             "($PITWALL_PLUGIN_PATH, then <install>/lib/pitwall/plugins).",
             {jsonOption(),
              {"speed", "", "only the speed options"},
              {"group", "NAME", "only keys whose group starts with NAME (e.g. 'Training')"}},
             showSchema});
}

} // namespace pitwall::cli
