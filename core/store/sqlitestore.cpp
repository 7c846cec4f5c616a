// SqliteStore: opening and validating a file, schema information, migrations, the change counter.
// Studies and trials are in sqlitestore_trials.cpp, runs and the rest in sqlitestore_runs.cpp.

#include "core/store/sqlitestore.h"

#include "core/store/netfs.h"

#include "core/store/internal/migrations.h"
#include "core/store/internal/sqlite.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace pitwall {

using store_internal::Connection;
using store_internal::ConnectionMode;
using store_internal::SqliteError;

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

SqliteStore::SqliteStore(const std::string& path, OpenMode mode, AutoMigrate autoMigrate) : m_path(path), m_mode(mode)
{
    namespace fs = std::filesystem;
    std::error_code error;
    const bool exists = fs::exists(path, error);
    if (mode == OpenMode::ReadOnly && !exists)
        throw InputError(path + ": no such results database");
    if (exists && fs::is_directory(path, error))
        throw InputError(path + ": is a directory, not a results database");
    if (mode == OpenMode::ReadWrite && !exists)
        optunaSchemaForNewFiles(); // a bad $PITWALL_OPTUNA_SCHEMA is refused before the file is made
    // A file that is not SQLite is found by SQLite itself (SQLITE_NOTADB below), never by opening it here: closing
    // any descriptor of the file drops every POSIX lock this process holds on it, so another connection of this
    // process would lose its shared lock and a second process could delete the WAL under it (lost commits).

    try {
        m_db = mode == OpenMode::ReadOnly ? store_internal::openReadableConnection(path)
                                          : std::make_unique<Connection>(path, ConnectionMode::ReadWriteCreate);
        if (mode == OpenMode::ReadWrite && exists)
            m_db->retrying([&] { store_internal::checkNotDamaged(*m_db); }); // never write into a damaged file
        const auto tables = store_internal::tableNames(*m_db);
        const bool optunaLayout = contains(tables, "studies") && contains(tables, "trials");
        const bool pitwallLayout = contains(tables, kPitwallVersionTable);
        if (!tables.empty() && !optunaLayout && !pitwallLayout)
            throw InputError(path + ": an SQLite database, but neither a Pitwall nor an Optuna results database " +
                             "(its tables: " + join(tables, ", ") + ")");
        if (tables.empty() && mode == OpenMode::ReadOnly)
            throw InputError(path + ": an empty database, not a results database yet");

        warnIfNetworkFileSystem(path);
        m_pitwallVersion = store_internal::pitwallSchemaVersion(*m_db);
        if (m_pitwallVersion > latestPitwallSchemaVersion())
            throw InputError(path + ": written by a newer Pitwall (schema " + std::to_string(m_pitwallVersion) +
                             ", this build knows " + std::to_string(latestPitwallSchemaVersion()) + ")");

        if (mode == OpenMode::ReadWrite) {
            // WAL lets readers work while one writer commits; NORMAL sync is durable enough in WAL (a power
            // cut may lose the last commits, never corrupt the file).
            m_db->retrying([&] { m_db->exec("PRAGMA journal_mode=WAL"); });
            m_db->exec("PRAGMA synchronous=NORMAL");
            // Many writers at once keep the WAL from restarting (each is also a reader), so it can grow to tens of
            // megabytes in a burst; when it next restarts, it is cut back to this size instead of staying that large
            // for as long as any connection (a window, a worker) keeps the file open.
            m_db->exec("PRAGMA journal_size_limit=" + std::to_string(kWalSizeLimitBytes));
            store_internal::ensureOptunaSchema(*m_db);
            if (autoMigrate == AutoMigrate::Yes)
                migrate();
        }
    } catch (const SqliteError& sqliteError) {
        if (sqliteError.primaryCode() == SQLITE_NOTADB)
            throw InputError(path + ": not an SQLite file, so not a Pitwall or Optuna results database");
        if (mode == OpenMode::ReadWrite)
            store_internal::throwIfDamaged(path, sqliteError);
        // A file that cannot be opened, or written by a command that writes: the user can act on it.
        if (sqliteError.primaryCode() == SQLITE_CANTOPEN || sqliteError.primaryCode() == SQLITE_READONLY)
            throw InputError(sqliteError.what()); // "PATH: opening the results database failed: ..."
        throw;
    }
}

