// SqliteStore: reading studies and trials from Optuna's tables, in bulk (one query per table per study).

#include "core/store/sqlitestore.h"

#include "core/store/besttrial.h"
#include "core/store/pareto.h"
#include "core/store/internal/migrations.h"
#include "core/store/internal/pyjson.h"
#include "core/store/internal/sqlite.h"
#include "core/store/internal/trialrules.h"
#include "core/util/error.h"
#include "core/util/timefmt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace pitwall {

using store_internal::Statement;

namespace {

// Optuna's stored_repr_to_value: the value column is NULL for the non-finite types.
double decodeValue(const Statement& statement, int valueColumn, int typeColumn)
{
    return store_internal::valueOfType(statement.optionalReal(valueColumn), statement.view(typeColumn));
}

Json decodeJson(const std::string& text)
{
    return store_internal::decodeStoredJson(text);
}

std::optional<double> optionalTime(const Statement& statement, int column)
{
    const auto text = statement.optionalText(column);
    return text ? parseTimestamp(*text) : std::nullopt;
}

// The summaries' trial counts by state, and how many of their FAIL trials were interrupted.
void countTrialStates(store_internal::Connection& db, const std::unordered_map<std::int64_t, std::size_t>& indexOf,
                      std::vector<StudySummary>& summaries)
{
    {
        // Counted here over the rows in their order, a run of equal (study, state) rows at a time: SQLite's GROUP BY
        // sorts them first (0.3 s at 1,000,000 trials, the scan 0.06 s).
        auto statement = db.cached("SELECT study_id, state FROM trials");
        std::int64_t study = 0;
        std::string state;
        int run = 0;
        const auto flush = [&] {
            if (const auto it = indexOf.find(study); run > 0 && it != indexOf.end())
                store_internal::addStateCount(summaries[it->second], state, run);
            run = 0;
        };
        while (statement.step()) {
            const std::int64_t rowStudy = statement.int64(0);
            const std::string_view rowState = statement.view(1);
            if (run > 0 && (rowStudy != study || rowState != state))
                flush();
            if (run == 0) {
                study = rowStudy;
                state.assign(rowState);
            }
            ++run;
        }
        flush();
    }
    {
        // Interrupted failures (core/store/records.h), counted apart from the trials' own failures.
        auto statement = db.cached(
            "SELECT t.study_id, COUNT(*) FROM trials t JOIN trial_system_attributes a ON a.trial_id = t.trial_id "
            "AND a.\"key\" = ? WHERE t.state = 'FAIL' AND a.value_json = 'true' GROUP BY t.study_id");
        statement.bind(1, kInterruptedAttr);
        while (statement.step())
            if (const auto it = indexOf.find(statement.int64(0)); it != indexOf.end())
                summaries[it->second].interrupted = static_cast<int>(statement.int64(1));
    }
}

void readAttrs(store_internal::Connection& db, const std::string& sql, std::int64_t id, Json& into)
{
    auto statement = db.cached(sql);
    statement.bind(1, id);
    while (statement.step())
        into[statement.text(0)] = decodeJson(statement.text(1));
}

// Which trials loadTrials reads: ?1 the study; ?2 one number, or NULL for all; ?3 numbers from it, or NULL; ?4 a JSON
// array of numbers, or NULL; ?5 numbers below it, or NULL.
struct TrialFilter {
    std::int64_t studyId;
    std::optional<int> number, firstNumber;
    std::optional<std::string> numbers;
    std::optional<int> below;
    static constexpr const char* kWhere =
        " WHERE t.study_id = ?1 AND (?2 IS NULL OR t.number = ?2) AND (?3 IS NULL OR t.number >= ?3)"
        " AND (?4 IS NULL OR t.number IN (SELECT value FROM json_each(?4))) AND (?5 IS NULL OR t.number < ?5)";

