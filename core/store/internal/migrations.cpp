#include "core/store/internal/migrations.h"

#include "core/store/internal/sqlite.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <algorithm>

namespace pitwall {

namespace {

// Verbatim from `sqlite3 FILE .schema` of a database created by Optuna 3.1.0 (revision 3.1) (SQLAlchemy's DDL, including its
// tabs and the space before each line break), in Optuna's creation order. Written with escapes so that editors
// keep it byte-identical: tests compare sqlite_master against a file Optuna creates.
const char* const kOptunaSchemaSql = "CREATE TABLE studies (\n"
                                     "\tstudy_id INTEGER NOT NULL, \n"
                                     "\tstudy_name VARCHAR(512) NOT NULL, \n"
                                     "\tPRIMARY KEY (study_id)\n"
                                     ");\n"
                                     "CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name);\n"
                                     "CREATE TABLE version_info (\n"
                                     "\tversion_info_id INTEGER NOT NULL, \n"
                                     "\tschema_version INTEGER, \n"
                                     "\tlibrary_version VARCHAR(256), \n"
                                     "\tPRIMARY KEY (version_info_id), \n"
                                     "\tCHECK (version_info_id=1)\n"
                                     ");\n"
                                     "CREATE TABLE study_directions (\n"
                                     "\tstudy_direction_id INTEGER NOT NULL, \n"
                                     "\tdirection VARCHAR(8) NOT NULL, \n"
                                     "\tstudy_id INTEGER NOT NULL, \n"
                                     "\tobjective INTEGER NOT NULL, \n"
                                     "\tPRIMARY KEY (study_direction_id), \n"
                                     "\tUNIQUE (study_id, objective), \n"
                                     "\tFOREIGN KEY(study_id) REFERENCES studies (study_id)\n"
                                     ");\n"
                                     "CREATE TABLE study_user_attributes (\n"
                                     "\tstudy_user_attribute_id INTEGER NOT NULL, \n"
                                     "\tstudy_id INTEGER, \n"
                                     "\t\"key\" VARCHAR(512), \n"
                                     "\tvalue_json TEXT, \n"
                                     "\tPRIMARY KEY (study_user_attribute_id), \n"
                                     "\tUNIQUE (study_id, \"key\"), \n"
                                     "\tFOREIGN KEY(study_id) REFERENCES studies (study_id)\n"
                                     ");\n"
                                     "CREATE TABLE study_system_attributes (\n"
                                     "\tstudy_system_attribute_id INTEGER NOT NULL, \n"
                                     "\tstudy_id INTEGER, \n"
                                     "\t\"key\" VARCHAR(512), \n"
                                     "\tvalue_json TEXT, \n"
                                     "\tPRIMARY KEY (study_system_attribute_id), \n"
                                     "\tUNIQUE (study_id, \"key\"), \n"
                                     "\tFOREIGN KEY(study_id) REFERENCES studies (study_id)\n"
                                     ");\n"
                                     "CREATE TABLE trials (\n"
                                     "\ttrial_id INTEGER NOT NULL, \n"
                                     "\tnumber INTEGER, \n"
                                     "\tstudy_id INTEGER, \n"
                                     "\tstate VARCHAR(8) NOT NULL, \n"
                                     "\tdatetime_start DATETIME, \n"
                                     "\tdatetime_complete DATETIME, \n"
                                     "\tPRIMARY KEY (trial_id), \n"
                                     "\tFOREIGN KEY(study_id) REFERENCES studies (study_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_user_attributes (\n"
                                     "\ttrial_user_attribute_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER, \n"
                                     "\t\"key\" VARCHAR(512), \n"
                                     "\tvalue_json TEXT, \n"
                                     "\tPRIMARY KEY (trial_user_attribute_id), \n"
                                     "\tUNIQUE (trial_id, \"key\"), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_system_attributes (\n"
                                     "\ttrial_system_attribute_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER, \n"
                                     "\t\"key\" VARCHAR(512), \n"
                                     "\tvalue_json TEXT, \n"
                                     "\tPRIMARY KEY (trial_system_attribute_id), \n"
                                     "\tUNIQUE (trial_id, \"key\"), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_params (\n"
                                     "\tparam_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER, \n"
                                     "\tparam_name VARCHAR(512), \n"
                                     "\tparam_value FLOAT, \n"
                                     "\tdistribution_json TEXT, \n"
                                     "\tPRIMARY KEY (param_id), \n"
                                     "\tUNIQUE (trial_id, param_name), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_values (\n"
                                     "\ttrial_value_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER NOT NULL, \n"
                                     "\tobjective INTEGER NOT NULL, \n"
                                     "\tvalue FLOAT, \n"
                                     "\tvalue_type VARCHAR(7) NOT NULL, \n"
                                     "\tPRIMARY KEY (trial_value_id), \n"
                                     "\tUNIQUE (trial_id, objective), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_intermediate_values (\n"
                                     "\ttrial_intermediate_value_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER NOT NULL, \n"
                                     "\tstep INTEGER NOT NULL, \n"
                                     "\tintermediate_value FLOAT, \n"
                                     "\tintermediate_value_type VARCHAR(7) NOT NULL, \n"
                                     "\tPRIMARY KEY (trial_intermediate_value_id), \n"
                                     "\tUNIQUE (trial_id, step), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE trial_heartbeats (\n"
                                     "\ttrial_heartbeat_id INTEGER NOT NULL, \n"
                                     "\ttrial_id INTEGER NOT NULL, \n"
                                     "\theartbeat DATETIME NOT NULL, \n"
                                     "\tPRIMARY KEY (trial_heartbeat_id), \n"
                                     "\tUNIQUE (trial_id), \n"
                                     "\tFOREIGN KEY(trial_id) REFERENCES trials (trial_id)\n"
                                     ");\n"
                                     "CREATE TABLE alembic_version (\n"
                                     "\tversion_num VARCHAR(32) NOT NULL, \n"
                                     "\tCONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n"
                                     ");\n";

// Revision 3.2 (alembic v3.2.0.a) adds this index, as Optuna's models create it in a new file.
const char* const kTrialsStudyIndexSql = "CREATE INDEX ix_trials_study_id ON trials (study_id)";

// version_info's library_version: the Optuna release that introduced the revision.
const char* libraryVersionOf(OptunaSchema schema) { return schema == OptunaSchema::V3_1 ? "3.1.0" : "3.2.0"; }

// Pitwall's tables. Times are Unix seconds (REAL); Optuna's tables keep Optuna's DATETIME text.
const char* const kMigration1Sql = R"sql(
CREATE TABLE pitwall_runs (
    run_id INTEGER NOT NULL PRIMARY KEY,
    trial_id INTEGER REFERENCES trials (trial_id),
    kind VARCHAR(64) NOT NULL,
    config_yaml TEXT NOT NULL,
    seed INTEGER NOT NULL,
    logical_device VARCHAR(256) NOT NULL,
    host VARCHAR(256) NOT NULL,
    pid INTEGER NOT NULL,
    start_time REAL NOT NULL,
    end_time REAL,
    status VARCHAR(16) NOT NULL,
    exit_code INTEGER,
    message TEXT NOT NULL
);
CREATE INDEX ix_pitwall_runs_trial_id ON pitwall_runs (trial_id);
-- Stage names and metric keys, interned: each metric row stores two small integers instead of two strings.
CREATE TABLE pitwall_metric_names (
    name_id INTEGER NOT NULL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
-- value NULL stands for NaN (SQLite stores no NaN).
CREATE TABLE pitwall_metrics (
    metric_id INTEGER NOT NULL PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES pitwall_runs (run_id),
    stage_id INTEGER NOT NULL REFERENCES pitwall_metric_names (name_id),
    step INTEGER NOT NULL,
    key_id INTEGER NOT NULL REFERENCES pitwall_metric_names (name_id),
    value REAL,
    wall_time REAL NOT NULL
);
CREATE TABLE pitwall_events (
    event_id INTEGER NOT NULL PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES pitwall_runs (run_id),
    time REAL NOT NULL,
    level VARCHAR(16) NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE pitwall_artifacts (
    artifact_id INTEGER NOT NULL PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES pitwall_runs (run_id),
    kind VARCHAR(64) NOT NULL,
    path TEXT NOT NULL,
    description TEXT NOT NULL,
    time REAL NOT NULL
);
CREATE TABLE pitwall_benchmarks (
    benchmark_id INTEGER NOT NULL PRIMARY KEY,
    suite VARCHAR(128) NOT NULL,
    name VARCHAR(256) NOT NULL,
    parameters_json TEXT NOT NULL,
    results_json TEXT NOT NULL,
    host VARCHAR(256) NOT NULL,
    time REAL NOT NULL
);
)sql";

// Indexes for the live views, which read "rows of run R after cursor C" over and over.
const char* const kMigration2Sql = R"sql(
CREATE INDEX ix_pitwall_metrics_run_id ON pitwall_metrics (run_id, metric_id);
CREATE INDEX ix_pitwall_events_run_id ON pitwall_events (run_id, event_id);
CREATE INDEX ix_pitwall_artifacts_run_id ON pitwall_artifacts (run_id);
CREATE INDEX ix_pitwall_benchmarks_suite ON pitwall_benchmarks (suite, benchmark_id);
)sql";

// Jobs: one row per piece of work (a training run, a search, a benchmark, an evaluation) started by the CLI or
// the window, with what is needed to start it again, its state, progress and heartbeat; links name the studies
// and runs it produced.
const char* const kMigration3Sql = R"sql(
CREATE TABLE pitwall_jobs (
    job_id INTEGER NOT NULL PRIMARY KEY,
    kind VARCHAR(32) NOT NULL,
    spec_json TEXT NOT NULL,
    state VARCHAR(16) NOT NULL,
    host VARCHAR(256) NOT NULL,
    pid INTEGER NOT NULL,
    create_time REAL NOT NULL,
    start_time REAL,
    end_time REAL,
    heartbeat_time REAL,
    progress REAL NOT NULL,
    progress_message TEXT NOT NULL,
    eta_seconds REAL,
    exit_code INTEGER,
    error TEXT NOT NULL,
    log_file TEXT NOT NULL
);
CREATE INDEX ix_pitwall_jobs_state ON pitwall_jobs (state, job_id);
CREATE TABLE pitwall_job_links (
    job_id INTEGER NOT NULL REFERENCES pitwall_jobs (job_id),
    kind VARCHAR(16) NOT NULL,
    ref TEXT NOT NULL,
    UNIQUE (job_id, kind, ref)
);
)sql";

// Jobs, continued. process_start: the start time of the job's process (field 22 of /proc/PID/stat, clock ticks
// after boot), recorded with its pid, so that a stop signals that process and never one that reused its pid.
// pitwall_job_ids: the highest job id ever given, so that an id (and its log file) names one job only, even after
// the row of a refused job is removed.
const char* const kMigration4Sql = R"sql(
ALTER TABLE pitwall_jobs ADD COLUMN process_start INTEGER;
CREATE TABLE pitwall_job_ids (
    slot INTEGER NOT NULL PRIMARY KEY CHECK (slot = 1),
    last_job_id INTEGER NOT NULL
);
INSERT INTO pitwall_job_ids (slot, last_job_id) SELECT 1, COALESCE(MAX(job_id), 0) FROM pitwall_jobs;
)sql";

