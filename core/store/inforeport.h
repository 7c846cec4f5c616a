#pragma once
// What `pitwall db info` reports about a results database (schema versions, contents, its studies), as JSON and
// as text, and the export formats by name: for the CLI and the window alike.

#include "core/store/export.h"
#include "core/store/records.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// backend, location, the Pitwall and Optuna schema versions, pending_migrations, journal_mode, file_bytes, the
// row counts and study_list (name, trials, complete, pruned, failed, running, best_value per study).
nlohmann::json databaseInfoJson(const SchemaInfo& info, const std::vector<StudySummary>& studies);
// The same as labelled lines, a hint to run 'pitwall db migrate' when migrations are pending, and a table of the
// studies when there are any.
std::string databaseInfoText(const SchemaInfo& info, const std::vector<StudySummary>& studies);

// "csv" or "json"; nullopt for any other text.
std::optional<ExportFormat> parseExportFormat(const std::string& name);

} // namespace pitwall