    void bind(Statement& statement) const
    {
        statement.bind(1, studyId);
        number ? statement.bind(2, *number) : statement.bindNull(2);
        firstNumber ? statement.bind(3, *firstNumber) : statement.bindNull(3);
        numbers ? statement.bind(4, *numbers) : statement.bindNull(4);
        below ? statement.bind(5, *below) : statement.bindNull(5);
    }
};

// Reads a child table's rows (the first column a trial_id) into the records of the trials they belong to. A query
// names the child table's alias: its rows are joined to the trials (t) that the filter selects (TrialFilter::kWhere
// and its binds), or, when scanning, read over the whole table in row order, the rows of other studies' trials passed
// over here. A query that reads from the trials t itself (alias 't') is always filtered. A study that holds most of
// the file's trials (one search per file) reads each table in half the time so: at 1,000,000 trials, parameters in
// 0.7 s instead of 1.5 s, since looking up each trial's rows seeks the table once per row.
class ChildRows {
public:
    ChildRows(store_internal::Connection& db, std::vector<TrialRecord>& records) : m_db(db), m_records(records)
    {
        m_indexOf.reserve(records.size());
        for (std::size_t i = 0; i < records.size(); ++i)
            m_indexOf[records[i].id] = i;
    }
    const TrialFilter* filter = nullptr; // the trials read
    bool scan = false;                   // `filter` selects every trial of the study, most of the file's

