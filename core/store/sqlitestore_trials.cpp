// SqliteStore: writing studies and trials into Optuna's tables, with Optuna 3.1's encodings
// (directions and states by name, categorical params as the index into choices, ±inf and NaN as value types,
// attributes as json.dumps text, DATETIME as "YYYY-MM-DD HH:MM:SS.ffffff").

#include "core/store/sqlitestore.h"

#include "core/store/internal/joblinks.h"

#include "core/store/internal/pyjson.h"
#include "core/store/internal/sqlite.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <cmath>

namespace pitwall {

using store_internal::isFinished;
using store_internal::storedValue;

namespace {

std::string quoted(const std::string& text)
{
    return "'" + text + "'";
}

} // namespace

std::int64_t SqliteStore::createStudy(const std::string& name, const std::vector<StudyDirection>& directions)
{
    requireWritable();
    if (name.empty())
        throw InputError("a study needs a name");
    if (directions.empty())
        throw InputError("study " + quoted(name) + " needs at least one direction");
    return m_db->write([&] {
        auto existing = m_db->cached("SELECT study_id FROM studies WHERE study_name = ?");
        existing.bind(1, name);
        if (existing.step())
            throw InputError(m_path + ": a study named " + quoted(name) + " already exists");
        m_db->cached("INSERT INTO studies (study_name) VALUES (?)").bind(1, name).run();
        const std::int64_t studyId = m_db->lastInsertId();
        for (std::size_t objective = 0; objective < directions.size(); ++objective) {
            auto insert =
                m_db->cached("INSERT INTO study_directions (direction, study_id, objective) VALUES (?, ?, ?)");
            insert.bind(1, studyDirectionName(directions[objective]))
                .bind(2, studyId)
                .bind(3, static_cast<std::int64_t>(objective))
                .run();
        }
        store_internal::linkCurrentJob(*m_db, m_pitwallVersion, "study", name);
        return studyId;
    });
}

void SqliteStore::upsertAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                             const Json& value)
{
    const std::string ownerTable = std::string(ownerColumn) == "study_id" ? "studies" : "trials";
    auto owner = m_db->cached("SELECT 1 FROM " + ownerTable + " WHERE " + ownerColumn + " = ?");
    owner.bind(1, ownerId);
    if (!owner.step())
        throw InputError(m_path + ": no " + (ownerTable == "studies" ? "study" : "trial") + " with id " +
                         std::to_string(ownerId));
    auto upsert = m_db->cached(std::string("INSERT INTO ") + table + " (" + ownerColumn +
                               ", \"key\", value_json) VALUES (?, ?, ?) ON CONFLICT (" + ownerColumn +
                               ", \"key\") DO UPDATE SET value_json = excluded.value_json");
    upsert.bind(1, ownerId).bind(2, key).bind(3, store_internal::pythonJsonDumps(value)).run();
}

void SqliteStore::setAttr(const char* table, const char* ownerColumn, std::int64_t ownerId, const std::string& key,
                          const Json& value)
{
    requireWritable();
    m_db->write([&] {
        upsertAttr(table, ownerColumn, ownerId, key, value);
        // A finished trial changed: readers that keep trials (core/store/trialcache.h) learn it from here.
        if (std::string_view(ownerColumn) == "trial_id" && m_pitwallVersion >= 6 &&
            isFinished(trialRow(ownerId, false).state))
            m_db->cached("INSERT INTO pitwall_trial_revisions (trial_id) VALUES (?)").bind(1, ownerId).run();
    });
}

void SqliteStore::setStudyUserAttr(std::int64_t studyId, const std::string& key, const Json& value)
{
    setAttr("study_user_attributes", "study_id", studyId, key, value);
}

void SqliteStore::setStudySystemAttr(std::int64_t studyId, const std::string& key, const Json& value)
{
    setAttr("study_system_attributes", "study_id", studyId, key, value);
}

void SqliteStore::setTrialUserAttr(std::int64_t trialId, const std::string& key, const Json& value)
{
    setAttr("trial_user_attributes", "trial_id", trialId, key, value);
}

void SqliteStore::setTrialSystemAttr(std::int64_t trialId, const std::string& key, const Json& value)
{
    setAttr("trial_system_attributes", "trial_id", trialId, key, value);
}

std::vector<StudyDirection> SqliteStore::directionsOf(std::int64_t studyId)
{
    std::vector<StudyDirection> directions;
    auto statement = m_db->cached("SELECT direction FROM study_directions WHERE study_id = ? ORDER BY objective");
    statement.bind(1, studyId);
    while (statement.step())
        directions.push_back(parseStudyDirection(statement.text(0)).value_or(StudyDirection::Minimize));
    return directions;
}

