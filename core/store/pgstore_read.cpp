// PgStore: reading studies and trials from Optuna's tables in bulk (one query per table), inside one transaction.

#include "core/store/pgstore.h"

#include "core/store/besttrial.h"
#include "core/store/internal/pq.h"
#include "core/store/internal/trialrules.h"
#include "core/store/pareto.h"
#include "core/util/timefmt.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace pitwall {

using store_internal::decodeStoredJson;
using store_internal::PqResult;

namespace {

double valueAt(const PqResult& result, int row, int valueColumn)
{
    return store_internal::valueOfType(result.optionalReal(row, valueColumn), result.view(row, valueColumn + 1));
}

std::optional<double> timeAt(const PqResult& result, int row, int column)
{
    const auto text = result.optionalText(row, column);
    return text ? parseTimestamp(*text) : std::nullopt;
}

// The filtered trials' own rows, by number, and where each trial_id's record is.
void readTrialRows(store_internal::PqConnection& db, const std::string& filter,
                   const std::vector<store_internal::PqParam>& params, std::int64_t studyId,
                   std::vector<TrialRecord>& records, std::unordered_map<std::int64_t, std::size_t>& indexOf)
{
    const auto rows = db.exec("SELECT t.trial_id, t.number, t.state, t.datetime_start, t.datetime_complete "
                              "FROM trials t" +
                                  filter + " ORDER BY t.number, t.trial_id",
                              params, "reading trials");
    for (int row = 0; row < rows.rows(); ++row) {
        TrialRecord record;
        record.id = rows.int64(row, 0);
        record.number = static_cast<int>(rows.optionalInt64(row, 1).value_or(-1));
        record.studyId = studyId;
        record.state = parseTrialState(rows.text(row, 2)).value_or(TrialState::Fail);
        record.startTime = timeAt(rows, row, 3);
        record.completeTime = timeAt(rows, row, 4);
        indexOf[record.id] = records.size();
        records.push_back(std::move(record));
    }
}

} // namespace

int PgStore::paretoFrontSize(const StudyRecord& study)
{
    std::vector<TrialRecord> trials;
    std::unordered_map<std::int64_t, std::size_t> indexOf;
    const auto values = m_db->exec("SELECT t.trial_id, t.number, v.value, v.value_type FROM trials t JOIN "
                                   "trial_values v ON v.trial_id = t.trial_id WHERE t.study_id = $1 AND t.state = "
                                   "'COMPLETE' ORDER BY t.number, v.objective",
                                   {study.id}, "reading the study's values");
    for (int row = 0; row < values.rows(); ++row) {
        auto [it, added] = indexOf.try_emplace(values.int64(row, 0), trials.size());
        if (added) {
            TrialRecord trial;
            trial.id = values.int64(row, 0);
            trial.number = static_cast<int>(values.int64(row, 1));
            trial.state = TrialState::Complete;
            trials.push_back(std::move(trial));
        }
        trials[it->second].values.push_back(valueAt(values, row, 2));
    }
    const auto constraints = m_db->exec("SELECT a.trial_id, a.value_json FROM trial_system_attributes a JOIN trials "
                                        "t ON t.trial_id = a.trial_id WHERE t.study_id = $1 AND a.key = 'constraints'",
                                        {study.id}, "reading the study's constraints");
    for (int row = 0; row < constraints.rows(); ++row)
        if (const auto it = indexOf.find(constraints.int64(row, 0)); it != indexOf.end())
            trials[it->second].systemAttrs[kConstraintsAttr] = decodeStoredJson(constraints.text(row, 1));
    return static_cast<int>(paretoFrontIndices(trials, study.directions).size());
}