    template <class OnRow>
    void operator()(const std::string& select, char alias, OnRow&& onRow, const std::string& orderBy = {})
    {
        const bool scanning = scan && alias != 't';
        const std::string join =
            alias == 't' ? std::string() : std::string(" JOIN trials t ON t.trial_id = ") + alias + ".trial_id";
        auto statement = m_db.cached(scanning ? select + orderBy : select + join + TrialFilter::kWhere + orderBy);
        if (!scanning)
            filter->bind(statement);
        std::int64_t lastId = 0; // rows come grouped by trial: one lookup per trial, not per row
        TrialRecord* last = nullptr;
        while (statement.step()) {
            const std::int64_t id = statement.int64(0);
            if (!last || id != lastId) {
                const auto it = m_indexOf.find(id);
                last = it != m_indexOf.end() ? &m_records[it->second] : nullptr;
                lastId = id;
                if (!last)
                    continue;
            }
            onRow(statement, *last);
        }
    }

private:
    store_internal::Connection& m_db;
    std::vector<TrialRecord>& m_records;
    std::unordered_map<std::int64_t, std::size_t> m_indexOf;
};

// Whether reading `trials` trials is best done by scanning whole tables (ChildRows): they are more than half of the
// file's trial ids.
bool scanFor(store_internal::Connection& db, std::size_t trials)
{
    auto statement = db.cached("SELECT MAX(trial_id) FROM trials");
    return statement.step() && !statement.isNull(0) &&
           static_cast<std::int64_t>(trials) * 2 > statement.int64(0);
}

// The intermediate values of each trial (Optuna's table: the first objective's), or its last step's alone.
const char* intermediatesSql(bool lastOnly)
{
    return lastOnly ? "SELECT v.trial_id, v.step, v.intermediate_value, v.intermediate_value_type FROM trials t JOIN "
                      "trial_intermediate_values v ON v.trial_intermediate_value_id = (SELECT "
                      "w.trial_intermediate_value_id FROM trial_intermediate_values w WHERE w.trial_id = t.trial_id "
                      "ORDER BY w.step DESC LIMIT 1)"
                    : "SELECT v.trial_id, v.step, v.intermediate_value, v.intermediate_value_type "
                      "FROM trial_intermediate_values v";
}

// The filtered trials' own rows, by number, without their parameters, values and attributes.
std::vector<TrialRecord> readTrialRows(store_internal::Connection& db, const TrialFilter& filter)
{
    // Sorted here rather than by SQLite: no index has the number, and sorting 100,000 rows there takes 75 ms.
    auto statement = db.cached(std::string("SELECT t.trial_id, t.number, t.state, t.datetime_start, "
                                           "t.datetime_complete FROM trials t") +
                               TrialFilter::kWhere);
    filter.bind(statement);
    std::vector<TrialRecord> records;
    while (statement.step()) {
        TrialRecord record;
        record.id = statement.int64(0);
        record.number = static_cast<int>(statement.optionalInt64(1).value_or(-1));
        record.studyId = filter.studyId;
        record.state = parseTrialState(statement.text(2)).value_or(TrialState::Fail);
        record.startTime = optionalTime(statement, 3);
        record.completeTime = optionalTime(statement, 4);
        records.push_back(std::move(record));
    }
    const auto byNumber = [](const TrialRecord& a, const TrialRecord& b) {
        return a.number != b.number ? a.number < b.number : a.id < b.id;
    };
    if (!std::is_sorted(records.begin(), records.end(), byNumber))
        std::sort(records.begin(), records.end(), byNumber);
    return records;
}

// Pitwall's intermediate vectors (objectives 1.. of each step; objective 0 is Optuna's intermediate value), or the
// last step's alone. The caller sets objective 0 (completeVectors).
template <class ForEachRow> void readIntermediateVectors(ForEachRow&& forEachRow, bool lastOnly)
{
    forEachRow(lastOnly ? "SELECT v.trial_id, v.step, v.objective, v.value, v.value_type FROM trials t JOIN "
                          "pitwall_intermediate_values v ON v.trial_id = t.trial_id AND v.step = (SELECT MAX(w.step) "
                          "FROM pitwall_intermediate_values w WHERE w.trial_id = t.trial_id)"
                        : "SELECT v.trial_id, v.step, v.objective, v.value, v.value_type FROM "
                          "pitwall_intermediate_values v",
               lastOnly ? 't' : 'v',
               [&](const Statement& row, TrialRecord& record) {
                   const std::int64_t step = row.int64(1);
                   const auto objective = static_cast<std::size_t>(row.int64(2));
                   std::vector<double>& vector = record.intermediateVectors[step];
                   if (vector.size() <= objective)
                       vector.resize(objective + 1, std::nan(""));
                   vector[objective] = decodeValue(row, 3, 4);
               },
               " ORDER BY v.step, v.objective");
}

// Objective 0 of each intermediate vector: the trial's intermediate value at that step.
void completeVectors(std::vector<TrialRecord>& records)
{
    for (TrialRecord& record : records)
        for (auto& [step, vector] : record.intermediateVectors)
            if (const auto first = record.intermediateValues.find(step); first != record.intermediateValues.end())
                vector[0] = first->second;
}

// The parameters of the records, in the order they were set (param_id). SQLite hands them by name; they are put in
// order here, where sorting 400,000 rows in SQLite takes 0.36 s. A distribution is parsed once per distinct text.
template <class ForEachRow> void readParams(ForEachRow&& forEachRow, std::vector<TrialRecord>& records)
{
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    std::unordered_map<std::string, Distribution, Hash, std::equal_to<>> distributions;
    struct Slot {
        std::size_t record;
        std::int64_t paramId;
        std::size_t index;
    };
    std::vector<Slot> order;
    std::vector<std::int64_t> lastId(records.size(), std::numeric_limits<std::int64_t>::min());
    bool sorted = true;
    std::size_t count = 0; // the last trial's count: the next one likely has as many (one allocation)
    forEachRow("SELECT p.trial_id, p.param_name, p.param_value, p.distribution_json, p.param_id FROM trial_params p",
               'p',
               [&](const Statement& row, TrialRecord& record) {
                   const std::string_view json = row.view(3);
                   auto it = distributions.find(json);
                   if (it == distributions.end())
                       it = distributions.emplace(json, Distribution::fromOptunaJson(std::string(json))).first;
                   if (record.params.empty())
                       record.params.reserve(count);
                   const auto index = static_cast<std::size_t>(&record - records.data());
                   const Slot slot{index, row.int64(4), record.params.size()};
                   sorted = sorted && lastId[slot.record] < slot.paramId;
                   lastId[slot.record] = slot.paramId;
                   order.push_back(slot);
                   record.params.push_back({row.text(1), row.real(2), it->second});
                   count = record.params.size();
               });
    if (sorted)
        return;
    std::stable_sort(order.begin(), order.end(), [](const Slot& a, const Slot& b) {
        return a.record != b.record ? a.record < b.record : a.paramId < b.paramId;
    });
    std::vector<TrialParam> ordered;
    for (std::size_t i = 0; i < order.size();) {
        const std::size_t record = order[i].record;
        std::vector<TrialParam>& params = records[record].params;
        ordered.clear();
        for (; i < order.size() && order[i].record == record; ++i)
            ordered.push_back(std::move(params[order[i].index]));
        std::move(ordered.begin(), ordered.end(), params.begin());
    }
}

} // namespace