SqliteStore::TrialRow SqliteStore::trialRow(std::int64_t trialId, bool requireUnfinished)
{
    auto statement = m_db->cached("SELECT study_id, number, state FROM trials WHERE trial_id = ?");
    statement.bind(1, trialId);
    if (!statement.step())
        throw InputError(m_path + ": no trial with id " + std::to_string(trialId));
    TrialRow row;
    row.studyId = statement.int64(0);
    row.number = static_cast<int>(statement.optionalInt64(1).value_or(-1));
    const std::string stateName = statement.text(2);
    row.state = parseTrialState(stateName).value_or(TrialState::Fail);
    if (requireUnfinished && isFinished(row.state))
        throw InputError(m_path + ": trial " + std::to_string(row.number) + " has already finished (" + stateName +
                         ") and cannot be updated");
    return row;
}

TrialRecord SqliteStore::insertTrial(std::int64_t studyId, TrialState state)
{
    auto study = m_db->cached("SELECT 1 FROM studies WHERE study_id = ?");
    study.bind(1, studyId);
    if (!study.step())
        throw InputError(m_path + ": no study with id " + std::to_string(studyId));
    TrialRecord record;
    record.studyId = studyId;
    record.state = state;
    const double now = nowSeconds();
    if (state != TrialState::Waiting)
        record.startTime = now;
    if (isFinished(state))
        record.completeTime = now;
    auto insert = m_db->cached("INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) "
                               "VALUES (NULL, ?, ?, ?, ?)");
    insert.bind(1, studyId).bind(2, trialStateName(state));
    record.startTime ? insert.bind(3, formatTimestamp(*record.startTime)) : insert.bindNull(3);
    record.completeTime ? insert.bind(4, formatTimestamp(*record.completeTime)) : insert.bindNull(4);
    insert.run();
    record.id = m_db->lastInsertId();
    // Optuna 3.1's rule: the number is how many trials of the study have a smaller trial_id. Computed in
    // the same write transaction, so concurrent writers (Pitwall or Optuna) cannot get the same number.
    auto count = m_db->cached("SELECT COUNT(*) FROM trials WHERE study_id = ? AND trial_id < ?");
    count.bind(1, studyId).bind(2, record.id);
    count.step();
    record.number = static_cast<int>(count.int64(0));
    count.reset();
    m_db->cached("UPDATE trials SET number = ? WHERE trial_id = ?").bind(1, record.number).bind(2, record.id).run();
    return record;
}

TrialRecord SqliteStore::createTrial(std::int64_t studyId, TrialState state)
{
    requireWritable();
    return m_db->write([&] { return insertTrial(studyId, state); });
}

std::optional<TrialRecord> SqliteStore::createTrialWithParams(std::int64_t studyId, int expectedNumber,
                                                              const std::vector<TrialParam>& params,
                                                              const Json& systemAttrs)
{
    requireWritable();
    return m_db->write([&]() -> std::optional<TrialRecord> {
        // The write lock is held from BEGIN IMMEDIATE on, so the count is the number the new trial gets.
        auto count = m_db->cached("SELECT COUNT(*) FROM trials WHERE study_id = ?");
        count.bind(1, studyId);
        count.step();
        const std::int64_t next = count.int64(0);
        count.reset();
        if (next != expectedNumber)
            return std::nullopt;
        TrialRecord record = insertTrial(studyId, TrialState::Running);
        for (auto it = systemAttrs.begin(); it != systemAttrs.end(); ++it) {
            upsertAttr("trial_system_attributes", "trial_id", record.id, it.key(), it.value());
            record.systemAttrs[it.key()] = it.value();
        }
        for (const TrialParam& param : params)
            upsertTrialParam(record.id, param.name, param.internalValue, param.distribution);
        record.params = params;
        return record;
    });
}

void SqliteStore::requireSameKind(std::int64_t studyId, const std::string& name, const Distribution& distribution)
{
    // Like Optuna: a parameter keeps its kind, log scale and choices across the trials of a study.
    auto previous = m_db->cached("SELECT p.distribution_json FROM trial_params p JOIN trials t "
                                 "ON t.trial_id = p.trial_id WHERE t.study_id = ? AND p.param_name = ? LIMIT 1");
    previous.bind(1, studyId).bind(2, name);
    if (!previous.step())
        return;
    store_internal::requireSameParameterKind(m_path, name, previous.text(0), distribution);
}