// pitwall_intermediate_values: a study with several objectives reports a vector per step; Optuna's
// trial_intermediate_values keeps the first objective's value (so Optuna still reads the file), this table the others.
const char* const kMigration5Sql = R"sql(
CREATE TABLE pitwall_intermediate_values (
    trial_id INTEGER NOT NULL REFERENCES trials (trial_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    objective INTEGER NOT NULL CHECK (objective >= 1),
    value REAL,
    value_type TEXT NOT NULL,
    PRIMARY KEY (trial_id, step, objective)
);
)sql";

// pitwall_trial_revisions: a row each time Pitwall sets an attribute of a trial that has finished (an evaluation's
// driving score, a failure's reason), so that a reader keeping the trials it read (core/store/trialcache.h) reads
// again only what changed. Optuna never changes a finished trial. Rows are never deleted, so a revision number is
// never given twice (no AUTOINCREMENT: its sqlite_sequence table would make the file's schema differ from Optuna's).
const char* const kMigration6Sql = R"sql(
CREATE TABLE pitwall_trial_revisions (
    revision INTEGER NOT NULL PRIMARY KEY,
    trial_id INTEGER NOT NULL
);
)sql";

const char* const kVersionTableSql = R"sql(
CREATE TABLE IF NOT EXISTS pitwall_schema_version (
    version INTEGER NOT NULL PRIMARY KEY,
    description TEXT NOT NULL,
    applied_time REAL NOT NULL
);
)sql";

} // namespace

