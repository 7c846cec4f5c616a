// pitwall db info | migrate | export
#include "app/cli/cli.h"

#include "core/store/inforeport.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <fstream>
#include <iostream>

namespace pitwall::cli {

namespace {

int dbInfo(const Args& args)
{
    const auto store = openStore(args.database(), OpenMode::ReadOnly);
    const SchemaInfo info = store->info();
    const std::vector<StudySummary> studies = store->listStudies();
    if (args.flag("json"))
        std::cout << databaseInfoJson(info, studies).dump(2) << "\n";
    else
        std::cout << databaseInfoText(info, studies);
    return kExitOk;
}

int dbMigrate(const Args& args)
{
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    const int applied = store->migrate(); // openStore already migrated a file it created
    const SchemaInfo info = store->info();
    std::cout << info.location << ": pitwall schema " << info.pitwallSchemaVersion << " (" << applied
              << " migration(s) applied now)\n";
    return kExitOk;
}

int dbExport(const Args& args)
{
    const std::string formatText = args.value("format", "csv");
    const auto format = parseExportFormat(formatText);
    if (!format)
        throw InputError("--format '" + formatText + "' is not csv or json");
    const auto study = args.value("study");
    const auto run = args.value("run");
    if (study.has_value() == run.has_value())
        throw InputError("give exactly one of --study NAME (its trials) or --run ID (its metric series)");
    const auto store = openStore(args.database(), OpenMode::ReadOnly);

    std::ofstream file;
    std::ostream* out = &std::cout;
    if (auto path = args.value("out")) {
        file.open(*path, std::ios::binary | std::ios::trunc);
        if (!file)
            throw InputError("cannot write --out '" + *path + "'");
        out = &file;
    }
    if (study) {
        exportStudyTrials(*store, *study, *format, *out);
    } else {
        const auto id = parseInteger(*run);
        if (!id || *id <= 0)
            throw InputError("--run '" + *run + "' is not a run id (a positive integer)");
        exportRunMetrics(*store, *id, *format, *out);
    }
    out->flush();
    if (!*out)
        throw RuntimeError("writing the export failed");
    return kExitOk;
}

} // namespace

void addDbCommands(Cli& cli)
{
    cli.add({"db info", "show the results database: schema versions, contents, studies", "[--db FILE] [--json]",
             "Works on files written by Pitwall and by Optuna (sqlite:///FILE storages); never changes the file.",
             {dbOption(), jsonOption()}, dbInfo});
    cli.add({"db migrate", "bring the database's Pitwall tables to this version's schema", "[--db FILE]",
             "Each migration runs in its own transaction, so an interrupted migration leaves the file as it was.\n"
             "Optuna's tables are kept as they are, so Optuna 3.1 keeps opening the file.",
             {dbOption()}, dbMigrate});
    cli.add({"db export", "export a study's trials or a run's metric series as CSV or JSON",
             "(--study NAME | --run ID) [--format csv|json] [--out FILE] [--db FILE]",
             "Trials: one row per trial with number, state, values, start/complete time, duration, params_<name>\n"
             "and user_attrs_<key> columns. Metrics: run, stage, step, key, value, wall_time.\n"
             "JSON has no infinity: an infinite number is the string \"inf\" or \"-inf\" (as Optuna's storage\n"
             "writes it); a missing value (a failed trial's) is null. CSV writes inf and -inf, and leaves a\n"
             "missing value empty. CSV cells that a spreadsheet would run as a formula start with a quote (').",
             {dbOption(),
              {"study", "NAME", "export this study's trials"},
              {"run", "ID", "export this run's metric series"},
              {"format", "FORMAT", "csv (default) or json"},
              {"out", "FILE", "write here instead of stdout"}},
             dbExport});
}

} // namespace pitwall::cli