std::vector<StudySummary> PgStore::listStudies()
{
    return m_db->transaction([&] {
        std::vector<StudySummary> summaries;
        std::unordered_map<std::int64_t, std::size_t> indexOf;
        const auto studies =
            m_db->exec("SELECT study_id, study_name FROM studies ORDER BY study_id", {}, "listing the studies");
        for (int row = 0; row < studies.rows(); ++row) {
            StudySummary summary;
            summary.study.id = studies.int64(row, 0);
            summary.study.name = studies.text(row, 1);
            readStudyAttrs(summary.study);
            indexOf[summary.study.id] = summaries.size();
            summaries.push_back(std::move(summary));
        }
        const auto counts = m_db->exec("SELECT study_id, state, COUNT(*) FROM trials GROUP BY study_id, state", {},
                                       "counting the trials");
        for (int row = 0; row < counts.rows(); ++row)
            if (const auto it = indexOf.find(counts.int64(row, 0)); it != indexOf.end())
                store_internal::addStateCount(summaries[it->second], counts.view(row, 1),
                                              static_cast<int>(counts.int64(row, 2)));
        const auto interrupted = m_db->exec(
            "SELECT t.study_id, COUNT(*) FROM trials t JOIN trial_system_attributes a ON a.trial_id = t.trial_id AND "
            "a.key = $1 WHERE t.state = 'FAIL' AND a.value_json = 'true' GROUP BY t.study_id",
            {kInterruptedAttr}, "counting the interrupted trials");
        for (int row = 0; row < interrupted.rows(); ++row)
            if (const auto it = indexOf.find(interrupted.int64(row, 0)); it != indexOf.end())
                summaries[it->second].interrupted = static_cast<int>(interrupted.int64(row, 1));
        // The best trial by core/store/besttrial.h's rule, over the COMPLETE trials' first values.
        std::vector<BestTracker> best = store_internal::bestTrackersFor(summaries);
        const auto firsts = m_db->exec(
            "SELECT t.study_id, t.number, v.value, v.value_type, c.value_json FROM trials t JOIN trial_values v ON "
            "v.trial_id = t.trial_id LEFT JOIN trial_system_attributes c ON c.trial_id = t.trial_id AND c.key = "
            "'constraints' WHERE t.state = 'COMPLETE' AND v.objective = 0 ORDER BY t.number",
            {}, "finding the best trials");
        for (int row = 0; row < firsts.rows(); ++row) {
            const auto it = indexOf.find(firsts.int64(row, 0));
            if (it == indexOf.end())
                continue;
            store_internal::offerBestTrial(best[it->second], static_cast<int>(firsts.int64(row, 1)),
                                           valueAt(firsts, row, 2), firsts.optionalText(row, 4));
        }
        store_internal::finishSummaries(summaries, best,
                                        [&](const StudyRecord& study) { return paretoFrontSize(study); });
        return summaries;
    });
}

std::vector<TrialRecord> PgStore::trials(std::int64_t studyId)
{
    return loadTrials(studyId, "TRUE", std::nullopt);
}

std::vector<TrialRecord> PgStore::trialsFrom(std::int64_t studyId, int firstNumber)
{
    return loadTrials(studyId, "t.number >= $2::integer", std::to_string(firstNumber));
}

std::vector<TrialRecord> PgStore::trialsSummarised(std::int64_t studyId, int summariseBelow)
{
    return loadTrials(studyId, "TRUE", std::nullopt, summariseBelow);
}

std::optional<TrialRecord> PgStore::trial(std::int64_t studyId, int number)
{
    auto found = loadTrials(studyId, "t.number = $2::integer", std::to_string(number));
    if (found.empty())
        return std::nullopt;
    return std::move(found.front());
}

std::vector<TrialRecord> PgStore::trialsNumbered(std::int64_t studyId, const std::vector<int>& numbers)
{
    if (numbers.empty())
        return {};
    std::string array = "{";
    for (int number : numbers)
        array += (array.size() > 1 ? "," : "") + std::to_string(number);
    return loadTrials(studyId, "t.number = ANY($2::integer[])", array + "}");
}

TrialRevisions PgStore::trialRevisionsSince(std::optional<std::int64_t> after)
{
    return m_db->transaction([&] {
        TrialRevisions revisions;
        revisions.latest = after.value_or(0);
        if (!m_pitwallTables)
            return revisions; // Optuna's database: Optuna never changes a finished trial
        revisions.latest =
            std::max(revisions.latest, m_db->exec("SELECT COALESCE(MAX(revision), 0) FROM pitwall_trial_revisions", {},
                                                  "reading revisions")
                                           .int64(0, 0));
        if (!after)
            return revisions;
        const auto changed = m_db->exec("SELECT t.study_id, t.number FROM pitwall_trial_revisions r JOIN trials t ON "
                                        "t.trial_id = r.trial_id WHERE r.revision > $1 ORDER BY r.revision",
                                        {*after}, "reading revisions");
        std::unordered_set<std::int64_t> seen;
        for (int row = 0; row < changed.rows(); ++row) {
            const std::int64_t study = changed.int64(row, 0);
            const int number = static_cast<int>(changed.int64(row, 1));
            if (seen.insert(study * 4294967296LL + number).second)
                revisions.trials.push_back({study, number});
        }
        return revisions;
    });
}