void SqliteStore::upsertTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                                   const Distribution& distribution)
{
    if (distribution.kind == Distribution::Kind::Categorical)
        distribution.toExternal(internalValue); // throws InputError for an index outside the choices
    const std::string distributionJson = distribution.toOptunaJson();
    const TrialRow row = trialRow(trialId, true);
    requireSameKind(row.studyId, name, distribution);
    auto upsert = m_db->cached("INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
                               "VALUES (?, ?, ?, ?) ON CONFLICT (trial_id, param_name) DO UPDATE SET "
                               "param_value = excluded.param_value, distribution_json = excluded.distribution_json");
    upsert.bind(1, trialId).bind(2, name).bind(3, internalValue).bind(4, distributionJson).run();
}

void SqliteStore::setTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                                const Distribution& distribution)
{
    requireWritable();
    m_db->write([&] { upsertTrialParam(trialId, name, internalValue, distribution); });
}

void SqliteStore::reportIntermediate(std::int64_t trialId, std::int64_t step, double value)
{
    reportIntermediates(trialId, step, {value});
}

void SqliteStore::reportIntermediates(std::int64_t trialId, std::int64_t step, const std::vector<double>& values)
{
    requireWritable();
    if (values.empty())
        throw InputError("an intermediate report needs at least one value");
    m_db->write([&] {
        trialRow(trialId, true);
        // A plain pair, not a structured binding: clang before 16 cannot capture bindings in a lambda.
        const auto first = storedValue(values.front());
        auto upsert = m_db->cached(
            "INSERT INTO trial_intermediate_values (trial_id, step, intermediate_value, intermediate_value_type) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (trial_id, step) DO UPDATE SET "
            "intermediate_value = excluded.intermediate_value, "
            "intermediate_value_type = excluded.intermediate_value_type");
        upsert.bind(1, trialId).bind(2, step).bind(3, first.first).bind(4, first.second).run();
        for (std::size_t objective = 1; objective < values.size(); ++objective) {
            const auto stored = storedValue(values[objective]);
            auto other = m_db->cached(
                "INSERT INTO pitwall_intermediate_values (trial_id, step, objective, value, value_type) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (trial_id, step, objective) DO UPDATE SET "
                "value = excluded.value, value_type = excluded.value_type");
            other.bind(1, trialId)
                .bind(2, step)
                .bind(3, static_cast<std::int64_t>(objective))
                .bind(4, stored.first)
                .bind(5, stored.second)
                .run();
        }
    });
}

void SqliteStore::finishTrial(std::int64_t trialId, TrialState state, const std::vector<double>& values)
{
    requireWritable();
    if (state == TrialState::Waiting)
        throw InputError("a trial cannot go back to WAITING");
    m_db->write([&] {
        const TrialRow row = trialRow(trialId, true);
        std::vector<double> stored;
        if (state == TrialState::Complete) {
            store_internal::checkCompleteValues(m_path, row.number, directionsOf(row.studyId).size(), values);
            stored = values;
        } else if (state == TrialState::Pruned && directionsOf(row.studyId).size() == 1) {
            // Optuna 3.1 (study/_tell.py) records a pruned trial's last intermediate value as its value.
            auto last =
                m_db->cached("SELECT intermediate_value, intermediate_value_type FROM trial_intermediate_values "
                             "WHERE trial_id = ? ORDER BY step DESC LIMIT 1");
            last.bind(1, trialId);
            if (last.step() && last.text(1) != "NAN")
                stored.push_back(store_internal::valueOfType(last.optionalReal(0), last.view(1)));
        } else if (state == TrialState::Running && row.state != TrialState::Waiting) {
            throw InputError(m_path + ": only a WAITING trial can start RUNNING");
        }
        for (std::size_t objective = 0; objective < stored.size(); ++objective) {
            const auto [value, type] = storedValue(stored[objective]);
            auto upsert = m_db->cached("INSERT INTO trial_values (trial_id, objective, value, value_type) "
                                       "VALUES (?, ?, ?, ?) ON CONFLICT (trial_id, objective) DO UPDATE SET "
                                       "value = excluded.value, value_type = excluded.value_type");
            upsert.bind(1, trialId).bind(2, static_cast<std::int64_t>(objective)).bind(3, value).bind(4, type).run();
        }
        const std::string now = nowTimestamp();
        if (state == TrialState::Running) {
            m_db->cached("UPDATE trials SET state = ?, datetime_start = ? WHERE trial_id = ?")
                .bind(1, trialStateName(state))
                .bind(2, now)
                .bind(3, trialId)
                .run();
        } else {
            m_db->cached("UPDATE trials SET state = ?, datetime_complete = ? WHERE trial_id = ?")
                .bind(1, trialStateName(state))
                .bind(2, now)
                .bind(3, trialId)
                .run();
        }
    });
}

