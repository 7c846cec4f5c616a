#pragma once
// Schema of the PostgreSQL backend: Optuna's tables as Optuna's SQLAlchemy models create them on PostgreSQL (enum
// types, serial ids, constraint names), at the revision optunaSchemaForNewFiles() gives, and Pitwall's tables at the
// latest Pitwall schema, its versions recorded in pitwall_schema_version as the SQLite backend records them.

#include <string>
#include <vector>

namespace pitwall::store_internal {

class PqConnection;

// Tables of the database's current schema, by name.
std::vector<std::string> pgTableNames(PqConnection& db);

// Highest recorded Pitwall schema version; 0 without the version table.
int pgPitwallSchemaVersion(PqConnection& db);

// Creates what is missing in one transaction under an advisory lock (many workers may open a new database at once):
// Optuna's tables when the database has none, Pitwall's when it has no pitwall_schema_version. Returns whether it
// created anything. The caller has checked that the database holds no foreign tables.
bool ensurePgSchema(PqConnection& db);

} // namespace pitwall::store_internal
