// Many writer processes on one store at once (issue 26): ask/tell round trips per second and metric rows per second
// with N processes, for Pitwall on PostgreSQL, Pitwall on SQLite, and Optuna 3.1's RDBStorage on the same PostgreSQL
// server, side by side in one run. The server is started here (tests/support/postgres.h: initdb in a temporary
// folder, max_connections=100), so the run also shows whether N processes get a connection error.
//
// bench_store_writers [--processes 16,64] [--seconds 5] [--folder DIR]
//
// A round trip is what `pitwall study ask` and `tell` write: a trial created (numbered under the study's lock), a
// parameter set, the trial completed with a value: three transactions. Metric rows: Pitwall appends batches of 100
// rows to one run (what MetricsWriter sends); Optuna has no metric series, so its column is intermediate values, one
// per call (its only per-step series). Every process waits for a common start time and works for --seconds.
#include "core/store/store.h"
#include "core/util/timefmt.h"
#include "tests/support/postgres.h"

#include <QCoreApplication>
#include <QProcess>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace pitwall;

namespace {

Distribution xDistribution()
{
    Distribution d;
    d.low = -1.0, d.high = 1.0;
    return d;
}

// One writer: waits for `startAt`, then writes for `seconds`; prints how many trials or rows it wrote.
int child(const std::string& location, const std::string& study, const std::string& mode, double startAt,
          double seconds)
{
    auto store = openStore(location);
    const auto studyId = store->requireStudy(study).id;
    std::int64_t runId = 0;
    if (mode == "metrics") {
        RunRecord run;
        run.kind = "bench";
        run.host = "bench";
        runId = store->createRun(run);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, startAt - nowSeconds())));
    const double end = startAt + seconds;
    std::int64_t count = 0;
    while (nowSeconds() < end) {
        if (mode == "asktell") {
            const auto trial = store->createTrial(studyId);
            store->setTrialParam(trial.id, "x", 0.5, xDistribution());
            store->finishTrial(trial.id, TrialState::Complete, {0.25});
            ++count;
        } else {
            std::vector<MetricSample> batch;
            for (int i = 0; i < 100; ++i, ++count)
                batch.push_back({runId, "train", count, "loss", 0.1 * static_cast<double>(count), nowSeconds()});
            store->appendMetrics(batch);
        }
    }
    std::printf("%lld\n", static_cast<long long>(count));
    return 0;
}

struct Result {
    double perSecond = 0;
    int failed = 0;
    std::string firstError;
};

// Runs `processes` writers (this executable, or the Optuna script) and sums what they wrote.
Result runWriters(const QString& program, const QStringList& leading, int processes, double seconds)
{
    const double startAt = nowSeconds() + 3.0 + 0.05 * processes; // time for every process to start and connect
    std::vector<std::unique_ptr<QProcess>> children;
    for (int i = 0; i < processes; ++i) {
        children.push_back(std::make_unique<QProcess>());
        children.back()->start(program,
                               leading + QStringList{QString::number(startAt, 'f', 3), QString::number(seconds)});
    }
    Result result;
    std::int64_t total = 0;
    for (auto& process : children) {
        process->waitForFinished(static_cast<int>((seconds + 120) * 1000));
        const QString out = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
            ++result.failed;
            if (result.firstError.empty()) {
                // The last line says what failed (a Python traceback ends with the exception); the server's refusal
                // of a connection is named too, where Optuna wraps it in its own exception.
                const QString error = QString::fromUtf8(process->readAllStandardError()).trimmed();
                result.firstError = error.split('\n').last().left(200).toStdString();
                if (error.contains("too many clients"))
                    result.firstError += " [the server: too many clients already]";
            }
            continue;
        }
        total += out.toLongLong();
    }
    result.perSecond = static_cast<double>(total) / seconds;
    return result;
}

std::vector<int> parseList(const std::string& text)
{
    std::vector<int> values;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto comma = text.find(',', start);
        values.push_back(std::atoi(text.substr(start, comma - start).c_str()));
        start = comma == std::string::npos ? text.size() : comma + 1;
    }
    return values;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 7 && std::string(argv[1]) == "--child")
        return child(argv[2], argv[3], argv[4], std::atof(argv[5]), std::atof(argv[6]));
    QCoreApplication app(argc, argv);
    std::vector<int> processCounts{16, 64};
    double seconds = 5;
    std::string folder = std::filesystem::temp_directory_path();
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--processes")
            processCounts = parseList(argv[i + 1]);
        else if (option == "--seconds")
            seconds = std::atof(argv[i + 1]);
        else if (option == "--folder")
            folder = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: bench_store_writers [--processes 16,64] [--seconds 5] [--folder DIR]\n");
            return 2;
        }
    }
    qputenv("PITWALL_OPTUNA_SCHEMA", "3.1"); // Debian's Optuna 3.1 opens what Pitwall creates
    test::PostgresServer server;
    if (const QString why = server.start(); !why.isEmpty()) {
        std::fprintf(stderr, "bench_store_writers: cannot start PostgreSQL: %s\n", qPrintable(why));
        return 1;
    }
    const QString self = QString::fromStdString(std::filesystem::read_symlink("/proc/self/exe").string());
    const QString script = QString::fromStdString(
        (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "bench_store_writers_optuna.py").string());
    std::printf("%-10s %-5s %-16s %14s %10s\n", "what", "procs", "store", "per second", "failed");
    int round = 0;
    for (const int processes : processCounts) {
        for (const std::string mode : {"asktell", "metrics"}) {
            const std::string what = mode == "asktell" ? "ask/tell" : "metric rows";
            const std::string name = "r" + std::to_string(++round);
            const std::string pg = server.database(name);
            const std::string sqlite = folder + "/bench_store_writers_" + name + ".db";
            std::filesystem::remove(sqlite);
            openStore(pg)->createStudy("bench", {StudyDirection::Minimize});
            openStore(sqlite)->createStudy("bench", {StudyDirection::Minimize});
            const std::string optunaDb = server.database(name + "_optuna");
            QProcess create;
            create.start("/usr/bin/python3",
                         {"-c",
                          "import optuna,sys; optuna.logging.set_verbosity(optuna.logging.WARNING); "
                          "optuna.create_study(storage=sys.argv[1], study_name='bench')",
                          QString::fromStdString(server.location(name + "_optuna", true))});
            create.waitForFinished(120000);
            struct Side {
                const char* label;
                QString program;
                QStringList leading;
            };
            const std::vector<Side> sides{
                {"pitwall-pg", self, {"--child", QString::fromStdString(pg), "bench", QString::fromStdString(mode)}},
                {"pitwall-sqlite",
                 self,
                 {"--child", QString::fromStdString(sqlite), "bench", QString::fromStdString(mode)}},
                {"optuna-pg",
                 "/usr/bin/python3",
                 {script, QString::fromStdString(server.location(name + "_optuna", true)), "bench",
                  QString::fromStdString(mode)}},
            };
            for (const Side& side : sides) {
                const Result result = runWriters(side.program, side.leading, processes, seconds);
                std::printf("%-10s %-5d %-16s %14.1f %10d%s%s\n", what.c_str(), processes, side.label, result.perSecond,
                            result.failed,
                            result.firstError.empty() ? "" : "  first error: ", result.firstError.c_str());
                std::fflush(stdout);
            }
            std::filesystem::remove(sqlite);
        }
    }
    return 0;
}