int SqliteStore::addTrials(std::int64_t studyId, std::span<const TrialRecord> trials)
{
    requireWritable();
    return m_db->write([&] {
        const std::vector<StudyDirection> directions = directionsOf(studyId);
        if (directions.empty())
            throw InputError(m_path + ": no study with id " + std::to_string(studyId));
        // Everything checked first, so that a bad record leaves the study as it was.
        store_internal::checkTrialsToAdd(m_path, directions.size(), trials,
                                         [&](const std::string& name, const Distribution& distribution) {
                                             requireSameKind(studyId, name, distribution);
                                         });
        // The write lock is held from BEGIN IMMEDIATE on: no other trial can be numbered in between.
        auto count = m_db->cached("SELECT COUNT(*) FROM trials WHERE study_id = ?");
        count.bind(1, studyId);
        count.step();
        const int first = static_cast<int>(count.int64(0));
        count.reset();
        const double now = nowSeconds();
        for (std::size_t i = 0; i < trials.size(); ++i)
            insertWholeTrial(studyId, first + static_cast<int>(i), trials[i], now);
        return first;
    });
}

// One trial of addTrials, checked already, inside its write transaction. Its number is Optuna's rule (how many
// trials of the study have a smaller trial_id), because trials are appended in order while the write lock is held.
void SqliteStore::insertWholeTrial(std::int64_t studyId, int number, const TrialRecord& trial, double now)
{
    std::optional<double> start = trial.startTime, complete = trial.completeTime;
    if (!start && trial.state != TrialState::Waiting)
        start = now;
    if (!complete && isFinished(trial.state))
        complete = now;
    auto insert = m_db->cached("INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) "
                               "VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, number).bind(2, studyId).bind(3, trialStateName(trial.state));
    start ? insert.bind(4, formatTimestamp(*start)) : insert.bindNull(4);
    complete ? insert.bind(5, formatTimestamp(*complete)) : insert.bindNull(5);
    insert.run();
    const std::int64_t id = m_db->lastInsertId();
    for (const TrialParam& param : trial.params)
        m_db->cached("INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
                     "VALUES (?, ?, ?, ?)")
            .bind(1, id)
            .bind(2, param.name)
            .bind(3, param.internalValue)
            .bind(4, param.distribution.toOptunaJson())
            .run();
    for (std::size_t objective = 0; objective < trial.values.size(); ++objective) {
        const auto [value, type] = storedValue(trial.values[objective]);
        m_db->cached("INSERT INTO trial_values (trial_id, objective, value, value_type) VALUES (?, ?, ?, ?)")
            .bind(1, id)
            .bind(2, static_cast<std::int64_t>(objective))
            .bind(3, value)
            .bind(4, type)
            .run();
    }
    auto intermediate = [&](std::int64_t step, double first) {
        const auto [value, type] = storedValue(first);
        m_db->cached("INSERT INTO trial_intermediate_values (trial_id, step, intermediate_value, "
                     "intermediate_value_type) VALUES (?, ?, ?, ?)")
            .bind(1, id)
            .bind(2, step)
            .bind(3, value)
            .bind(4, type)
            .run();
    };
    for (const auto& [step, first] : trial.intermediateValues)
        intermediate(step, first);
    for (const auto& [step, vector] : trial.intermediateVectors) // a vector's first value is Optuna's value
        if (!vector.empty() && !trial.intermediateValues.count(step))
            intermediate(step, vector.front());
    for (const auto& [step, vector] : trial.intermediateVectors)
        for (std::size_t objective = 1; objective < vector.size(); ++objective) {
            const auto [value, type] = storedValue(vector[objective]);
            m_db->cached("INSERT INTO pitwall_intermediate_values (trial_id, step, objective, value, value_type) "
                         "VALUES (?, ?, ?, ?, ?)")
                .bind(1, id)
                .bind(2, step)
                .bind(3, static_cast<std::int64_t>(objective))
                .bind(4, value)
                .bind(5, type)
                .run();
        }
    for (auto it = trial.userAttrs.begin(); it != trial.userAttrs.end(); ++it)
        upsertAttr("trial_user_attributes", "trial_id", id, it.key(), it.value());
    for (auto it = trial.systemAttrs.begin(); it != trial.systemAttrs.end(); ++it)
        upsertAttr("trial_system_attributes", "trial_id", id, it.key(), it.value());
}

void SqliteStore::heartbeat(std::int64_t trialId)
{
    requireWritable();
    m_db->write([&] {
        trialRow(trialId, false);
        auto upsert = m_db->cached("INSERT INTO trial_heartbeats (trial_id, heartbeat) VALUES (?, ?) "
                                   "ON CONFLICT (trial_id) DO UPDATE SET heartbeat = excluded.heartbeat");
        upsert.bind(1, trialId).bind(2, nowTimestamp()).run();
    });
}

} // namespace pitwall
