#include "app/cli/cli.h"
#include "core/jobrun/commandjob.h"
#include "core/util/error.h"

#include <iostream>

namespace pitwall::cli {

Cli makePitwallCli()
{
    cmdline::ProgramInfo program{
        "pitwall",
        PITWALL_VERSION,
        "train driving-perception models fast and tune them well.",
        "Commands that touch results take --db FILE (default: $PITWALL_DB, else ./pitwall.db).\n"
        "Commands that report figures take --json and then print one JSON document on stdout.\n"
        "Exit status: 0 success, 1 the work failed, 2 bad input or usage.\n",
        "this command's engine module is not loaded",
        cmdline::parseCommandReference(commandReference(), "pitwall", "docs/commands.md")};
    return Cli(std::move(program), commandJobHooks());
}

OptionSpec dbOption()
{
    return {"db", "FILE", "results database (default: $PITWALL_DB, else pitwall.db in the working directory)"};
}

int printReport(const Args& args, const nlohmann::json& json, const std::string& text)
{
    if (args.flag("json"))
        std::cout << json.dump(2) << "\n";
    else
        std::cout << text;
    return kExitOk;
}

int checkReport(const Args& args, const JobFields& fields, const std::function<int()>& check)
{
    if (!args.flag("json"))
        return check();
    try {
        return check();
    } catch (const InputError& e) {
        std::cout << jobProblemsJson(jobProblems(e, fields, args)).dump(2) << "\n";
        return kExitBadInput;
    }
}

OptionSpec jsonOption() { return {"json", "", "print one JSON document on stdout instead of text"}; }

} // namespace pitwall::cli
