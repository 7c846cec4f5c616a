// What `pitwall hpo` and `pitwall worker` make of their options (core/search/searchargs.h). If this fails, a search
// runs with other settings than were typed, --resume silently drops an option it cannot change, or a worker on
// another machine gets relative paths or loses the study's stored settings.
#include "core/devices/devices.h"
#include "core/jobs/hpojob.h"
#include "core/search/searchargs.h"
#include "core/util/error.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace pitwall;

class TestSearchArgs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void newSearch();
    void resumeTakesOnlyWhatCanChange();
    void badSearchesSayWhy_data();
    void badSearchesSayWhy();
    void trialTimeoutRoundTrips();
    void workerOverlaysTheStudysSettings();
    void workerRunsOnItsDeviceAndLoop();
    void everyOptionReadIsDeclared();
};

namespace {
std::string cwd() { return std::filesystem::current_path().string(); }
} // namespace

void TestSearchArgs::newSearch()
{
    cmdline::Args args;
    args.positionals = {"cfg.yaml", "training.optimization.batch_size=4"};
    args.options = {{"space", {"space.yaml"}},   {"trials", {"6"}},           {"epochs", {"2"}},
                    {"direction", {"maximize"}}, {"sampler", {"random"}},     {"db", {"r.db"}},
                    {"final-epochs", {"3"}},     {"heartbeat-grace", {"30"}}, {"trial-timeout", {"90"}}};
    const SearchSpec spec = searchSpecFromArgs(args);
    QCOMPARE(spec.storeLocation, cwd() + "/r.db");
    QVERIFY(!spec.resumeStudy);
    QCOMPARE(spec.settings.configs, (std::vector<std::string>{cwd() + "/cfg.yaml"}));
    QCOMPARE(spec.settings.overrides, (std::vector<std::string>{"training.optimization.batch_size=4"}));
    QCOMPARE(spec.settings.spacePath, cwd() + "/space.yaml");
    QCOMPARE(spec.settings.targetTrials, 6);
    QCOMPARE(spec.settings.epochs.value_or(0), 2);
    QCOMPARE(spec.settings.objective, std::string()); // the built-in trainer's hpo.objective, later
    QVERIFY(spec.directions == std::vector<StudyDirection>{StudyDirection::Maximize});
    QVERIFY(spec.study.sampler.kind == SamplerKind::Random);
    QCOMPARE(spec.finalEpochs.value_or(0), 3);
    QCOMPARE(spec.heartbeatGraceSeconds, 30.0);
    QCOMPARE(spec.heartbeatIntervalSeconds, 5.0);
    QCOMPARE(spec.settings.trialTimeoutSeconds.value_or(0), 90.0); // stored with the study: --resume keeps it
    QVERIFY(!spec.prepareData);
    QVERIFY(spec.schema.find("experiment.name") != nullptr);
}

void TestSearchArgs::resumeTakesOnlyWhatCanChange()
{
    cmdline::Args args;
    args.options = {{"resume", {"speed"}}, {"trials", {"9"}}, {"partition", {"DPX"}}};
    const SearchSpec spec = searchSpecFromArgs(args);
    QCOMPARE(spec.resumeStudy.value_or(""), std::string("speed"));
    QCOMPARE(spec.targetTrials.value_or(0), 9);
    QCOMPARE(spec.partition.value_or(""), std::string("DPX"));
    QVERIFY(spec.settings.spacePath.empty());
    QVERIFY(!spec.settings.trialTimeoutSeconds); // the stored one applies

    // A short grace period brings the heartbeats closer: a worker beats four times in it.
    args.options["heartbeat-grace"] = {"2"};
    QCOMPARE(searchSpecFromArgs(args).heartbeatIntervalSeconds, 0.5);
}

// --trial-timeout is part of the spec a job stores and `jobs resume` runs again.
void TestSearchArgs::trialTimeoutRoundTrips()
{
    const HpoJob job = HpoJob::fromArgs(
        std::vector<std::string>{"hpo", "--space", "s.yaml", "--trials", "2", "--trial-timeout", "2.5"});
    QCOMPARE(job.trialTimeoutSeconds.value_or(0), 2.5);
    const std::vector<std::string> words = job.toArgs();
    const auto at = std::find(words.begin(), words.end(), "--trial-timeout");
    QVERIFY(at != words.end() && at + 1 != words.end());
    QCOMPARE(*(at + 1), std::string("2.5"));
    QCOMPARE(HpoJob::fromArgs(words).trialTimeoutSeconds.value_or(0), 2.5);
    QVERIFY(!HpoJob::fromArgs(std::vector<std::string>{"hpo", "--space", "s.yaml"}).trialTimeoutSeconds);
}

