// pitwall db info | migrate | export | copy
#include "app/cli/cli.h"

#include "core/store/inforeport.h"
#include "core/store/optunaschema.h"
#include "core/store/storecopy.h"
#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/strings.h"

#include <iostream>
#include <sstream>

namespace pitwall::cli {

namespace {

int dbInfo(const Args& args)
{
    const auto store = openStore(args.database(), OpenMode::ReadOnly);
    const SchemaInfo info = store->info();
    const std::vector<StudySummary> studies = store->listStudies();
    return printReport(args, databaseInfoJson(info, studies), databaseInfoText(info, studies));
}

int dbMigrate(const Args& args)
{
    std::optional<OptunaSchema> optuna;
    if (const auto text = args.value("optuna-schema")) {
        optuna = parseOptunaSchema(*text);
        if (!optuna)
            throw InputError("--optuna-schema '" + *text + "': give 3.1 (Optuna 3.1's tables, Debian 12's Optuna) or "
                             "3.2 (those of every Optuna since 3.2)");
    }
    const auto store = openStore(args.database(), OpenMode::ReadWrite);
    const int applied = store->migrate(); // openStore already migrated a file it created
    const bool converted = optuna && store->convertOptunaSchema(*optuna);
    const SchemaInfo info = store->info();
    std::cout << info.location << ": pitwall schema " << info.pitwallSchemaVersion << " (" << applied
              << " migration(s) applied now)\n";
    if (optuna)
        std::cout << info.location << ": Optuna's tables at revision " << optunaSchemaName(*optuna) << " (alembic "
                  << info.alembicVersion << (converted ? ", converted now" : ", as they were") << ")\n";
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

    // With --out the export is built in memory and then replaces the file whole (a full disk leaves the old file,
    // and says so); without, it streams to stdout, which the command line checks before it exits.
    const auto path = args.value("out");
    std::ostringstream text;
    std::ostream* out = path ? static_cast<std::ostream*>(&text) : &std::cout;
    if (study) {
        exportStudyTrials(*store, *study, *format, *out);
    } else {
        const auto id = parseInteger(*run);
        if (!id || *id <= 0)
            throw InputError("--run '" + *run + "' is not a run id (a positive integer)");
        exportRunMetrics(*store, *id, *format, *out);
    }
    if (path)
        writeFileAtomically(*path, text.str());
    out->flush();
    if (!*out)
        throw RuntimeError("writing the export failed");
    return kExitOk;
}

int dbCopy(const Args& args)
{
    const auto fromLocation = args.value("from");
    const auto toLocation = args.value("to");
    if (!fromLocation || !toLocation)
        throw InputError("give both --from LOCATION (the store to copy) and --to LOCATION (where to copy it)");
    const auto from = openStore(*fromLocation, OpenMode::ReadOnly);
    const auto to = openStore(*toLocation, OpenMode::ReadWrite);
    if (from->location() == to->location())
        throw InputError("--from and --to name the same database (" + to->location() + ")");
    const auto report = copyStore(*from, *to, args.value("study"));
    std::cout << "copied " << report.studies << " stud" << (report.studies == 1 ? "y" : "ies") << " ("
              << report.trials << " trials), " << report.runs << " run(s) with " << report.metricRows
              << " metric row(s), " << report.events << " event(s) and " << report.artifacts << " artifact(s), and "
              << report.benchmarks << " benchmark result(s) from " << from->location() << " to " << to->location()
              << "\n";
    return kExitOk;
}

} // namespace

void addDbCommands(Cli& cli)
{
    cli.add({.path = "db info", .options = {dbOption(), jsonOption()}, .run = dbInfo});
    cli.add({.path = "db migrate",
             .options = {dbOption(),
                         {"optuna-schema", "3.1|3.2",
                          "convert Optuna's tables to this revision: 3.1 for Debian 12's Optuna, 3.2 for every "
                          "Optuna since 3.2"}},
             .run = dbMigrate});
    cli.add({.path = "db export",
             .options = {dbOption(),
                         {"study", "NAME", "export this study's trials"},
                         {"run", "ID", "export this run's metric series"},
                         {"format", "FORMAT", "csv (default) or json"},
                         {"out", "FILE", "write here instead of stdout"}},
             .run = dbExport});
    cli.add({.path = "db copy",
             .options = {{"from", "LOCATION", "the store to copy from (a file path, sqlite:///path or postgresql://...)"},
                         {"to", "LOCATION", "the store to copy into (created when it is a new file or empty database)"},
                         {"study", "NAME", "copy only this study and the runs of its trials"}},
             .run = dbCopy});
}

} // namespace pitwall::cli
