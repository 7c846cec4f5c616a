#pragma once
// Schema of the SQLite backend: Optuna's tables (created exactly as Optuna's SQLAlchemy models create them, at
// the revision core/store/optunaschema.h chooses, so Optuna opens a Pitwall file without an upgrade) and Pitwall's
// own tables, which grow through numbered migrations recorded in pitwall_schema_version.

#include "core/store/optunaschema.h"

#include <string>
#include <vector>

namespace pitwall {
namespace store_internal {
class Connection;
}

// What Optuna writes into version_info.schema_version (the same from 3.0 to 5.1).
inline constexpr int kOptunaSchemaVersion = 12;

inline constexpr const char* kPitwallVersionTable = "pitwall_schema_version";

struct Migration {
    int version;             // 1, 2, ... in order
    std::string description; // one line, stored with the version
    std::string sql;         // statements run in one transaction
};

// Every Pitwall migration, oldest first.
const std::vector<Migration>& pitwallMigrations();
int latestPitwallSchemaVersion();

namespace store_internal {

// Names of all tables in the file (not indexes).
std::vector<std::string> tableNames(Connection& db);

// Creates Optuna's tables, indexes and version rows at the revision optunaSchemaForNewFiles() gives when the file
// has none, in one write transaction. Returns true when it created them.
bool ensureOptunaSchema(Connection& db);

// Converts the file's Optuna tables to `schema` in one write transaction: the index on trials.study_id created or
// dropped, alembic_version and version_info's library_version set as that Optuna writes them. Returns whether
// anything changed. InputError (nothing changed) for a file without Optuna's tables or at a revision of another
// Optuna (a newer one's, which its own `optuna storage upgrade` wrote).
bool convertOptunaSchema(Connection& db, OptunaSchema schema);

// Highest applied Pitwall migration, 0 when the version table does not exist.
int pitwallSchemaVersion(Connection& db);

// Applies the migrations after the current version up to `targetVersion`, each in its own write transaction
// that re-reads the version first (another process may be migrating the same file). Returns how many this
// call applied.
int applyPitwallMigrations(Connection& db, int targetVersion);

} // namespace store_internal
} // namespace pitwall
