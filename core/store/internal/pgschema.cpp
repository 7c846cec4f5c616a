#include "core/store/internal/pgschema.h"

#include "core/store/internal/migrations.h"
#include "core/store/internal/pq.h"
#include "core/store/optunaschema.h"
#include "core/util/timefmt.h"

#include <algorithm>

namespace pitwall::store_internal {

namespace {

// Optuna 3.1's models on PostgreSQL (pg_dump of a database Optuna created), in creation order.
const char* const kOptunaTablesSql = R"sql(
CREATE TYPE studydirection AS ENUM ('NOT_SET', 'MINIMIZE', 'MAXIMIZE');
CREATE TYPE trialstate AS ENUM ('RUNNING', 'COMPLETE', 'PRUNED', 'FAIL', 'WAITING');
CREATE TYPE trialvaluetype AS ENUM ('FINITE', 'INF_POS', 'INF_NEG');
CREATE TYPE trialintermediatevaluetype AS ENUM ('FINITE', 'INF_POS', 'INF_NEG', 'NAN');
CREATE TABLE studies (
    study_id SERIAL NOT NULL,
    study_name VARCHAR(512) NOT NULL,
    PRIMARY KEY (study_id)
);
CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name);
CREATE TABLE version_info (
    version_info_id INTEGER NOT NULL,
    schema_version INTEGER,
    library_version VARCHAR(256),
    PRIMARY KEY (version_info_id),
    CHECK (version_info_id=1)
);
CREATE TABLE study_directions (
    study_direction_id SERIAL NOT NULL,
    direction studydirection NOT NULL,
    study_id INTEGER NOT NULL,
    objective INTEGER NOT NULL,
    PRIMARY KEY (study_direction_id),
    UNIQUE (study_id, objective),
    FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
CREATE TABLE study_user_attributes (
    study_user_attribute_id SERIAL NOT NULL,
    study_id INTEGER,
    key VARCHAR(512),
    value_json TEXT,
    PRIMARY KEY (study_user_attribute_id),
    UNIQUE (study_id, key),
    FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
CREATE TABLE study_system_attributes (
    study_system_attribute_id SERIAL NOT NULL,
    study_id INTEGER,
    key VARCHAR(512),
    value_json TEXT,
    PRIMARY KEY (study_system_attribute_id),
    UNIQUE (study_id, key),
    FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
CREATE TABLE trials (
    trial_id SERIAL NOT NULL,
    number INTEGER,
    study_id INTEGER,
    state trialstate NOT NULL,
    datetime_start TIMESTAMP WITHOUT TIME ZONE,
    datetime_complete TIMESTAMP WITHOUT TIME ZONE,
    PRIMARY KEY (trial_id),
    FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
CREATE TABLE trial_user_attributes (
    trial_user_attribute_id SERIAL NOT NULL,
    trial_id INTEGER,
    key VARCHAR(512),
    value_json TEXT,
    PRIMARY KEY (trial_user_attribute_id),
    UNIQUE (trial_id, key),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_system_attributes (
    trial_system_attribute_id SERIAL NOT NULL,
    trial_id INTEGER,
    key VARCHAR(512),
    value_json TEXT,
    PRIMARY KEY (trial_system_attribute_id),
    UNIQUE (trial_id, key),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_params (
    param_id SERIAL NOT NULL,
    trial_id INTEGER,
    param_name VARCHAR(512),
    param_value DOUBLE PRECISION,
    distribution_json TEXT,
    PRIMARY KEY (param_id),
    UNIQUE (trial_id, param_name),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_values (
    trial_value_id SERIAL NOT NULL,
    trial_id INTEGER NOT NULL,
    objective INTEGER NOT NULL,
    value DOUBLE PRECISION,
    value_type trialvaluetype NOT NULL,
    PRIMARY KEY (trial_value_id),
    UNIQUE (trial_id, objective),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_intermediate_values (
    trial_intermediate_value_id SERIAL NOT NULL,
    trial_id INTEGER NOT NULL,
    step INTEGER NOT NULL,
    intermediate_value DOUBLE PRECISION,
    intermediate_value_type trialintermediatevaluetype NOT NULL,
    PRIMARY KEY (trial_intermediate_value_id),
    UNIQUE (trial_id, step),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_heartbeats (
    trial_heartbeat_id SERIAL NOT NULL,
    trial_id INTEGER NOT NULL,
    heartbeat TIMESTAMP WITHOUT TIME ZONE NOT NULL,
    PRIMARY KEY (trial_heartbeat_id),
    UNIQUE (trial_id),
    FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE alembic_version (
    version_num VARCHAR(32) NOT NULL,
    CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
)sql";

// Pitwall's tables at schema 6 (core/store/internal/migrations.cpp), in PostgreSQL's types: ids BIGSERIAL, times
// Unix seconds as DOUBLE PRECISION (REAL is single precision here).
const char* const kPitwallTablesSql = R"sql(
CREATE TABLE pitwall_schema_version (
    version INTEGER NOT NULL PRIMARY KEY,
    description TEXT NOT NULL,
    applied_time DOUBLE PRECISION NOT NULL
);
CREATE TABLE pitwall_runs (
    run_id BIGSERIAL NOT NULL PRIMARY KEY,
    trial_id INTEGER REFERENCES trials (trial_id),
    kind VARCHAR(64) NOT NULL,
    config_yaml TEXT NOT NULL,
    seed BIGINT NOT NULL,
    logical_device VARCHAR(256) NOT NULL,
    host VARCHAR(256) NOT NULL,
    pid BIGINT NOT NULL,
    start_time DOUBLE PRECISION NOT NULL,
    end_time DOUBLE PRECISION,
    status VARCHAR(16) NOT NULL,
    exit_code INTEGER,
    message TEXT NOT NULL
);
CREATE INDEX ix_pitwall_runs_trial_id ON pitwall_runs (trial_id);
CREATE TABLE pitwall_metric_names (
    name_id BIGSERIAL NOT NULL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE pitwall_metrics (
    metric_id BIGSERIAL NOT NULL PRIMARY KEY,
    run_id BIGINT NOT NULL REFERENCES pitwall_runs (run_id),
    stage_id BIGINT NOT NULL REFERENCES pitwall_metric_names (name_id),
    step BIGINT NOT NULL,
    key_id BIGINT NOT NULL REFERENCES pitwall_metric_names (name_id),
    value DOUBLE PRECISION,
    wall_time DOUBLE PRECISION NOT NULL
);
CREATE TABLE pitwall_events (
    event_id BIGSERIAL NOT NULL PRIMARY KEY,
    run_id BIGINT NOT NULL REFERENCES pitwall_runs (run_id),
    time DOUBLE PRECISION NOT NULL,
    level VARCHAR(16) NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE pitwall_artifacts (
    artifact_id BIGSERIAL NOT NULL PRIMARY KEY,
    run_id BIGINT NOT NULL REFERENCES pitwall_runs (run_id),
    kind VARCHAR(64) NOT NULL,
    path TEXT NOT NULL,
    description TEXT NOT NULL,
    time DOUBLE PRECISION NOT NULL
);
CREATE TABLE pitwall_benchmarks (
    benchmark_id BIGSERIAL NOT NULL PRIMARY KEY,
    suite VARCHAR(128) NOT NULL,
    name VARCHAR(256) NOT NULL,
    parameters_json TEXT NOT NULL,
    results_json TEXT NOT NULL,
    host VARCHAR(256) NOT NULL,
    time DOUBLE PRECISION NOT NULL
);
CREATE INDEX ix_pitwall_metrics_run_id ON pitwall_metrics (run_id, metric_id);
CREATE INDEX ix_pitwall_events_run_id ON pitwall_events (run_id, event_id);
CREATE INDEX ix_pitwall_artifacts_run_id ON pitwall_artifacts (run_id);
CREATE INDEX ix_pitwall_benchmarks_suite ON pitwall_benchmarks (suite, benchmark_id);
CREATE TABLE pitwall_jobs (
    job_id BIGINT NOT NULL PRIMARY KEY,
    kind VARCHAR(32) NOT NULL,
    spec_json TEXT NOT NULL,
    state VARCHAR(16) NOT NULL,
    host VARCHAR(256) NOT NULL,
    pid BIGINT NOT NULL,
    create_time DOUBLE PRECISION NOT NULL,
    start_time DOUBLE PRECISION,
    end_time DOUBLE PRECISION,
    heartbeat_time DOUBLE PRECISION,
    progress DOUBLE PRECISION NOT NULL,
    progress_message TEXT NOT NULL,
    eta_seconds DOUBLE PRECISION,
    exit_code INTEGER,
    error TEXT NOT NULL,
    log_file TEXT NOT NULL,
    process_start BIGINT
);
CREATE INDEX ix_pitwall_jobs_state ON pitwall_jobs (state, job_id);
CREATE TABLE pitwall_job_links (
    job_id BIGINT NOT NULL REFERENCES pitwall_jobs (job_id),
    kind VARCHAR(16) NOT NULL,
    ref TEXT NOT NULL,
    UNIQUE (job_id, kind, ref)
);
CREATE TABLE pitwall_job_ids (
    slot INTEGER NOT NULL PRIMARY KEY CHECK (slot = 1),
    last_job_id BIGINT NOT NULL
);
INSERT INTO pitwall_job_ids (slot, last_job_id) VALUES (1, 0);
CREATE TABLE pitwall_intermediate_values (
    trial_id INTEGER NOT NULL REFERENCES trials (trial_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    objective INTEGER NOT NULL CHECK (objective >= 1),
    value DOUBLE PRECISION,
    value_type TEXT NOT NULL,
    PRIMARY KEY (trial_id, step, objective)
);
CREATE TABLE pitwall_trial_revisions (
    revision BIGSERIAL NOT NULL PRIMARY KEY,
    trial_id INTEGER NOT NULL
);
)sql";

// The advisory lock key under which the schema is created ("PWSC").
constexpr std::int64_t kSchemaLock = 0x50575343;

bool has(const std::vector<std::string>& tables, const char* name)
{
    return std::find(tables.begin(), tables.end(), name) != tables.end();
}

} // namespace

std::vector<std::string> pgTableNames(PqConnection& db)
{
    const auto result = db.exec("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1", {},
                                "reading the table names");
    std::vector<std::string> names;
    for (int row = 0; row < result.rows(); ++row)
        names.push_back(result.text(row, 0));
    return names;
}

int pgPitwallSchemaVersion(PqConnection& db)
{
    if (!has(pgTableNames(db), kPitwallVersionTable))
        return 0;
    const auto result = db.exec("SELECT COALESCE(MAX(version), 0) FROM pitwall_schema_version", {},
                                "reading the Pitwall schema version");
    return static_cast<int>(result.int64(0, 0));
}

bool ensurePgSchema(PqConnection& db)
{
    const OptunaSchema schema = optunaSchemaForNewFiles();
    return db.transaction([&] {
        db.exec("SELECT pg_advisory_xact_lock($1)", {kSchemaLock}, "waiting for another process creating the tables");
        const auto tables = pgTableNames(db);
        bool created = false;
        if (!has(tables, "studies")) {
            db.exec(kOptunaTablesSql, {}, "creating Optuna's tables");
            if (schema == OptunaSchema::V3_2)
                db.exec("CREATE INDEX ix_trials_study_id ON trials (study_id)", {}, "creating Optuna's tables");
            db.exec("INSERT INTO version_info (version_info_id, schema_version, library_version) VALUES (1, $1, $2)",
                    {kOptunaSchemaVersion, schema == OptunaSchema::V3_1 ? "3.1.0" : "3.2.0"},
                    "creating Optuna's tables");
            db.exec("INSERT INTO alembic_version (version_num) VALUES ($1)", {optunaAlembicRevision(schema)},
                    "creating Optuna's tables");
            created = true;
        }
        if (!has(tables, kPitwallVersionTable)) {
            db.exec(kPitwallTablesSql, {}, "creating Pitwall's tables");
            for (const Migration& migration : pitwallMigrations())
                db.exec("INSERT INTO pitwall_schema_version (version, description, applied_time) VALUES ($1, $2, $3)",
                        {migration.version, migration.description, nowSeconds()}, "creating Pitwall's tables");
            created = true;
        }
        return created;
    });
}

} // namespace pitwall::store_internal