const std::vector<Migration>& pitwallMigrations()
{
    static const std::vector<Migration> migrations{
        {1, "runs, metric series, events, artifacts, benchmarks", kMigration1Sql},
        {2, "indexes for reading new rows per run", kMigration2Sql},
        {3, "jobs and the studies and runs they produced", kMigration3Sql},
        {4, "job process start times and job ids that are never reused", kMigration4Sql},
        {5, "intermediate values of every objective of a multi-objective study", kMigration5Sql},
        {6, "revisions of finished trials, for readers that keep the trials they read", kMigration6Sql},
    };
    return migrations;
}

int latestPitwallSchemaVersion()
{
    return pitwallMigrations().back().version;
}

namespace store_internal {

std::vector<std::string> tableNames(Connection& db)
{
    return db.retrying([&] {
        std::vector<std::string> names;
        auto statement = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
        while (statement.step())
            names.push_back(statement.text(0));
        return names;
    });
}

namespace {
bool hasTable(Connection& db, const char* name)
{
    auto statement = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    statement.bind(1, name);
    return statement.step();
}
} // namespace

bool ensureOptunaSchema(Connection& db)
{
    // Checked first without the write lock: most opens find the tables there.
    if (db.retrying([&] { return hasTable(db, "studies"); }))
        return false;
    return db.write([&] {
        if (hasTable(db, "studies"))
            return false;
        const OptunaSchema schema = optunaSchemaForNewFiles();
        db.exec(kOptunaSchemaSql);
        if (schema == OptunaSchema::V3_2)
            db.exec(kTrialsStudyIndexSql);
        auto version =
            db.prepare("INSERT INTO version_info (version_info_id, schema_version, library_version) VALUES (1, ?, ?)");
        version.bind(1, kOptunaSchemaVersion).bind(2, libraryVersionOf(schema)).run();
        auto alembic = db.prepare("INSERT INTO alembic_version (version_num) VALUES (?)");
        alembic.bind(1, optunaAlembicRevision(schema)).run();
        return true;
    });
}

namespace {

// The indexes of trials(study_id) in the file: Optuna's models name it ix_trials_study_id, its v3.2.0.a migration
// (a file upgraded by `optuna storage upgrade`) trials_study_id_key.
std::vector<std::string> trialsStudyIndexes(Connection& db)
{
    std::vector<std::string> names;
    auto statement = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'trials' AND "
                                "name IN ('ix_trials_study_id', 'trials_study_id_key')");
    while (statement.step())
        names.push_back(statement.text(0));
    return names;
}

} // namespace

