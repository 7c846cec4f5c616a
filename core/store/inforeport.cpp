#include "core/store/inforeport.h"

#include "core/report/table.h"
#include "core/util/strings.h"

namespace pitwall {

nlohmann::json databaseInfoJson(const SchemaInfo& info, const std::vector<StudySummary>& studies)
{
    nlohmann::json out{{"backend", info.backend},
                       {"location", info.location},
                       {"pitwall_schema_version", info.pitwallSchemaVersion},
                       {"latest_pitwall_schema_version", info.latestPitwallSchemaVersion},
                       {"pending_migrations", info.latestPitwallSchemaVersion - info.pitwallSchemaVersion},
                       {"optuna_schema_version",
                        info.optunaSchemaVersion ? nlohmann::json(*info.optunaSchemaVersion) : nlohmann::json(nullptr)},
                       {"optuna_library_version", info.optunaLibraryVersion},
                       {"alembic_version", info.alembicVersion},
                       {"journal_mode", info.journalMode},
                       {"file_bytes", info.fileBytes},
                       {"studies", info.studies},
                       {"trials", info.trials},
                       {"runs", info.runs},
                       {"metric_rows", info.metricRows},
                       {"study_list", nlohmann::json::array()}};
    for (const StudySummary& s : studies)
        out["study_list"].push_back({{"name", s.study.name},
                                     {"trials", s.total()},
                                     {"complete", s.complete},
                                     {"pruned", s.pruned},
                                     {"failed", s.failures()},
                                     {"interrupted", s.interrupted},
                                     {"running", s.running},
                                     {"best_value", jsonNumber(s.bestValue)}});
    return out;
}

std::string databaseInfoText(const SchemaInfo& info, const std::vector<StudySummary>& studies)
{
    std::string text = "database:        " + info.location + " (" + info.backend + ", " +
                       formatBytes(static_cast<double>(info.fileBytes)) + ", journal " + info.journalMode + ")\n";
    text += "pitwall schema:  " + std::to_string(info.pitwallSchemaVersion) + " of " +
            std::to_string(info.latestPitwallSchemaVersion);
    if (info.pitwallSchemaVersion < info.latestPitwallSchemaVersion)
        text += "  (" + std::to_string(info.latestPitwallSchemaVersion - info.pitwallSchemaVersion) +
                " migration(s) pending: run 'pitwall db migrate')";
    text += "\noptuna schema:   " +
            (info.optunaSchemaVersion ? std::to_string(*info.optunaSchemaVersion) + " (library " +
                                            info.optunaLibraryVersion + ", alembic " + info.alembicVersion + ")"
                                      : std::string("none")) +
            "\n";
    text += "contents:        " + std::to_string(info.studies) + " studies, " + std::to_string(info.trials) +
            " trials, " + std::to_string(info.runs) + " runs, " + std::to_string(info.metricRows) + " metric rows\n";
    if (!studies.empty()) {
        Table table({"study", "trials", "complete", "pruned", "failed", "interrupted", "running", "best"});
        for (const StudySummary& s : studies)
            table.addRow({s.study.name, std::to_string(s.total()), std::to_string(s.complete), std::to_string(s.pruned),
                          std::to_string(s.failures()), std::to_string(s.interrupted), std::to_string(s.running),
                          s.bestValue ? formatFixed(*s.bestValue, 6) : "-"});
        text += "\n" + table.toText();
    }
    return text;
}

std::optional<ExportFormat> parseExportFormat(const std::string& name)
{
    if (name == "csv")
        return ExportFormat::Csv;
    if (name == "json")
        return ExportFormat::Json;
    return std::nullopt;
}

} // namespace pitwall