SqliteStore::~SqliteStore() = default;

int SqliteStore::migrate()
{
    return migrateTo(latestPitwallSchemaVersion());
}

int SqliteStore::migrateTo(int version)
{
    requireWritable();
    const int applied = store_internal::applyPitwallMigrations(*m_db, std::min(version, latestPitwallSchemaVersion()));
    m_pitwallVersion = store_internal::pitwallSchemaVersion(*m_db);
    return applied;
}

bool SqliteStore::convertOptunaSchema(OptunaSchema schema)
{
    requireWritable();
    try {
        return store_internal::convertOptunaSchema(*m_db, schema);
    } catch (const InputError& e) {
        throw InputError(m_path + ": " + e.what());
    }
}

SchemaInfo SqliteStore::info()
{
    SchemaInfo info;
    info.backend = "sqlite";
    info.location = m_path;
    info.latestPitwallSchemaVersion = latestPitwallSchemaVersion();
    m_db->read([&] {
        m_pitwallVersion = store_internal::pitwallSchemaVersion(*m_db);
        info.pitwallSchemaVersion = m_pitwallVersion;
        const auto tables = store_internal::tableNames(*m_db);
        auto count = [&](const char* table) -> std::int64_t {
            if (!contains(tables, table))
                return 0;
            auto statement = m_db->prepare(std::string("SELECT COUNT(*) FROM ") + table);
            statement.step();
            return statement.int64(0);
        };
        if (contains(tables, "version_info")) {
            auto version = m_db->prepare("SELECT schema_version, library_version FROM version_info");
            if (version.step()) {
                if (auto schema = version.optionalInt64(0))
                    info.optunaSchemaVersion = static_cast<int>(*schema);
                info.optunaLibraryVersion = version.text(1);
            }
        }
        if (contains(tables, "alembic_version")) {
            auto alembic = m_db->prepare("SELECT version_num FROM alembic_version");
            if (alembic.step())
                info.alembicVersion = alembic.text(0);
        }
        info.studies = count("studies");
        info.trials = count("trials");
        info.runs = count("pitwall_runs");
        info.metricRows = count("pitwall_metrics");
        auto journal = m_db->prepare("PRAGMA journal_mode");
        if (journal.step())
            info.journalMode = journal.text(0);
    });
    std::error_code error;
    const auto bytes = std::filesystem::file_size(m_path, error);
    info.fileBytes = error ? 0 : static_cast<std::int64_t>(bytes);
    return info;
}

std::int64_t SqliteStore::changeCounter()
{
    // data_version moves when another connection commits; our own commits are counted by the connection.
    return m_db->retrying([&] {
        auto statement = m_db->cached("PRAGMA data_version");
        statement.step();
        return statement.int64(0) + m_db->commitCount();
    });
}

void SqliteStore::requireSameDatabase()
{
    m_db->requireSameFile();
}

void SqliteStore::requireWritable() const
{
    if (m_mode == OpenMode::ReadOnly)
        throw InputError(m_path + ": the results database is open read-only");
}

bool SqliteStore::hasPitwallTables()
{
    if (m_pitwallVersion == 0)
        m_pitwallVersion = store_internal::pitwallSchemaVersion(*m_db);
    return m_pitwallVersion > 0;
}

void SqliteStore::requirePitwallTables()
{
    requireWritable();
    if (!hasPitwallTables())
        throw InputError(m_path + ": has no Pitwall tables yet (Pitwall schema 0); open it read-write to migrate");
}

} // namespace pitwall
