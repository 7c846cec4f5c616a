#pragma once
// A study with very many parameters (issue 15: 10,000), written through the store API, with a known
// importance order: the objective of trial i is i, "x07311" is (nearly) the objective itself, "x00420" its
// tens (3 levels) and "x09998" its halves (2 levels); every other parameter cycles through 5 levels in a
// pattern no bin of which tracks the objective (ε² clamps to 0). So fANOVA-lite ranks
// x07311 > x00420 > x09998 > the rest (ties in name order). Names are zero-padded: "x00000".."x09999".
// The trials go through the store API; their parameter rows are written in one SQL transaction, as Optuna
// (or any other writer of the RDB layout) may write them: the store's per-parameter checks take about
// 2.5 s per trial of 10,000 parameters, which is not what these fixtures are about.

#include "core/store/store.h"

#include <sqlite3.h>

#include <QString>

#include <string>
#include <vector>

namespace widestudy {

using namespace pitwall;

inline const char* const kTopParams[] = {"x07311", "x00420", "x09998"};

inline std::string paramName(int index)
{
    return QStringLiteral("x%1").arg(index, 5, 10, QLatin1Char('0')).toStdString();
}

inline double paramValue(int trial, int param)
{
    const std::string key = paramName(param);
    if (key == kTopParams[0])
        return trial;
    if (key == kTopParams[1])
        return trial / 10;
    if (key == kTopParams[2])
        return trial / 15;
    return (trial + param) % 5 + 0.5 * (param % 7); // noise: 5 levels, each spread over the objective's range
}

// Writes study `name` into the SQLite file `path`: `trials` complete trials (objective = number) of `params`
// float parameters in [0, 30] (params must exceed 9998 for the known order to hold).
inline void writeWideStudy(const std::string& path, const std::string& name = "wide", int trials = 30,
                           int params = 10000)
{
    std::vector<std::int64_t> ids;
    {
        auto store = openStore(path);
        const auto study = store->createStudy(name, {StudyDirection::Minimize});
        for (int i = 0; i < trials; ++i) {
            const TrialRecord trial = store->createTrial(study);
            store->finishTrial(trial.id, TrialState::Complete, {static_cast<double>(i)});
            ids.push_back(trial.id);
        }
    }
    const std::string distribution =
        Distribution{Distribution::Kind::Float, 0, 30, false, std::nullopt, {}}.toOptunaJson();
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(db,
                       "INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
                       "VALUES (?, ?, ?, ?)",
                       -1, &insert, nullptr);
    for (int i = 0; i < trials; ++i)
        for (int p = 0; p < params; ++p) {
            const std::string key = paramName(p);
            sqlite3_bind_int64(insert, 1, ids[static_cast<std::size_t>(i)]);
            sqlite3_bind_text(insert, 2, key.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(insert, 3, paramValue(i, p));
            sqlite3_bind_text(insert, 4, distribution.c_str(), -1, SQLITE_STATIC);
            sqlite3_step(insert);
            sqlite3_reset(insert);
        }
    sqlite3_finalize(insert);
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
}

} // namespace widestudy
