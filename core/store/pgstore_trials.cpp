// PgStore: writing trials into Optuna's tables, with Optuna's encodings and its numbering rule under its lock.

#include "core/store/pgstore.h"

#include "core/store/internal/pq.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

namespace pitwall {

using store_internal::isFinished;
using store_internal::PqParam;
using store_internal::storedValue;

namespace {

PqParam timeParam(const std::optional<double>& seconds)
{
    return seconds ? PqParam(formatTimestamp(*seconds)) : PqParam(std::nullopt);
}

} // namespace

PgStore::TrialRow PgStore::trialRow(std::int64_t trialId, bool requireUnfinished)
{
    const auto result =
        m_db->exec("SELECT study_id, number, state FROM trials WHERE trial_id = $1", {trialId}, "finding the trial");
    if (result.rows() == 0)
        throw InputError(m_display + ": no trial with id " + std::to_string(trialId));
    TrialRow row;
    row.studyId = result.int64(0, 0);
    row.number = static_cast<int>(result.optionalInt64(0, 1).value_or(-1));
    const std::string stateName = result.text(0, 2);
    row.state = parseTrialState(stateName).value_or(TrialState::Fail);
    if (requireUnfinished && isFinished(row.state))
        throw InputError(m_display + ": trial " + std::to_string(row.number) + " has already finished (" + stateName +
                         ") and cannot be updated");
    return row;
}

TrialRecord PgStore::insertTrial(std::int64_t studyId, TrialState state)
{
    // Optuna's lock: the study's row, until commit. Every process that numbers a trial of this study waits here.
    if (m_db->exec("SELECT 1 FROM studies WHERE study_id = $1 FOR UPDATE", {studyId}, "locking the study").rows() == 0)
        throw InputError(m_display + ": no study with id " + std::to_string(studyId));
    TrialRecord record;
    record.studyId = studyId;
    record.state = state;
    const double now = serverClock();
    if (state != TrialState::Waiting)
        record.startTime = now;
    if (isFinished(state))
        record.completeTime = now;
    record.id =
        m_db->exec("INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) "
                   "VALUES (NULL, $1, $2, $3, $4) RETURNING trial_id",
                   {studyId, trialStateName(state), timeParam(record.startTime), timeParam(record.completeTime)},
                   "adding the trial")
            .int64(0, 0);
    // Optuna's rule: the number is how many trials of the study have a smaller trial_id.
    record.number = static_cast<int>(m_db->exec("SELECT COUNT(*) FROM trials WHERE study_id = $1 AND trial_id < $2",
                                                {studyId, record.id}, "numbering the trial")
                                         .int64(0, 0));
    m_db->exec("UPDATE trials SET number = $1 WHERE trial_id = $2", {record.number, record.id}, "numbering the trial");
    return record;
}

TrialRecord PgStore::createTrial(std::int64_t studyId, TrialState state)
{
    requireWritable();
    return m_db->transaction([&] { return insertTrial(studyId, state); });
}

std::optional<TrialRecord> PgStore::createTrialWithParams(std::int64_t studyId, int expectedNumber,
                                                          const std::vector<TrialParam>& params,
                                                          const Json& systemAttrs)
{
    requireWritable();
    return m_db->transaction([&]() -> std::optional<TrialRecord> {
        m_db->exec("SELECT 1 FROM studies WHERE study_id = $1 FOR UPDATE", {studyId}, "locking the study");
        const std::int64_t next =
            m_db->exec("SELECT COUNT(*) FROM trials WHERE study_id = $1", {studyId}, "counting trials").int64(0, 0);
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

void PgStore::requireSameKind(std::int64_t studyId, const std::string& name, const Distribution& distribution)
{
    const auto previous = m_db->exec("SELECT p.distribution_json FROM trial_params p JOIN trials t ON t.trial_id = "
                                     "p.trial_id WHERE t.study_id = $1 AND p.param_name = $2 LIMIT 1",
                                     {studyId, name}, "reading the parameter's distribution");
    if (previous.rows() > 0)
        store_internal::requireSameParameterKind(m_display, name, previous.text(0, 0), distribution);
}

void PgStore::upsertTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                               const Distribution& distribution)
{
    if (distribution.kind == Distribution::Kind::Categorical)
        distribution.toExternal(internalValue); // throws InputError for an index outside the choices
    const TrialRow row = trialRow(trialId, true);
    requireSameKind(row.studyId, name, distribution);
    m_db->exec("INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) VALUES ($1, $2, $3, "
               "$4) ON CONFLICT (trial_id, param_name) DO UPDATE SET param_value = excluded.param_value, "
               "distribution_json = excluded.distribution_json",
               {trialId, name, internalValue, distribution.toOptunaJson()}, "setting the parameter");
}

void PgStore::setTrialParam(std::int64_t trialId, const std::string& name, double internalValue,
                            const Distribution& distribution)
{
    requireWritable();
    m_db->transaction([&] { upsertTrialParam(trialId, name, internalValue, distribution); });
}

void PgStore::reportIntermediate(std::int64_t trialId, std::int64_t step, double value)
{
    reportIntermediates(trialId, step, {value});
}

void PgStore::insertValue(const char* sql, std::int64_t trialId, std::int64_t key, double value)
{
    const auto stored = storedValue(value);
    m_db->exec(sql, {trialId, key, PqParam(stored.first), stored.second}, "writing a value");
}

void PgStore::insertVectorValue(std::int64_t trialId, std::int64_t step, std::size_t objective, double value)
{
    const auto stored = storedValue(value);
    m_db->exec("INSERT INTO pitwall_intermediate_values (trial_id, step, objective, value, value_type) VALUES ($1, $2, "
               "$3, $4, $5) ON CONFLICT (trial_id, step, objective) DO UPDATE SET value = excluded.value, "
               "value_type = excluded.value_type",
               {trialId, step, static_cast<std::int64_t>(objective), PqParam(stored.first), stored.second},
               "writing an intermediate value");
}

namespace {

constexpr const char* kUpsertIntermediate =
    "INSERT INTO trial_intermediate_values (trial_id, step, intermediate_value, intermediate_value_type) VALUES ($1, "
    "$2, $3, $4) ON CONFLICT (trial_id, step) DO UPDATE SET intermediate_value = excluded.intermediate_value, "
    "intermediate_value_type = excluded.intermediate_value_type";
constexpr const char* kUpsertValue =
    "INSERT INTO trial_values (trial_id, objective, value, value_type) VALUES ($1, $2, $3, $4) ON CONFLICT "
    "(trial_id, objective) DO UPDATE SET value = excluded.value, value_type = excluded.value_type";

} // namespace

void PgStore::reportIntermediates(std::int64_t trialId, std::int64_t step, const std::vector<double>& values)
{
    requireWritable();
    if (values.empty())
        throw InputError("an intermediate report needs at least one value");
    m_db->transaction([&] {
        trialRow(trialId, true);
        insertValue(kUpsertIntermediate, trialId, step, values.front());
        for (std::size_t objective = 1; objective < values.size(); ++objective)
            insertVectorValue(trialId, step, objective, values[objective]);
    });
}

void PgStore::finishTrial(std::int64_t trialId, TrialState state, const std::vector<double>& values)
{
    requireWritable();
    if (state == TrialState::Waiting)
        throw InputError("a trial cannot go back to WAITING");
    m_db->transaction([&] {
        // Optuna locks the trial's row to finish it; so does Pitwall, so that two processes cannot both finish it.
        m_db->exec("SELECT 1 FROM trials WHERE trial_id = $1 FOR UPDATE", {trialId}, "locking the trial");
        const TrialRow row = trialRow(trialId, true);
        std::vector<double> stored;
        if (state == TrialState::Complete) {
            store_internal::checkCompleteValues(m_display, row.number, directionsOf(row.studyId).size(), values);
            stored = values;
        } else if (state == TrialState::Pruned && directionsOf(row.studyId).size() == 1) {
            // Optuna 3.1 (study/_tell.py) records a pruned trial's last intermediate value as its value.
            const auto last = m_db->exec("SELECT intermediate_value, intermediate_value_type FROM "
                                         "trial_intermediate_values WHERE trial_id = $1 ORDER BY step DESC LIMIT 1",
                                         {trialId}, "reading the last intermediate value");
            if (last.rows() > 0 && last.view(0, 1) != "NAN")
                stored.push_back(store_internal::valueOfType(last.optionalReal(0, 0), last.view(0, 1)));
        } else if (state == TrialState::Running && row.state != TrialState::Waiting) {
            throw InputError(m_display + ": only a WAITING trial can start RUNNING");
        }
        for (std::size_t objective = 0; objective < stored.size(); ++objective)
            insertValue(kUpsertValue, trialId, static_cast<std::int64_t>(objective), stored[objective]);
        m_db->exec(state == TrialState::Running
                       ? "UPDATE trials SET state = $1, datetime_start = $2 WHERE trial_id = $3"
                       : "UPDATE trials SET state = $1, datetime_complete = $2 WHERE trial_id = $3",
                   {trialStateName(state), formatTimestamp(serverClock()), trialId}, "finishing the trial");
    });
}

int PgStore::addTrials(std::int64_t studyId, std::span<const TrialRecord> trials)
{
    requireWritable();
    return m_db->transaction([&] {
        const std::vector<StudyDirection> directions = directionsOf(studyId);
        if (directions.empty())
            throw InputError(m_display + ": no study with id " + std::to_string(studyId));
        store_internal::checkTrialsToAdd(m_display, directions.size(), trials,
                                         [&](const std::string& name, const Distribution& distribution) {
                                             requireSameKind(studyId, name, distribution);
                                         });
        m_db->exec("SELECT 1 FROM studies WHERE study_id = $1 FOR UPDATE", {studyId}, "locking the study");
        const int first = static_cast<int>(
            m_db->exec("SELECT COUNT(*) FROM trials WHERE study_id = $1", {studyId}, "counting trials").int64(0, 0));
        const double now = serverClock();
        for (const TrialRecord& trial : trials)
            insertWholeTrial(studyId, trial, now);
        return first;
    });
}

// One trial of addTrials, checked already, inside its transaction, with the study's row locked: trials are appended
// in order, so Optuna's rule (how many trials of the study have a smaller trial_id) gives consecutive numbers.
void PgStore::insertWholeTrial(std::int64_t studyId, const TrialRecord& trial, double now)
{
    std::optional<double> start = trial.startTime, complete = trial.completeTime;
    if (!start && trial.state != TrialState::Waiting)
        start = now;
    if (!complete && isFinished(trial.state))
        complete = now;
    const std::int64_t id =
        m_db->exec("INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) VALUES ((SELECT "
                   "COUNT(*) FROM trials WHERE study_id = $1), $1, $2, $3, $4) RETURNING trial_id",
                   {studyId, trialStateName(trial.state), timeParam(start), timeParam(complete)}, "adding a trial")
            .int64(0, 0);
    for (const TrialParam& param : trial.params)
        m_db->exec("INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) VALUES ($1, $2, "
                   "$3, $4)",
                   {id, param.name, param.internalValue, param.distribution.toOptunaJson()}, "adding a parameter");
    for (std::size_t objective = 0; objective < trial.values.size(); ++objective)
        insertValue(kUpsertValue, id, static_cast<std::int64_t>(objective), trial.values[objective]);
    for (const auto& [step, first] : trial.intermediateValues)
        insertValue(kUpsertIntermediate, id, step, first);
    for (const auto& [step, vector] : trial.intermediateVectors) { // a vector's first value is Optuna's value
        if (!vector.empty() && !trial.intermediateValues.count(step))
            insertValue(kUpsertIntermediate, id, step, vector.front());
        for (std::size_t objective = 1; objective < vector.size(); ++objective)
            insertVectorValue(id, step, objective, vector[objective]);
    }
    for (auto it = trial.userAttrs.begin(); it != trial.userAttrs.end(); ++it)
        upsertAttr("trial_user_attributes", "trial_id", id, it.key(), it.value());
    for (auto it = trial.systemAttrs.begin(); it != trial.systemAttrs.end(); ++it)
        upsertAttr("trial_system_attributes", "trial_id", id, it.key(), it.value());
}

void PgStore::heartbeat(std::int64_t trialId)
{
    requireWritable();
    m_db->transaction([&] {
        trialRow(trialId, false);
        m_db->exec("INSERT INTO trial_heartbeats (trial_id, heartbeat) VALUES ($1, $2) ON CONFLICT (trial_id) DO "
                   "UPDATE SET heartbeat = excluded.heartbeat",
                   {trialId, formatTimestamp(serverClock())}, "recording the heartbeat");
    });
}

} // namespace pitwall
