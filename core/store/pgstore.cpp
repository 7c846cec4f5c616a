// PgStore: connecting and checking a database, schema information, the change counter, studies, and Pitwall's own
// tables (runs, metric series, events, artifacts, benchmarks). Trials are in pgstore_trials.cpp.

#include "core/store/pgstore.h"

#include "core/store/pglocation.h"

#include "core/store/besttrial.h"
#include "core/store/internal/joblinks.h"
#include "core/store/internal/migrations.h"
#include "core/store/internal/pgschema.h"
#include "core/store/internal/pq.h"
#include "core/store/internal/pyjson.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <algorithm>

namespace pitwall {

using store_internal::PqConnection;
using store_internal::PqError;
using store_internal::PqParam;
using store_internal::PqResult;

namespace {

bool contains(const std::vector<std::string>& names, const char* name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string quoted(const std::string& text)
{
    return "'" + text + "'";
}

// The advisory lock of the tables that readers follow by id ("PWCU"): see pgstore.h.
constexpr std::int64_t kCursorLock = 0x50574355;

} // namespace

bool pgDatabaseHasTables(const std::string& location)
{
    try {
        const auto db = store_internal::sharedPqConnection(postgresConninfo(location), redactedLocation(location));
        return !db->transaction([&] { return store_internal::pgTableNames(*db); }).empty();
    } catch (const PqError& error) {
        throw InputError(error.what());
    }
}

PgStore::PgStore(const std::string& location, OpenMode mode) : m_display(redactedLocation(location)), m_mode(mode)
{
    const std::string conninfo = postgresConninfo(location);
    if (mode == OpenMode::ReadWrite)
        optunaSchemaForNewFiles(); // a bad $PITWALL_OPTUNA_SCHEMA is refused before anything is made
    try {
        m_db = store_internal::sharedPqConnection(conninfo, m_display);
    } catch (const PqError& error) {
        throw InputError(error.what()); // a wrong host, user, password or database: the user can act on it
    }
    const auto tables = m_db->transaction([&] { return store_internal::pgTableNames(*m_db); });
    const bool optunaLayout = contains(tables, "studies") && contains(tables, "trials");
    const bool pitwallLayout = contains(tables, kPitwallVersionTable);
    if (!tables.empty() && !optunaLayout && !pitwallLayout)
        throw InputError(m_display + ": a PostgreSQL database, but neither a Pitwall nor an Optuna results database " +
                         "(its tables: " + join(tables, ", ") + ")");
    if (tables.empty() && mode == OpenMode::ReadOnly)
        throw InputError(m_display + ": an empty database, not a results database yet");
    const int version = m_db->transaction([&] { return store_internal::pgPitwallSchemaVersion(*m_db); });
    if (version > latestPitwallSchemaVersion())
        throw InputError(m_display + ": written by a newer Pitwall (schema " + std::to_string(version) +
                         ", this build knows " + std::to_string(latestPitwallSchemaVersion()) + ")");
    if (mode == OpenMode::ReadWrite)
        store_internal::ensurePgSchema(*m_db);
    m_pitwallTables = m_db->transaction([&] { return store_internal::pgPitwallSchemaVersion(*m_db); }) > 0;
    measureClock();
}

PgStore::~PgStore() = default;

double PgStore::now()
{
    constexpr double kRemeasureSeconds = 60;
    if (m_offsetMeasured < 0 || nowSeconds() - m_offsetMeasured > kRemeasureSeconds)
        measureClock();
    return serverClock();
}

double PgStore::serverClock() const
{
    return nowSeconds() + m_clockOffset;
}

void PgStore::measureClock()
{
    m_db->transaction([&] {
        // The server's reading is taken half way through the round trip, as far as this side can tell.
        const double before = nowSeconds();
        const double server =
            m_db->exec("SELECT EXTRACT(EPOCH FROM clock_timestamp())", {}, "reading the server's clock").real(0, 0);
        const double after = nowSeconds();
        m_clockOffset = server - (before + after) / 2;
        m_offsetMeasured = after;
    });
}

void PgStore::requireWritable() const
{
    if (m_mode == OpenMode::ReadOnly)
        throw InputError(m_display + ": the results database is open read-only");
}

void PgStore::requirePitwallTables()
{
    requireWritable();
    if (!m_pitwallTables)
        m_pitwallTables = m_db->transaction([&] { return store_internal::pgPitwallSchemaVersion(*m_db); }) > 0;
    if (!m_pitwallTables)
        throw InputError(m_display + ": has no Pitwall tables yet; open it read-write to create them");
}

void PgStore::lockCursorTables()
{
    m_db->exec("SELECT pg_advisory_xact_lock($1)", {kCursorLock}, "waiting for other writers");
}

int PgStore::migrate()
{
    requireWritable();
    const bool created = store_internal::ensurePgSchema(*m_db);
    const int version = m_db->transaction([&] { return store_internal::pgPitwallSchemaVersion(*m_db); });
    if (version < latestPitwallSchemaVersion())
        throw InputError(m_display + ": Pitwall schema " + std::to_string(version) + "; this build creates schema " +
                         std::to_string(latestPitwallSchemaVersion()) +
                         " and has no migrations for PostgreSQL databases of older schemas");
    m_pitwallTables = true;
    return created ? latestPitwallSchemaVersion() : 0;
}

bool PgStore::convertOptunaSchema(OptunaSchema schema)
{
    requireWritable();
    return m_db->transaction([&] {
        const auto current = m_db->exec("SELECT version_num FROM alembic_version", {}, "reading Optuna's revision");
        const std::string revision = current.rows() > 0 ? current.text(0, 0) : std::string();
        if (!optunaSchemaOfRevision(revision))
            throw InputError(m_display + ": Optuna's tables are at revision '" + revision +
                             "', which Pitwall does not convert");
        if (revision == optunaAlembicRevision(schema))
            return false;
        m_db->exec(schema == OptunaSchema::V3_2 ? "CREATE INDEX IF NOT EXISTS ix_trials_study_id ON trials (study_id)"
                                                : "DROP INDEX IF EXISTS ix_trials_study_id",
                   {}, "converting Optuna's tables");
        m_db->exec("UPDATE alembic_version SET version_num = $1", {optunaAlembicRevision(schema)},
                   "converting Optuna's tables");
        m_db->exec("UPDATE version_info SET library_version = $1", {schema == OptunaSchema::V3_1 ? "3.1.0" : "3.2.0"},
                   "converting Optuna's tables");
        return true;
    });
}

SchemaInfo PgStore::info()
{
    SchemaInfo info;
    info.backend = "postgresql";
    info.location = m_display;
    info.latestPitwallSchemaVersion = latestPitwallSchemaVersion();
    m_db->transaction([&] {
        info.pitwallSchemaVersion = store_internal::pgPitwallSchemaVersion(*m_db);
        const auto tables = store_internal::pgTableNames(*m_db);
        auto count = [&](const char* table) -> std::int64_t {
            if (!contains(tables, table))
                return 0;
            return m_db->exec(std::string("SELECT COUNT(*) FROM ") + table, {}, "counting rows").int64(0, 0);
        };
        if (contains(tables, "version_info")) {
            const auto version = m_db->exec("SELECT schema_version, library_version FROM version_info");
            if (version.rows() > 0) {
                if (auto schema = version.optionalInt64(0, 0))
                    info.optunaSchemaVersion = static_cast<int>(*schema);
                info.optunaLibraryVersion = version.text(0, 1);
            }
        }
        if (contains(tables, "alembic_version")) {
            const auto alembic = m_db->exec("SELECT version_num FROM alembic_version");
            if (alembic.rows() > 0)
                info.alembicVersion = alembic.text(0, 0);
        }
        info.studies = count("studies");
        info.trials = count("trials");
        info.runs = count("pitwall_runs");
        info.metricRows = count("pitwall_metrics");
        info.fileBytes = m_db->exec("SELECT pg_database_size(current_database())").int64(0, 0);
    });
    return info;
}

std::int64_t PgStore::changeCounter()
{
    // The server's snapshot moves with every commit or abort of a transaction that wrote, on any connection of any
    // machine: its xmax (one past the latest completed transaction) grows, or, when an older transaction completes,
    // its list of running transactions shrinks. Neither goes back, so this number only grows. Reads assign no
    // transaction id and leave it alone.
    return m_db->transaction([&] {
        const auto result = m_db->exec("SELECT pg_snapshot_xmax(s)::text::bigint, "
                                       "(SELECT COUNT(*) FROM pg_snapshot_xip(s)) FROM pg_current_snapshot() s",
                                       {}, "reading the change counter");
        const std::int64_t running = std::min<std::int64_t>(result.int64(0, 1), 65535);
        return result.int64(0, 0) * 65536 + (65535 - running);
    });
}

// --- studies -----------------------------------------------------------------------------------------------

std::int64_t PgStore::createStudy(const std::string& name, const std::vector<StudyDirection>& directions)
{
    requireWritable();
    if (name.empty())
        throw InputError("a study needs a name");
    if (directions.empty())
        throw InputError("study " + quoted(name) + " needs at least one direction");
    const std::string taken = m_display + ": a study named " + quoted(name) + " already exists";
    try {
        return m_db->transaction([&] {
            if (m_db->exec("SELECT study_id FROM studies WHERE study_name = $1", {name}, "finding the study").rows())
                throw InputError(taken);
            const std::int64_t studyId = m_db->exec("INSERT INTO studies (study_name) VALUES ($1) RETURNING study_id",
                                                    {name}, "adding the study")
                                             .int64(0, 0);
            for (std::size_t objective = 0; objective < directions.size(); ++objective)
                m_db->exec("INSERT INTO study_directions (direction, study_id, objective) VALUES ($1, $2, $3)",
                           {studyDirectionName(directions[objective]), studyId, static_cast<std::int64_t>(objective)},
                           "adding the study's directions");
            store_internal::linkCurrentJob(*m_db, "study", name);
            return studyId;
        });
    } catch (const PqError& error) {
        if (error.sqlState() == "23505") // another process created it since the check
            throw InputError(taken);
        throw;
    }
}

std::vector<StudyDirection> PgStore::directionsOf(std::int64_t studyId)
{
    const auto result = m_db->exec("SELECT direction FROM study_directions WHERE study_id = $1 ORDER BY objective",
                                   {studyId}, "reading the study's directions");
    std::vector<StudyDirection> directions;
    for (int row = 0; row < result.rows(); ++row)
        directions.push_back(parseStudyDirection(result.text(row, 0)).value_or(StudyDirection::Minimize));
    return directions;
}

void PgStore::readStudyAttrs(StudyRecord& study)
{
    study.directions = directionsOf(study.id);
    const auto user = m_db->exec("SELECT key, value_json FROM study_user_attributes WHERE study_id = $1", {study.id},
                                 "reading the study's attributes");
    for (int row = 0; row < user.rows(); ++row)
        study.userAttrs[user.text(row, 0)] = store_internal::decodeStoredJson(user.text(row, 1));
    const auto system = m_db->exec("SELECT key, value_json FROM study_system_attributes WHERE study_id = $1",
                                   {study.id}, "reading the study's attributes");
    for (int row = 0; row < system.rows(); ++row)
        study.systemAttrs[system.text(row, 0)] = store_internal::decodeStoredJson(system.text(row, 1));
}

std::optional<StudyRecord> PgStore::findStudy(const std::string& name)
{
    return m_db->transaction([&]() -> std::optional<StudyRecord> {
        const auto found =
            m_db->exec("SELECT study_id FROM studies WHERE study_name = $1", {name}, "finding the study");
        if (found.rows() == 0)
            return std::nullopt;
        StudyRecord study;
        study.id = found.int64(0, 0);
        study.name = name;
        readStudyAttrs(study);
        return study;
    });
}

void PgStore::upsertAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                         const Json& value)
{
    const bool study = std::string_view(ownerColumn) == "study_id";
    const std::string owner =
        std::string("SELECT 1 FROM ") + (study ? "studies" : "trials") + " WHERE " + ownerColumn + " = $1";
    if (m_db->exec(owner, {ownerId}, "finding the attribute's owner").rows() == 0)
        throw InputError(m_display + ": no " + (study ? "study" : "trial") + " with id " + std::to_string(ownerId));
    m_db->exec(std::string("INSERT INTO ") + table + " (" + ownerColumn + ", key, value_json) VALUES ($1, $2, $3) " +
                   "ON CONFLICT (" + ownerColumn + ", key) DO UPDATE SET value_json = excluded.value_json",
               {ownerId, key, store_internal::pythonJsonDumps(value)}, "setting an attribute");
}

void PgStore::setAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                      const Json& value)
{
    requireWritable();
    m_db->transaction([&] {
        const bool trial = std::string_view(ownerColumn) == "trial_id";
        if (trial && m_pitwallTables)
            lockCursorTables();
        upsertAttr(table, ownerColumn, ownerId, key, value);
        // A finished trial changed: readers that keep trials (core/store/trialcache.h) learn it from here.
        if (trial && m_pitwallTables && store_internal::isFinished(trialRow(ownerId, false).state))
            m_db->exec("INSERT INTO pitwall_trial_revisions (trial_id) VALUES ($1)", {ownerId},
                       "recording the trial's revision");
    });
}

void PgStore::setStudyUserAttr(std::int64_t studyId, const std::string& key, const Json& value)
{
    setAttr("study_user_attributes", "study_id", studyId, key, value);
}

void PgStore::setStudySystemAttr(std::int64_t studyId, const std::string& key, const Json& value)
{
    setAttr("study_system_attributes", "study_id", studyId, key, value);
}

void PgStore::setTrialUserAttr(std::int64_t trialId, const std::string& key, const Json& value)
{
    setAttr("trial_user_attributes", "trial_id", trialId, key, value);
}

void PgStore::setTrialSystemAttr(std::int64_t trialId, const std::string& key, const Json& value)
{
    setAttr("trial_system_attributes", "trial_id", trialId, key, value);
}

} // namespace pitwall