// The intermediate values (and vectors) of the trials that `filter` selects, or their last step's alone.
void PgStore::readIntermediates(const std::string& filter, const std::vector<store_internal::PqParam>& params,
                                bool lastOnly, std::vector<TrialRecord>& records,
                                const std::unordered_map<std::int64_t, std::size_t>& indexOf)
{
    auto forEach = [&](const std::string& select, const std::string& orderBy, auto&& onRow) {
        const auto result = m_db->exec(select + filter + orderBy, params, "reading trials");
        for (int row = 0; row < result.rows(); ++row)
            if (const auto it = indexOf.find(result.int64(row, 0)); it != indexOf.end())
                onRow(result, row, records[it->second]);
    };
    forEach(lastOnly ? "SELECT DISTINCT ON (v.trial_id) v.trial_id, v.step, v.intermediate_value, "
                       "v.intermediate_value_type FROM trial_intermediate_values v JOIN trials t ON "
                       "t.trial_id = v.trial_id"
                     : "SELECT v.trial_id, v.step, v.intermediate_value, v.intermediate_value_type FROM "
                       "trial_intermediate_values v JOIN trials t ON t.trial_id = v.trial_id",
            lastOnly ? " ORDER BY v.trial_id, v.step DESC" : " ORDER BY v.step",
            [lastOnly](const PqResult& r, int row, TrialRecord& record) {
                record.intermediateValues[r.int64(row, 1)] = valueAt(r, row, 2);
                record.allIntermediates = !lastOnly;
            });
    if (!m_pitwallTables)
        return;
    forEach(std::string("SELECT v.trial_id, v.step, v.objective, v.value, v.value_type FROM "
                        "pitwall_intermediate_values v JOIN trials t ON t.trial_id = v.trial_id") +
                (lastOnly ? " AND v.step = (SELECT MAX(w.step) FROM pitwall_intermediate_values w WHERE w.trial_id = "
                            "v.trial_id)"
                          : ""),
            " ORDER BY v.step, v.objective", [](const PqResult& r, int row, TrialRecord& record) {
                std::vector<double>& vector = record.intermediateVectors[r.int64(row, 1)];
                const auto objective = static_cast<std::size_t>(r.int64(row, 2));
                if (vector.size() <= objective)
                    vector.resize(objective + 1, std::nan(""));
                vector[objective] = valueAt(r, row, 3);
            });
}

std::vector<TrialRecord> PgStore::loadTrials(std::int64_t studyId, const std::string& where,
                                             const std::optional<std::string>& argument,
                                             std::optional<int> summariseBelow)
{
    const std::string filter = " WHERE t.study_id = $1 AND " + where;
    std::vector<store_internal::PqParam> params{studyId};
    if (argument)
        params.emplace_back(*argument);
    return m_db->transaction([&] {
        std::vector<TrialRecord> records;
        std::unordered_map<std::int64_t, std::size_t> indexOf;
        readTrialRows(*m_db, filter, params, studyId, records, indexOf);
        if (records.empty())
            return records;
        // Each query's rows: (trial_id, ...) of the filtered trials; `onRow` reads the rest into the trial's record.
        auto forEach = [&](const std::string& select, const std::string& orderBy, auto&& onRow) {
            const auto result = m_db->exec(select + filter + orderBy, params, "reading trials");
            for (int row = 0; row < result.rows(); ++row)
                if (const auto it = indexOf.find(result.int64(row, 0)); it != indexOf.end())
                    onRow(result, row, records[it->second]);
        };
        forEach(
            "SELECT p.trial_id, p.param_name, p.param_value, p.distribution_json FROM trial_params p JOIN "
            "trials t ON t.trial_id = p.trial_id",
            " ORDER BY p.param_id", [](const PqResult& r, int row, TrialRecord& record) {
                record.params.push_back({r.text(row, 1), r.real(row, 2), Distribution::fromOptunaJson(r.text(row, 3))});
            });
        forEach("SELECT v.trial_id, v.objective, v.value, v.value_type FROM trial_values v JOIN trials t ON "
                "t.trial_id = v.trial_id",
                " ORDER BY v.objective", [](const PqResult& r, int row, TrialRecord& record) {
                    const auto objective = static_cast<std::size_t>(r.int64(row, 1));
                    if (record.values.size() <= objective)
                        record.values.resize(objective + 1, std::nan(""));
                    record.values[objective] = valueAt(r, row, 2);
                });
        if (summariseBelow) { // a number we made, not input: written into the SQL
            const std::string below = std::to_string(*summariseBelow);
            readIntermediates(filter + " AND t.number >= " + below, params, false, records, indexOf);
            readIntermediates(filter + " AND t.number < " + below, params, true, records, indexOf);
        } else {
            readIntermediates(filter, params, false, records, indexOf);
        }
        if (m_pitwallTables) {
            for (TrialRecord& record : records)
                for (auto& [step, vector] : record.intermediateVectors)
                    if (const auto first = record.intermediateValues.find(step);
                        first != record.intermediateValues.end())
                        vector[0] = first->second;
        }
        for (const char* table : {"trial_user_attributes", "trial_system_attributes"}) {
            const bool user = std::string_view(table) == "trial_user_attributes";
            forEach(std::string("SELECT a.trial_id, a.key, a.value_json FROM ") + table +
                        " a JOIN trials t ON t.trial_id = a.trial_id",
                    "", [user](const PqResult& r, int row, TrialRecord& record) {
                        (user ? record.userAttrs : record.systemAttrs)[r.text(row, 1)] =
                            decodeStoredJson(r.text(row, 2));
                    });
        }
        forEach("SELECT h.trial_id, h.heartbeat FROM trial_heartbeats h JOIN trials t ON t.trial_id = h.trial_id", "",
                [](const PqResult& r, int row, TrialRecord& record) { record.heartbeatTime = timeAt(r, row, 1); });
        return records;
    });
}

} // namespace pitwall
