#pragma once
// Helpers for the store tests: raw SQL against a results file (to check what is really stored, beside what
// the Store interface reports), files in temporary folders, and Debian's Python with Optuna.

#include "core/store/records.h"
#include "core/store/store.h"
#include "core/store/trialcache.h"
#include "core/util/error.h"
#include "tests/support/components.h"

#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace storetest {

using Row = std::vector<std::string>; // NULL reads as "<null>"

// Runs one SQL statement on `path` with its own connection; returns all rows as text.
inline std::vector<Row> query(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw std::runtime_error("cannot open " + path);
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        const std::string message = sqlite3_errmsg(db);
        sqlite3_close(db);
        throw std::runtime_error(message + " in: " + sql);
    }
    std::vector<Row> rows;
    int code = 0;
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
        Row row;
        for (int i = 0; i < sqlite3_column_count(statement); ++i) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
            row.push_back(text ? text : "<null>");
        }
        rows.push_back(row);
    }
    sqlite3_finalize(statement);
    const std::string message = sqlite3_errmsg(db);
    sqlite3_close(db);
    if (code != SQLITE_DONE)
        throw std::runtime_error(message + " in: " + sql);
    return rows;
}

// Every row of every table, each led by its table's name: what a file holds, to compare before and after.
inline std::vector<Row> everyRow(const std::string& path)
{
    std::vector<Row> out;
    for (const Row& table : query(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
        for (Row row : query(path, "SELECT * FROM \"" + table.front() + "\"")) {
            row.insert(row.begin(), table.front());
            out.push_back(row);
        }
    return out;
}

inline std::string scalar(const std::string& path, const std::string& sql)
{
    const auto rows = query(path, sql);
    return rows.empty() || rows.front().empty() ? std::string("<none>") : rows.front().front();
}

inline std::string copyFile(const QString& from, const QTemporaryDir& dir, const QString& name)
{
    const QString to = dir.filePath(name);
    QFile::remove(to);
    if (!QFile::copy(from, to))
        throw std::runtime_error("cannot copy " + from.toStdString());
    QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner);
    return to.toStdString();
}

// Debian's interpreter with python3-optuna; never the one first on PATH. PITWALL_TEST_OPTUNA_PYTHON may name
// another (a virtual environment with a newer Optuna) to run the interop tests' Optuna 3.2+ branch.
inline QString interopPython()
{
    const QString chosen = qEnvironmentVariable("PITWALL_TEST_OPTUNA_PYTHON");
    return chosen.isEmpty() ? QStringLiteral("/usr/bin/python3") : chosen;
}

struct PythonResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs interopPython() (/usr/bin/python3) with `arguments` (a script path or -c code, then its arguments).
inline PythonResult runPython(const QStringList& arguments, const QString& workDir, int timeoutMs = 120000)
{
    QProcess process;
    process.setWorkingDirectory(workDir); // never the optuna package folder, whose logging.py shadows Python's
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("PYTHONWARNINGS", "ignore");
    environment.insert("PYTHONNOUSERSITE", "1");
    environment.remove("PYTHONPATH");
    environment.remove("PYTHONHOME");
    process.setProcessEnvironment(environment);
    process.start(interopPython(), arguments);
    PythonResult result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.err = "python did not finish: " + process.errorString().toUtf8();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

// Empty when Debian's Optuna can be imported; otherwise why not, for PITWALL_FAIL_MISSING("python3-optuna", why).
inline QString optunaUnavailableReason(const QString& workDir)
{
    if (!QFile::exists(interopPython()))
        return interopPython() + " does not exist";
    const auto result = runPython({"-c", "import optuna; print(optuna.__version__)"}, workDir, 60000);
    if (result.exitCode != 0)
        return "`" + interopPython() + " -c 'import optuna'` failed: " + QString::fromUtf8(result.err.trimmed());
    return {};
}

// Fails the current test function because interopPython()'s Optuna is unavailable (`why`): Debian's python3-optuna,
// or the newest Optuna's environment that PITWALL_TEST_OPTUNA_PYTHON names (packaging/install-optuna.sh makes it;
// packaging/test.sh runs that before CTest).
#define PITWALL_FAIL_MISSING_OPTUNA(why)                                                                               \
    QFAIL(qPrintable(qEnvironmentVariableIsSet("PITWALL_TEST_OPTUNA_PYTHON")                                           \
                         ? pitwall::test::missingInstalledMessage(QStringLiteral("the newest Optuna"), why,            \
                                                                  QStringLiteral("packaging/install-optuna.sh"))       \
                         : pitwall::test::missingInstalledMessage(QStringLiteral("python3-optuna"), why)))

// Distributions the tests use, spelled like Optuna's suggest_* calls.
inline pitwall::Distribution floatDist(double low, double high, bool log = false)
{
    pitwall::Distribution d;
    d.low = low, d.high = high, d.log = log;
    return d;
}
inline pitwall::Distribution intDist(double low, double high)
{
    pitwall::Distribution d;
    d.kind = pitwall::Distribution::Kind::Int;
    d.low = low, d.high = high, d.step = 1.0;
    return d;
}
inline pitwall::Distribution optimizerDist()
{
    pitwall::Distribution d;
    d.kind = pitwall::Distribution::Kind::Categorical;
    d.choices = {"sgd", "adamw"};
    return d;
}

// Asserts (Qt Test) that `call` throws InputError whose message contains every fragment.
template <typename Call> void expectInputError(Call&& call, const QStringList& fragments)
{
    try {
        call();
    } catch (const pitwall::InputError& error) {
        const QString message = QString::fromUtf8(error.what());
        for (const auto& fragment : fragments)
            QVERIFY2(message.contains(fragment), qPrintable("'" + fragment + "' not in: " + message));
        return;
    }
    QFAIL(qPrintable("no InputError; expected one containing " + fragments.join(", ")));
}

// Whether two step -> value tables hold the same steps and values (NaN equal to NaN).
inline bool sameSteps(const pitwall::StepValues& a, const pitwall::StepValues& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.first == y.first && (x.second == y.second || (std::isnan(x.second) && std::isnan(y.second)));
    });
}