std::optional<StudyRecord> SqliteStore::findStudy(const std::string& name)
{
    return m_db->read([&]() -> std::optional<StudyRecord> {
        auto statement = m_db->cached("SELECT study_id FROM studies WHERE study_name = ?");
        statement.bind(1, name);
        if (!statement.step())
            return std::nullopt;
        StudyRecord study;
        study.id = statement.int64(0);
        study.name = name;
        study.directions = directionsOf(study.id);
        readAttrs(*m_db, "SELECT \"key\", value_json FROM study_user_attributes WHERE study_id = ?", study.id,
                  study.userAttrs);
        readAttrs(*m_db, "SELECT \"key\", value_json FROM study_system_attributes WHERE study_id = ?", study.id,
                  study.systemAttrs);
        return study;
    });
}

// The size of a multi-objective study's Pareto front (core/store/pareto.h's rule) from its COMPLETE trials' values
// and constraints only. Called inside a read transaction.
int SqliteStore::paretoFrontSize(const StudyRecord& study)
{
    std::vector<TrialRecord> trials;
    std::unordered_map<std::int64_t, std::size_t> indexOf;
    auto values = m_db->cached("SELECT t.trial_id, t.number, v.objective, v.value, v.value_type FROM trials t JOIN "
                               "trial_values v ON v.trial_id = t.trial_id WHERE t.study_id = ? AND t.state = 'COMPLETE' "
                               "ORDER BY t.number, v.objective");
    values.bind(1, study.id);
    while (values.step()) {
        const std::int64_t id = values.int64(0);
        auto [it, added] = indexOf.try_emplace(id, trials.size());
        if (added) {
            TrialRecord trial;
            trial.id = id;
            trial.number = static_cast<int>(values.int64(1));
            trial.state = TrialState::Complete;
            trials.push_back(std::move(trial));
        }
        trials[it->second].values.push_back(decodeValue(values, 3, 4));
    }
    auto constraints = m_db->cached("SELECT a.trial_id, a.value_json FROM trial_system_attributes a JOIN trials t ON "
                                    "t.trial_id = a.trial_id WHERE t.study_id = ? AND a.\"key\" = 'constraints'");
    constraints.bind(1, study.id);
    while (constraints.step()) {
        const auto it = indexOf.find(constraints.int64(0));
        if (it != indexOf.end())
            trials[it->second].systemAttrs[kConstraintsAttr] = decodeJson(constraints.text(1));
    }
    return static_cast<int>(paretoFrontIndices(trials, study.directions).size());
}

