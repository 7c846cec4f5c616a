// What `pitwall hpo` and `pitwall worker` make of their options (core/sched/searchargs.h). If this fails, a search
// runs with other settings than were typed, --resume silently drops an option it cannot change, or a worker on
// another machine gets relative paths or loses the study's stored settings.
#include "core/sched/searchargs.h"
#include "core/util/error.h"

#include <QtTest>

#include <filesystem>

using namespace pitwall;

class TestSchedSearchArgs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void newSearch();
    void resumeTakesOnlyWhatCanChange();
    void badSearchesSayWhy_data();
    void badSearchesSayWhy();
    void workerOverlaysTheStudysSettings();
};

namespace {
std::string cwd() { return std::filesystem::current_path().string(); }
} // namespace

void TestSchedSearchArgs::newSearch()
{
    cmdline::Args args;
    args.positionals = {"cfg.yaml", "training.optimization.batch_size=4"};
    args.options = {{"space", {"space.yaml"}}, {"trials", {"6"}},        {"epochs", {"2"}},
                    {"direction", {"maximize"}}, {"sampler", {"random"}}, {"db", {"r.db"}},
                    {"final-epochs", {"3"}},   {"heartbeat-grace", {"30"}}};
    const SearchSpec spec = searchSpecFromArgs(args);
    QCOMPARE(spec.storeLocation, cwd() + "/r.db");
    QVERIFY(!spec.resumeStudy);
    QCOMPARE(spec.settings.configs, (std::vector<std::string>{cwd() + "/cfg.yaml"}));
    QCOMPARE(spec.settings.overrides, (std::vector<std::string>{"training.optimization.batch_size=4"}));
    QCOMPARE(spec.settings.spacePath, cwd() + "/space.yaml");
    QCOMPARE(spec.settings.targetTrials, 6);
    QCOMPARE(spec.settings.epochs.value_or(0), 2);
    QCOMPARE(spec.settings.objective, std::string()); // the built-in trainer's hpo.objective, later
    QVERIFY(spec.direction == StudyDirection::Maximize);
    QVERIFY(spec.study.sampler.kind == SamplerKind::Random);
    QCOMPARE(spec.finalEpochs.value_or(0), 3);
    QCOMPARE(spec.heartbeatGraceSeconds, 30.0);
    QCOMPARE(spec.heartbeatIntervalSeconds, 5.0);
    QVERIFY(!spec.prepareData);
    QVERIFY(spec.schema.find("experiment.name") != nullptr);
}

void TestSchedSearchArgs::resumeTakesOnlyWhatCanChange()
{
    cmdline::Args args;
    args.options = {{"resume", {"speed"}}, {"trials", {"9"}}, {"partition", {"DPX"}}};
    const SearchSpec spec = searchSpecFromArgs(args);
    QCOMPARE(spec.resumeStudy.value_or(""), std::string("speed"));
    QCOMPARE(spec.targetTrials.value_or(0), 9);
    QCOMPARE(spec.partition.value_or(""), std::string("DPX"));
    QVERIFY(spec.settings.spacePath.empty());
}

void TestSchedSearchArgs::badSearchesSayWhy_data()
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
}

void TestSchedSearchArgs::badSearchesSayWhy()
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

void TestSchedSearchArgs::workerOverlaysTheStudysSettings()
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

QTEST_GUILESS_MAIN(TestSchedSearchArgs)
#include "tst_sched_searchargs.moc"