void TestSearchArgs::badSearchesSayWhy_data()
{
    QTest::addColumn<QStringList>("words"); // option, value, option, value, ...; "=POS" adds a positional
    QTest::addColumn<QString>("message");
    QTest::newRow("no space") << QStringList{"trials", "2"}
                              << "--space SPACE.yaml is required: the search space (e.g. "
                                 "configs/transfuser/hpo/speed_space.yaml)";
    QTest::newRow("no trials") << QStringList{"space", "s.yaml"}
                               << "--trials N is required: how many trials the study should have";
    QTest::newRow("objective of a command")
        << QStringList{"space", "s.yaml", "trials", "2", "command", "run {x}", "objective", "val/loss"}
        << "--objective chooses a validation metric of the built-in trainer; a command reports its objective itself "
           "({\"objective\": V})";
    QTest::newRow("direction") << QStringList{"space", "s.yaml", "trials", "2", "direction", "up"}
                               << "--direction 'up' is not minimize or maximize";
    QTest::newRow("resume with a space")
        << QStringList{"resume", "speed", "space", "s.yaml"}
        << "--resume continues with the study's stored settings; --space cannot change them (--trials, --partition, "
           "--backend and --heartbeat-* can)";
    QTest::newRow("resume with a config") << QStringList{"resume", "speed", "=POS", "cfg.yaml"}
                                          << "--resume continues with the study's stored configs; give no config "
                                             "arguments";
    QTest::newRow("grace") << QStringList{"space", "s.yaml", "trials", "2", "heartbeat-grace", "0"}
                           << "--heartbeat-grace '0' is not a positive number of seconds";
    QTest::newRow("grace under two beats")
        << QStringList{"space", "s.yaml", "trials", "2", "heartbeat-grace", "3", "heartbeat-interval", "2"}
        << "--heartbeat-grace (3 s) must be at least twice --heartbeat-interval (2 s): a trial whose worker misses "
           "its beats that long fails";
    QTest::newRow("trial timeout") << QStringList{"space", "s.yaml", "trials", "2", "trial-timeout", "0"}
                                   << "--trial-timeout '0' is not a positive number of seconds";
    QTest::newRow("trial timeout, not a number") << QStringList{"space", "s.yaml", "trials", "2", "trial-timeout", "1h"}
                                                 << "--trial-timeout '1h' is not a positive number of seconds";
    QTest::newRow("resume with a trial timeout")
        << QStringList{"resume", "speed", "trial-timeout", "60"}
        << "--resume continues with the study's stored settings; --trial-timeout cannot change them (--trials, "
           "--partition, --backend and --heartbeat-* can)";
}