std::vector<StudySummary> SqliteStore::listStudies()
{
    return m_db->read([&] {
        std::vector<StudySummary> summaries;
        std::unordered_map<std::int64_t, std::size_t> indexOf;
        {
            auto statement = m_db->cached("SELECT study_id, study_name FROM studies ORDER BY study_id");
            while (statement.step()) {
                StudySummary summary;
                summary.study.id = statement.int64(0);
                summary.study.name = statement.text(1);
                indexOf[summary.study.id] = summaries.size();
                summaries.push_back(std::move(summary));
            }
        }
        for (auto& summary : summaries) {
            summary.study.directions = directionsOf(summary.study.id);
            readAttrs(*m_db, "SELECT \"key\", value_json FROM study_user_attributes WHERE study_id = ?",
                      summary.study.id, summary.study.userAttrs);
            readAttrs(*m_db, "SELECT \"key\", value_json FROM study_system_attributes WHERE study_id = ?",
                      summary.study.id, summary.study.systemAttrs);
        }
        countTrialStates(*m_db, indexOf, summaries);
        // The best trial by core/store/besttrial.h's rule, over the COMPLETE trials' first values.
        std::vector<BestTracker> best = store_internal::bestTrackersFor(summaries);
        auto statement = m_db->cached(
            "SELECT t.study_id, t.number, v.value, v.value_type, c.value_json FROM trials t JOIN trial_values v "
            "ON v.trial_id = t.trial_id LEFT JOIN trial_system_attributes c ON c.trial_id = t.trial_id AND "
            "c.\"key\" = 'constraints' WHERE t.state = 'COMPLETE' AND v.objective = 0"); // any order (besttrial.h)
        while (statement.step()) {
            const auto it = indexOf.find(statement.int64(0));
            if (it == indexOf.end())
                continue;
            store_internal::offerBestTrial(best[it->second], static_cast<int>(statement.int64(1)),
                                           decodeValue(statement, 2, 3), statement.optionalText(4));
        }
        store_internal::finishSummaries(summaries, best,
                                        [&](const StudyRecord& study) { return paretoFrontSize(study); });
        return summaries;
    });
}

std::vector<TrialRecord> SqliteStore::trials(std::int64_t studyId)
{
    return loadTrials(studyId, std::nullopt);
}

std::vector<TrialRecord> SqliteStore::trialsFrom(std::int64_t studyId, int firstNumber)
{
    return loadTrials(studyId, std::nullopt, firstNumber);
}

std::vector<TrialRecord> SqliteStore::trialsSummarised(std::int64_t studyId, int summariseBelow)
{
    return loadTrials(studyId, std::nullopt, std::nullopt, std::nullopt, summariseBelow);
}

std::optional<TrialRecord> SqliteStore::trial(std::int64_t studyId, int number)
{
    auto found = loadTrials(studyId, number);
    if (found.empty())
        return std::nullopt;
    return std::move(found.front());
}

std::vector<TrialRecord> SqliteStore::trialsNumbered(std::int64_t studyId, const std::vector<int>& numbers)
{
    if (numbers.empty())
        return {};
    return loadTrials(studyId, std::nullopt, std::nullopt, Json(numbers).dump());
}

TrialRevisions SqliteStore::trialRevisionsSince(std::optional<std::int64_t> after)
{
    return m_db->read([&] {
        TrialRevisions revisions;
        revisions.latest = after.value_or(0);
        if (!hasPitwallTables())
            return revisions; // Optuna's file: Optuna never changes a finished trial
        if (m_pitwallVersion < 6)
            m_pitwallVersion = store_internal::pitwallSchemaVersion(*m_db); // a writer may have migrated it
        if (m_pitwallVersion < 6) {
            revisions.tracked = false;
            return revisions;
        }
        auto latest = m_db->cached("SELECT COALESCE(MAX(revision), 0) FROM pitwall_trial_revisions");
        latest.step();
        revisions.latest = std::max(revisions.latest, latest.int64(0));
        if (!after)
            return revisions;
        auto statement = m_db->cached("SELECT t.study_id, t.number FROM pitwall_trial_revisions r JOIN trials t ON "
                                      "t.trial_id = r.trial_id WHERE r.revision > ? ORDER BY r.revision");
        statement.bind(1, *after);
        std::unordered_set<std::int64_t> seen;
        while (statement.step()) {
            const std::int64_t study = statement.int64(0);
            const int trialNumber = static_cast<int>(statement.int64(1));
            if (seen.insert(study * 4294967296LL + trialNumber).second)
                revisions.trials.push_back({study, trialNumber});
        }
        return revisions; // revisions of trials deleted since (with their study) name no trial and are passed over
    });
}