// Asserts (Qt Test) Store::trialsSummarised(study, below) against Store::trials(study): the trials numbered from
// `below` whole, those before with their last step's intermediate value and vector alone (allIntermediates false
// where they have any), the rest of every record the same. Returns how many trials were summarised.
inline int verifySummarised(pitwall::Store& store, std::int64_t studyId, int below)
{
    const std::vector<pitwall::TrialRecord> whole = store.trials(studyId);
    std::vector<pitwall::TrialRecord> summarised = store.trialsSummarised(studyId, below);
    if (summarised.size() != whole.size()) {
        QTest::qFail("trialsSummarised and trials read different trials", __FILE__, __LINE__);
        return -1;
    }
    int count = 0;
    for (std::size_t i = 0; i < whole.size(); ++i) {
        pitwall::TrialRecord expected = whole[i];
        pitwall::TrialRecord& got = summarised[i];
        const QByteArray where = "trial " + QByteArray::number(expected.number);
        if (expected.number < below && !expected.intermediateValues.empty()) {
            ++count;
            expected.allIntermediates = false;
            expected.intermediateValues = {*expected.intermediateValues.rbegin()};
            if (!expected.intermediateVectors.empty())
                expected.intermediateVectors = {*expected.intermediateVectors.rbegin()};
        }
        if (!sameSteps(got.intermediateValues, expected.intermediateValues) ||
            got.intermediateVectors.size() != expected.intermediateVectors.size() ||
            got.allIntermediates != expected.allIntermediates) {
            QTest::qFail(where + ": intermediate values", __FILE__, __LINE__);
            return -1;
        }
        for (auto g = got.intermediateVectors.begin(), e = expected.intermediateVectors.begin();
             g != got.intermediateVectors.end(); ++g, ++e)
            if (g->first != e->first || g->second.size() != e->second.size() ||
                !std::equal(g->second.begin(), g->second.end(), e->second.begin(), [](double x, double y) {
                    return x == y || (std::isnan(x) && std::isnan(y));
                })) {
                QTest::qFail(where + ": intermediate vectors", __FILE__, __LINE__);
                return -1;
            }
        got.intermediateValues = expected.intermediateValues = {};
        got.intermediateVectors = expected.intermediateVectors = {};
        got.values.clear(), expected.values.clear(); // ±inf and NaN: compared by the round trip tests
        if (!pitwall::sameTrial(got, expected)) {
            QTest::qFail(where + ": differs beyond its intermediate values", __FILE__, __LINE__);
            return -1;
        }
    }
    return count;
}

} // namespace storetest