void TestSearchArgs::badSearchesSayWhy()
{
    QFETCH(QStringList, words);
    QFETCH(QString, message);
    cmdline::Args args;
    for (int i = 0; i + 1 < words.size(); i += 2)
        if (words[i] == "=POS")
            args.positionals.push_back(words[i + 1].toStdString());
        else
            args.options[words[i].toStdString()] = {words[i + 1].toStdString()};
    try {
        searchSpecFromArgs(args);
        QFAIL("a bad search was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()), message);
    }
}

void TestSearchArgs::workerOverlaysTheStudysSettings()
{
    HpoSettings stored;
    stored.configs = {"/study/cfg.yaml"};
    stored.overrides = {"a.b=1"};
    stored.spacePath = "/study/space.yaml";
    stored.objective = "val/loss";
    stored.logDir = "/study/logs";
    stored.targetTrials = 0;

    const HpoSettings same = workerSettingsFromArgs({}, stored);
    QCOMPARE(same.configs, stored.configs);
    QCOMPARE(same.overrides, stored.overrides);
    QCOMPARE(same.spacePath, stored.spacePath);
    QCOMPARE(same.logDir, stored.logDir);
    QCOMPARE(same.targetTrials, 1); // only passes the checks: the loop reads the live target

    cmdline::Args args;
    args.options = {{"command", {"run {x}"}}, {"space", {"other.yaml"}}, {"epochs", {"4"}}, {"objective", {"obj"}}};
    const HpoSettings given = workerSettingsFromArgs(args, stored);
    QVERIFY(given.configs.empty()); // a command replaces the stored configs and overrides together
    QVERIFY(given.overrides.empty());
    QCOMPARE(given.command, std::string("run {x}"));
    QCOMPARE(given.spacePath, cwd() + "/other.yaml");
    QCOMPARE(given.epochs.value_or(0), 4);
    QCOMPARE(given.objective, std::string("obj"));
    QCOMPARE(given.logDir, stored.logDir);
}

// `pitwall worker`'s device and loop: the defaults a pool relies on, and what the command line sets.
void TestSearchArgs::workerRunsOnItsDeviceAndLoop()
{
    HpoSettings settings;
    cmdline::Args defaults;
    defaults.options = {{"study", {"s"}}, {"db", {"r.db"}}};
    const WorkerRun plain = workerRunFromArgs(defaults, settings);
    QCOMPARE(plain.device.id, std::string("cpu:0.0"));
    QCOMPARE(plain.device.cpuSet, processCores());
    QCOMPARE(plain.device.threads, static_cast<int>(processCores().size()));
    QCOMPARE(plain.loop.storeLocation, std::string("r.db"));
    QCOMPARE(plain.loop.studyName, std::string("s"));
    QCOMPARE(plain.loop.device, std::string("cpu:0.0"));
    QVERIFY(!plain.loop.trialsLeft);
    QCOMPARE(plain.loop.logDir, std::string("hpo-logs"));
    QCOMPARE(plain.loop.heartbeatIntervalSeconds, 5.0);
    QVERIFY(plain.loop.workerId.find(':') != std::string::npos); // host:pid

    settings.logDir = "/runs/hpo";
    cmdline::Args args;
    args.options = {{"study", {"s"}},          {"device", {"cpu:0.2"}},   {"threads", {"3"}},
                    {"trials-left", {"2"}},    {"worker-id", {"pool:7"}}, {"worker-log", {"w.log"}},
                    {"heartbeat-interval", {"0.5"}}};
    const WorkerRun run = workerRunFromArgs(args, settings);
    QCOMPARE(run.device.id, std::string("cpu:0.2"));
    QCOMPARE(run.device.threads, 3);
    QCOMPARE(run.loop.device, std::string("cpu:0.2"));
    QCOMPARE(run.loop.trialsLeft.value_or(0), 2);
    QCOMPARE(run.loop.workerId, std::string("pool:7"));
    QCOMPARE(run.loop.workerLog, std::string("w.log"));
    QCOMPARE(run.loop.logDir, std::string("/runs/hpo"));
    QCOMPARE(run.loop.heartbeatIntervalSeconds, 0.5);

    cmdline::Args zeroThreads;
    zeroThreads.options = {{"threads", {"0"}}};
    QVERIFY_THROWS_EXCEPTION(InputError, workerRunFromArgs(zeroThreads, settings));
    cmdline::Args noStudy;
    try {
        workerStudySettings(noStudy);
        QFAIL("no error");
    } catch (const InputError& e) {
        QCOMPARE(std::string(e.what()), std::string("--study is required: the study to work on"));
    }
}

// The options a command declares are the ones its spec reads: each one searchSpecFromArgs and
// workerSettingsFromArgs read is declared once, so `pitwall hpo --multivariate` is accepted and listed in its help.
void TestSearchArgs::everyOptionReadIsDeclared()
{
    const auto names = [](const std::vector<cmdline::OptionSpec>& specs) {
        std::vector<std::string> out;
        for (const cmdline::OptionSpec& o : specs)
            out.push_back(o.name);
        return out;
    };
    const std::vector<std::string> search = names(searchOptionSpecs());
    for (const char* name : {"config",
                             "space",
                             "trials",
                             "epochs",
                             "partition",
                             "backend",
                             "sampler",
                             "seed",
                             "startup-trials",
                             "tpe-version",
                             "multivariate",
                             "independent",
                             "constant-liar",
                             "no-constant-liar",
                             "hypervolume-weights",
                             "tpe-gamma",
                             "tpe-refine-every",
                             "population-size",
                             "mutation-prob",
                             "crossover-prob",
                             "swapping-prob",
                             "pruner",
                             "warmup-steps",
                             "pruner-startup-trials",
                             "min-resource",
                             "max-resource",
                             "reduction-factor",
                             "study",
                             "command",
                             "objective",
                             "direction",
                             "constraint",
                             "final-epochs",
                             "best-params",
                             "model",
                             "labels",
                             "resume",
                             "log-dir",
                             "heartbeat-interval",
                             "heartbeat-grace",
                             "term-grace",
                             "trial-timeout",
                             "yes",
                             "launcher",
                             "slurm-args"})
        QVERIFY2(std::count(search.begin(), search.end(), name) == 1, name);
    QCOMPARE(search.size(), std::size_t(45));
    const std::vector<std::string> worker = names(workerOptionSpecs());
    for (const char* name : {"study", "config", "command", "space", "trials-left", "epochs", "objective", "model",
                             "device", "threads", "log-dir", "heartbeat-interval", "heartbeat-grace", "worker-id",
                             "worker-log", "stop-with-parent"})
        QVERIFY2(std::count(worker.begin(), worker.end(), name) == 1, name);
    QCOMPARE(worker.size(), std::size_t(16));
}

QTEST_GUILESS_MAIN(TestSearchArgs)
#include "tst_search_args.moc"