std::vector<TrialRecord> SqliteStore::loadTrials(std::int64_t studyId, std::optional<int> number,
                                                 std::optional<int> firstNumber, std::optional<std::string> numbers,
                                                 std::optional<int> summariseBelow)
{
    const TrialFilter filter{studyId, number, firstNumber, std::move(numbers), std::nullopt};
    // Summarising: every step of the trials from summariseBelow, the last step of those before.
    TrialFilter whole = filter, summarised = filter;
    if (summariseBelow) {
        whole.firstNumber = std::max(firstNumber.value_or(*summariseBelow), *summariseBelow);
        summarised.below = summariseBelow;
    }
    return m_db->read([&] {
        std::vector<TrialRecord> records = readTrialRows(*m_db, filter);
        if (records.empty())
            return records;
        // Every trial of the study: by scanning when it holds most of the file's trials.
        const bool scan = !number && !firstNumber && !filter.numbers && scanFor(*m_db, records.size());
        ChildRows forEachRow(*m_db, records);
        forEachRow.filter = &filter;
        forEachRow.scan = scan;

        readParams(forEachRow, records);
        forEachRow("SELECT v.trial_id, v.objective, v.value, v.value_type FROM trial_values v", 'v',
                   [&](const Statement& row, TrialRecord& record) {
                       const auto objective = static_cast<std::size_t>(row.int64(1));
                       if (record.values.size() <= objective)
                           record.values.resize(objective + 1, std::nan(""));
                       record.values[objective] = decodeValue(row, 2, 3);
                   });
        for (const bool lastOnly : {false, true}) {
            if (lastOnly && !summariseBelow)
                break;
            forEachRow.filter = summariseBelow ? (lastOnly ? &summarised : &whole) : &filter;
            forEachRow.scan = scan && !summariseBelow;
            std::size_t steps = 0; // the last trial's count: the next one likely has as many (one allocation)
            const auto onRow = [&](const Statement& row, TrialRecord& record) {
                if (record.intermediateValues.empty())
                    record.intermediateValues.reserve(steps);
                record.intermediateValues[row.int64(1)] = decodeValue(row, 2, 3);
                steps = record.intermediateValues.size();
                record.allIntermediates = !lastOnly;
            };
            forEachRow(intermediatesSql(lastOnly), lastOnly ? 't' : 'v', onRow);
            if (hasPitwallTables() && m_pitwallVersion >= 5)
                readIntermediateVectors(forEachRow, lastOnly);
        }
        forEachRow.filter = &filter;
        forEachRow.scan = scan;
        completeVectors(records);
        forEachRow("SELECT a.trial_id, a.\"key\", a.value_json FROM trial_user_attributes a", 'a',
                   [&](const Statement& row, TrialRecord& record) {
                       record.userAttrs[row.text(1)] = decodeJson(row.text(2));
                   });
        forEachRow("SELECT a.trial_id, a.\"key\", a.value_json FROM trial_system_attributes a", 'a',
                   [&](const Statement& row, TrialRecord& record) {
                       record.systemAttrs[row.text(1)] = decodeJson(row.text(2));
                   });
        forEachRow("SELECT h.trial_id, h.heartbeat FROM trial_heartbeats h", 'h',
                   [&](const Statement& row, TrialRecord& record) { record.heartbeatTime = optionalTime(row, 1); });
        return records;
    });
}

} // namespace pitwall