bool convertOptunaSchema(Connection& db, OptunaSchema schema)
{
    return db.write([&] {
        if (!hasTable(db, "alembic_version") || !hasTable(db, "trials"))
            throw InputError("has no Optuna tables (no alembic_version or trials table)");
        std::string revision;
        {
            // Finished before any DROP INDEX: SQLite refuses to drop while a statement of the connection is active.
            auto current = db.prepare("SELECT version_num FROM alembic_version");
            if (current.step())
                revision = current.text(0);
        }
        const auto from = optunaSchemaOfRevision(revision);
        if (!from)
            throw InputError("Optuna's tables are at alembic revision '" + revision +
                             "', which Pitwall does not convert (it converts v3.0.0.d, Optuna 3.1's, and v3.2.0.a, "
                             "that of every Optuna since 3.2); the file is left as it was");
        const std::vector<std::string> indexes = trialsStudyIndexes(db);
        if (*from == schema && (schema == OptunaSchema::V3_1) == indexes.empty())
            return false;
        if (schema == OptunaSchema::V3_2 && indexes.empty())
            db.exec(kTrialsStudyIndexSql);
        if (schema == OptunaSchema::V3_1)
            for (const std::string& index : indexes)
                db.exec("DROP INDEX \"" + index + "\"");
        auto alembic = db.prepare("UPDATE alembic_version SET version_num = ?");
        alembic.bind(1, optunaAlembicRevision(schema)).run();
        auto version = db.prepare("UPDATE version_info SET library_version = ?");
        version.bind(1, libraryVersionOf(schema)).run();
        return true;
    });
}

namespace {
int readVersion(Connection& db)
{
    if (!hasTable(db, kPitwallVersionTable))
        return 0;
    auto statement = db.prepare("SELECT COALESCE(MAX(version), 0) FROM pitwall_schema_version");
    statement.step();
    return static_cast<int>(statement.int64(0));
}
} // namespace

int pitwallSchemaVersion(Connection& db)
{
    return db.retrying([&] { return readVersion(db); });
}

int applyPitwallMigrations(Connection& db, int targetVersion)
{
    int applied = 0;
    const int current = pitwallSchemaVersion(db);
    for (const auto& migration : pitwallMigrations()) {
        if (migration.version <= current)
            continue; // applied before; the write transaction below re-checks against concurrent migrators
        if (migration.version > targetVersion)
            break;
        const bool didApply = db.write([&] {
            if (readVersion(db) >= migration.version)
                return false;
            db.exec(kVersionTableSql);
            db.exec(migration.sql);
            auto record =
                db.prepare("INSERT INTO pitwall_schema_version (version, description, applied_time) VALUES (?, ?, ?)");
            record.bind(1, migration.version).bind(2, migration.description).bind(3, nowSeconds()).run();
            return true;
        });
        applied += didApply ? 1 : 0;
    }
    return applied;
}

} // namespace store_internal
} // namespace pitwall
