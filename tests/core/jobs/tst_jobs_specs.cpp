// The job specs of core/jobs (hpojob.h, benchjobs.h, evaljob.h, trainjob.h), the problems by field
// (jobproblems.h) and the variants file (variantsfile.h). If this fails, the window starts another command line
// than its fields say, "Edit spec" loads a job's options into the wrong fields or drops some, a problem of
// `--check --json` is shown at the wrong field, or "Compare these" writes a bench file the benchmark reads otherwise.
#include "core/jobs/benchjobs.h"
#include "core/jobs/evaljob.h"
#include "core/jobs/hpojob.h"
#include "core/jobs/jobcontrolspec.h"
#include "core/jobs/jobproblems.h"
#include "core/jobs/trainjob.h"
#include "core/jobs/variantsfile.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <functional>
#include <stdexcept>

using namespace pitwall;

class TestJobsSpecs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrips_data();
    void roundTrips();
    void typedValues();
    void badValuesNameTheirOption_data();
    void badValuesNameTheirOption();
    void wordsOfAnotherCommandAreRefused();
    void problemsGoToTheirField();
    void problemsJsonBothWays();
    void variantsFileBothWays();
    void defaultStudyName();
    void jobControlCommands();
};

namespace {

std::vector<std::string> wordsOf(const QStringList& list)
{
    std::vector<std::string> out;
    for (const QString& w : list)
        out.push_back(w.toStdString());
    return out;
}

// The words the spec of `words`' command writes back after reading them.
std::vector<std::string> again(const std::vector<std::string>& words)
{
    const std::string first = words.at(0), second = words.size() > 1 ? words[1] : "";
    if (first == "hpo")
        return HpoJob::fromArgs(words).toArgs();
    if (first == "train")
        return TrainJob::fromArgs(words).toArgs();
    if (first == "eval" && second == "detection")
        return DetectionEvalJob::fromArgs(words).toArgs();
    if (first == "eval")
        return DrivingEvalJob::fromArgs(words).toArgs();
    if (second == "variants")
        return VariantsBenchJob::fromArgs(words).toArgs();
    if (second == "partitions")
        return PartitionBenchJob::fromArgs(words).toArgs();
    return LoaderBenchJob::fromArgs(words).toArgs();
}

std::string inputErrorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

// words: a command line as a spec writes it; fromArgs then toArgs gives it back word for word (and a second round
// changes nothing).
void TestJobsSpecs::roundTrips_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::newRow("hpo, the window's") << QStringList{"hpo",  "/c/smoke.yaml", "--space", "/c/space.yaml", "--trials",
                                                      "4",    "--sampler",     "tpe",     "--pruner",      "none",
                                                      "--db", "/d/r.db"};
    QTest::newRow("hpo, everything") << QStringList{"hpo",
                                                    "a.yaml",
                                                    "b.yaml",
                                                    "training.optimization.batch_size=4",
                                                    "--space",
                                                    "s.yaml",
                                                    "--trials",
                                                    "6",
                                                    "--epochs",
                                                    "2",
                                                    "--objective",
                                                    "val/loss",
                                                    "--model",
                                                    "transfuser",
                                                    "--term-grace",
                                                    "2.5",
                                                    "--study",
                                                    "S",
                                                    "--direction",
                                                    "maximize",
                                                    "--sampler",
                                                    "random",
                                                    "--seed",
                                                    "7",
                                                    "--startup-trials",
                                                    "3",
                                                    "--multivariate",
                                                    "--constant-liar",
                                                    "--pruner",
                                                    "sha",
                                                    "--min-resource",
                                                    "2",
                                                    "--reduction-factor",
                                                    "3",
                                                    "--log-dir",
                                                    "logs",
                                                    "--final-epochs",
                                                    "3",
                                                    "--best-params",
                                                    "best.yaml",
                                                    "--partition",
                                                    "DPX",
                                                    "--backend",
                                                    "cpu",
                                                    "--heartbeat-interval",
                                                    "2",
                                                    "--heartbeat-grace",
                                                    "30",
                                                    "--db",
                                                    "r.db"};
    QTest::newRow("hpo, a command") << QStringList{"hpo",     "--space",
                                                   "s.yaml",  "--trials",
                                                   "3",       "--command",
                                                   "run {x}", "--sampler",
                                                   "grid",    "--tpe-version",
                                                   "3.1",     "--independent",
                                                   "--no-constant-liar", "--hypervolume-weights",
                                                   "--tpe-gamma", "0.15",
                                                   "--tpe-refine-every", "0",
                                                   "--pruner",
                                                   "median",  "--warmup-steps",
                                                   "2",       "--pruner-startup-trials",
                                                   "1"};
    QTest::newRow("hpo --resume") << QStringList{"hpo", "--resume", "S", "--trials", "9", "--partition", "QPX"};
    QTest::newRow("train") << QStringList{"train", "/c/smoke.yaml", "a.b=1", "--seed", "3", "--resume", "--db", "r.db"};
    QTest::newRow("bench variants") << QStringList{"bench",      "variants", "/c/speed.yaml", "a.b=2",
                                                   "--seeds",    "0,1,2",    "--only",        "Baseline,Fast",
                                                   "--markdown", "--db",     "r.db"};
    QTest::newRow("bench partitions") << QStringList{
        "bench", "partitions", "a.b=1", "--config",  "/c/smoke.yaml", "--modes", "SPX,CPX", "--batch-sizes",
        "8,16",  "--epochs",   "1",     "--backend", "cpu",           "--out",   "o",       "--plot",
        "p.png", "--db",       "r.db"};
    QTest::newRow("bench loader") << QStringList{"bench",        "loader",
                                                 "--images",     "/i",
                                                 "--batch",      "4",
                                                 "--width",      "256",
                                                 "--height",     "96",
                                                 "--batches",    "200",
                                                 "--warmup",     "50",
                                                 "--threads",    "2",
                                                 "--prefetch",   "3",
                                                 "--mode",       "reference",
                                                 "--no-augment", "--preprocessed",
                                                 "--cache",      "c.bin",
                                                 "--dct-scale",  "any",
                                                 "--decode",     "whole",
                                                 "--seed",       "5"};
    QTest::newRow("bench loader, a dataset") << QStringList{"bench", "loader", "--dataset", "/d", "--split", "val"};
    QTest::newRow("eval driving") << QStringList{
        "eval", "driving",  "--policy", "12,13",     "--routes", "5",         "--seed", "9",    "--route-seconds",
        "10",   "--replay", "r",        "--plan-hz", "5",        "--threads", "2",      "--db", "r.db"};
    QTest::newRow("eval driving, expert") << QStringList{"eval", "driving", "--policy", "expert"};
    QTest::newRow("eval detection") << QStringList{"eval", "detection",     "--dataset", "/d",   "--split",
                                                   "val",  "--predictions", "p.json",    "--ap", "coco"};
    QTest::newRow("eval detection, defaults") << QStringList{"eval", "detection", "--predictions", "p.json"};
}

void TestJobsSpecs::roundTrips()
{
    QFETCH(QStringList, words);
    const std::vector<std::string> given = wordsOf(words);
    const std::vector<std::string> back = again(given);
    QCOMPARE(back, given);
    QCOMPARE(again(back), back);
}

// What fromArgs makes of the words: typed values, and the forms a terminal user types that the spec writes its own way.
void TestJobsSpecs::typedValues()
{
    const HpoJob hpo = HpoJob::fromArgs(std::vector<std::string>{"hpo", "cfg.yaml", "x.y=1", "--config", "first.yaml",
                                                                 "--trials=5", "--direction", "MAXIMIZE", "--pruner",
                                                                 "hyperband", "--check", "--detach"});
    QCOMPARE(hpo.configs, (std::vector<std::string>{"first.yaml", "cfg.yaml"})); // --config's first, as the CLI
    QCOMPARE(hpo.overrides, (std::vector<std::string>{"x.y=1"}));
    QCOMPARE(hpo.trials.value_or(0), 5);
    QVERIFY(hpo.directions == std::vector<StudyDirection>{StudyDirection::Maximize});
    QVERIFY(hpo.studyOptions.pruner.kind == PrunerKind::Hyperband);
    QVERIFY(hpo.studyOptions.sampler.kind == SamplerKind::Tpe);
    const std::vector<std::string> written = hpo.toArgs();
    QVERIFY(std::find(written.begin(), written.end(), "maximize") != written.end());

    const VariantsBenchJob variants = VariantsBenchJob::fromArgs(
        std::vector<std::string>{"bench", "variants", "f.yaml", "--seeds", "3", "--only", "A, B"});
    QCOMPARE(*variants.seeds, (std::vector<std::int64_t>{0, 1, 2}));
    QCOMPARE(variants.only, (std::vector<std::string>{"A", "B"}));

    const PartitionBenchJob partitions = PartitionBenchJob::fromArgs(
        std::vector<std::string>{"bench", "partitions", "pos.yaml", "--config", "opt.yaml", "--modes", "spx, qpx"});
    QCOMPARE(partitions.configs, (std::vector<std::string>{"pos.yaml", "opt.yaml"})); // the positionals' first
    QCOMPARE(*partitions.modes, (std::vector<std::string>{"SPX", "QPX"}));
    QVERIFY(!partitions.batchSizes && !partitions.epochs);

    const DrivingEvalJob driving =
        DrivingEvalJob::fromArgs(std::vector<std::string>{"eval", "driving", "--policy", "3, 4"});
    QCOMPARE(driving.policies, (std::vector<std::string>{"3", "4"}));
    QVERIFY(!driving.routes);

    const DetectionEvalJob detection = DetectionEvalJob::fromArgs(
        std::vector<std::string>{"eval", "detection", "--dataset", "/d", "--predictions=p.json", "--ap", "coco"});
    QCOMPARE(detection.dataset, std::string("/d"));
    QCOMPARE(detection.predictions, std::string("p.json"));
    QVERIFY(detection.split.empty());
    QVERIFY(detection.ap == eval::ApMethod::Coco);
    QVERIFY(!DetectionEvalJob::fromArgs(std::vector<std::string>{"eval", "detection"}).ap);
}

void TestJobsSpecs::badValuesNameTheirOption_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("message");
    QTest::newRow("trials") << QStringList{"hpo", "--trials", "0"} << "--trials"
                            << "--trials '0' is not an integer >= 1";
    QTest::newRow("sampler") << QStringList{"hpo", "--sampler", "cma"} << "--sampler"
                             << "--sampler 'cma' is not one of random, grid, tpe, nsga2";
    QTest::newRow("resume") << QStringList{"hpo", "--resume", "S", "--study", "T"} << "--study"
                            << "--resume continues with the study's stored settings; --study cannot change them "
                               "(--trials, --partition, --backend and --heartbeat-* can)";
    QTest::newRow("resume, a sampler setting") << QStringList{"hpo", "--resume", "S", "--tpe-gamma", "0.3"}
                                               << "--tpe-gamma"
                                               << "--resume continues with the study's stored settings; --tpe-gamma "
                                                  "cannot change them (--trials, --partition, --backend and "
                                                  "--heartbeat-* can)";
    QTest::newRow("resume, a switch") << QStringList{"hpo", "--resume", "S", "--multivariate"} << "--multivariate"
                                      << "--resume continues with the study's stored settings; --multivariate "
                                         "cannot change them (--trials, --partition, --backend and "
                                         "--heartbeat-* can)";
    QTest::newRow("unknown option") << QStringList{"hpo", "--trails", "3"} << "--trails"
                                    << "unknown option '--trails'; did you mean '--trials'?";
    QTest::newRow("seeds") << QStringList{"bench", "variants", "f.yaml", "--seeds", "0,x"} << "--seeds"
                           << "--seeds '0,x': 'x' is not a seed";
    QTest::newRow("batch sizes") << QStringList{"bench", "partitions", "--batch-sizes", "8,0"} << "--batch-sizes"
                                 << "--batch-sizes '8,0': '0' is not a batch size >= 1";
    QTest::newRow("modes") << QStringList{"bench", "partitions", "--modes", "SPX,HPX"} << "--modes"
                           << "--modes: 'HPX' is not one of SPX, DPX, QPX, CPX";
    QTest::newRow("loader width") << QStringList{"bench", "loader", "--width", "100000"} << "--width"
                                  << "--width 100000: give a whole number in 1..8192";
    QTest::newRow("loader mode") << QStringList{"bench", "loader", "--mode", "dali"} << "--mode"
                                 << "--mode dali: give pitwall or reference";
    QTest::newRow("routes") << QStringList{"eval", "driving", "--routes", "0"} << "--routes"
                            << "--routes '0': give an integer in 1..10000";
    QTest::newRow("policy") << QStringList{"eval", "driving", "--policy", "3,x"} << "--policy"
                            << "--policy '3,x': give expert, idle, a run id or a comma-separated list of run ids (one "
                               "per training seed; see 'pitwall db export --run')";
    QTest::newRow("ap method") << QStringList{"eval", "detection", "--ap", "voc"} << "--ap"
                               << "--ap 'voc' is not an AP method: give autospeed or coco";
    QTest::newRow("train seed") << QStringList{"train", "c.yaml", "--seed", "-1"} << "--seed"
                                << "--seed '-1' is not an integer >= 0";
}

void TestJobsSpecs::badValuesNameTheirOption()
{
    QFETCH(QStringList, words);
    QFETCH(QString, option);
    QFETCH(QString, message);
    try {
        again(wordsOf(words));
        QFAIL("a bad value was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()), message);
        QCOMPARE(QString::fromStdString(e.diagnostics().front().option), option);
    }
}

void TestJobsSpecs::wordsOfAnotherCommandAreRefused()
{
    QVERIFY(!inputErrorOf([] { HpoJob::fromArgs(std::vector<std::string>{"train", "c.yaml"}); }).empty());
    QVERIFY(!inputErrorOf([] { LoaderBenchJob::fromArgs(std::vector<std::string>{"bench", "variants"}); }).empty());
    QVERIFY(inputErrorOf([] {
                LoaderBenchJob::fromArgs(std::vector<std::string>{"bench", "loader", "x.yaml"});
            }).starts_with("pitwall bench loader takes no positional arguments (got 'x.yaml')"));
}

// A problem goes to the field of the option it names, else to the field whose file it was found in, else to the
// kind's fallback; never by its words (the message below names other options on purpose).
void TestJobsSpecs::problemsGoToTheirField()
{
    cmdline::Args args;
    args.positionals = {"cfg.yaml"};
    args.options = {{"space", {"spaces/s.yaml"}}, {"trials", {"4"}}};
    const InputError error(
        std::vector<Diagnostic>{{{}, "study 'x' exists: --trials and --objective cannot fix that", "--study"},
                                {{"spaces/../spaces/s.yaml", 3, 4}, "unknown key (see --trials)"},
                                {{"cfg.yaml", 1, 1}, "bad value"},
                                {{}, "something else"},
                                {{}, "a batch size", "--batch-sizes"}});
    const std::vector<JobProblem> problems = jobProblems(error, HpoJob::fields(), args);
    QCOMPARE(problems.size(), std::size_t(5));
    QCOMPARE(problems[0],
             (JobProblem{"study", "--study", "study 'x' exists: --trials and --objective cannot fix that"}));
    QCOMPARE(problems[1].field, std::string("space"));
    QCOMPARE(problems[1].option, std::string("--space"));
    QCOMPARE(problems[1].message, std::string("spaces/../spaces/s.yaml:3:4: unknown key (see --trials)"));
    QCOMPARE(problems[2].field, std::string("configs"));
    QCOMPARE(problems[2].option, std::string());
    QCOMPARE(problems[3].field, std::string()); // hpo has no fallback field
    QCOMPARE(problems[4].field, std::string()); // not an option of hpo
    QCOMPARE(problems[4].option, std::string("--batch-sizes"));

    // A driving evaluation's problems of the runs it was given belong to the policy.
    const InputError noCheckpoint("run 7 has no checkpoint (--routes 3 would not help)");
    const std::vector<JobProblem> driving = jobProblems(noCheckpoint, DrivingEvalJob::fields(), {});
    QCOMPARE(driving.front().field, std::string("policy"));
    QCOMPARE(driving.front().option, std::string("--policy"));

    for (const JobFields* fields : {&HpoJob::fields(), &VariantsBenchJob::fields(), &PartitionBenchJob::fields(),
                                    &LoaderBenchJob::fields(), &DrivingEvalJob::fields(), &TrainJob::fields()})
        for (const JobField& f : fields->fields)
            QVERIFY2(f.field.find('-') == std::string::npos && !f.field.empty(), f.field.c_str());
    const auto hasField = [](const JobFields& fields, const std::string& name, const std::string& option) {
        return std::any_of(fields.fields.begin(), fields.fields.end(),
                           [&](const JobField& f) { return f.field == name && f.option == option; });
    };
    QVERIFY(hasField(HpoJob::fields(), "final_epochs", "--final-epochs"));
    QVERIFY(hasField(HpoJob::fields(), "configs", "--config"));
    QVERIFY(hasField(PartitionBenchJob::fields(), "batch_sizes", "--batch-sizes"));
    QVERIFY(hasField(VariantsBenchJob::fields(), "file", ""));
}

void TestJobsSpecs::problemsJsonBothWays()
{
    const std::vector<JobProblem> problems{{"trials", "--trials", "--trials '0' is not an integer >= 1"},
                                           {"", "", "the results database is damaged"}};
    const nlohmann::json document = jobProblemsJson(problems);
    QCOMPARE(document.value("ok", true), false);
    QCOMPARE(document["problems"][0].value("field", std::string()), std::string("trials"));
    QCOMPARE(document["problems"][0].value("option", std::string()), std::string("--trials"));
    QCOMPARE(jobProblemsFromJson(document), problems);
    QVERIFY(jobProblemsFromJson(nlohmann::json{{"ok", true}}).empty());
    QVERIFY(jobProblemsFromJson(nlohmann::json::parse("not json", nullptr, false)).empty());
    QCOMPARE(checkWords({"hpo", "c.yaml"}), (std::vector<std::string>{"hpo", "c.yaml", "--check", "--json"}));
    QCOMPARE(detachedWords({"train"}), (std::vector<std::string>{"train", "--detach"}));
}

// What variantsFileYaml writes, readVariantsFile reads back as it was (names and overrides with quotes, colons and
// commas; the optional sections).
void TestJobsSpecs::variantsFileBothWays()
{
    QTemporaryDir dir;
    VariantsFile file;
    file.name = "smoke-speed: \"quoted\"";
    file.base = {dir.filePath("base config.yaml").toStdString()};
    file.variants = {{"Baseline", {}, {"policy.transfuser.upsample_mode=bilinear", "a.b=[1, 2]"}, {}},
                     {"+ a=1, b=2", {dir.filePath("more.yaml").toStdString()}, {}, "Baseline"}};
    const auto readBack = [&](const VariantsFile& f) {
        const std::string path = dir.filePath("bench.yaml").toStdString();
        std::ofstream(path) << variantsFileYaml(f, "Written by a test.\nSecond line.");
        return readVariantsFile(path);
    };
    const auto same = [](const VariantsFile& a, const VariantsFile& b) {
        QCOMPARE(a.name, b.name);
        QCOMPARE(a.base, b.base);
        QCOMPARE(a.seeds, b.seeds.empty() ? std::vector<std::int64_t>{0} : b.seeds);
        QCOMPARE(a.qualityMetric, b.qualityMetric);
        QCOMPARE(a.qualityLabel, b.qualityLabel);
        QCOMPARE(a.qualityHigherIsBetter, b.qualityHigherIsBetter);
        QCOMPARE(a.driving.enabled, b.driving.enabled);
        QCOMPARE(a.driving.routes, b.driving.routes);
        QCOMPARE(a.driving.routeSeconds, b.driving.routeSeconds);
        QVERIFY(a.table == b.table);
        QCOMPARE(a.variants.size(), b.variants.size());
        for (std::size_t i = 0; i < a.variants.size(); ++i) {
            QCOMPARE(a.variants[i].name, b.variants[i].name);
            QCOMPARE(a.variants[i].configs, b.variants[i].configs);
            QCOMPARE(a.variants[i].overrides, b.variants[i].overrides);
            QCOMPARE(a.variants[i].compareTo, b.variants[i].compareTo);
        }
    };
    same(readBack(file), file);
    file.seeds = {3, 1};
    file.qualityMetric = "map50";
    file.qualityLabel = "mAP50";
    file.qualityHigherIsBetter = true;
    file.driving = {true, 4, 12.5, 2};
    file.table = VariantsTableKind::Loader;
    same(readBack(file), file);
    QVERIFY(variantsFileYaml(file, "Written by a test.").starts_with("# Written by a test.\nname: "));
}

void TestJobsSpecs::defaultStudyName()
{
    QCOMPARE(HpoJob::defaultStudyName(std::string("transfuser-town05")), std::string("transfuser-town05-hpo"));
    QCOMPARE(HpoJob::defaultStudyName(std::nullopt), std::string("hpo"));
}

// Stop and resume: the words the window runs are the ones the CLI reads back (through the CLI's own option list), a
// bad job id is refused, --db is added once, and only detached starts and resumes count as starting a job.
void TestJobsSpecs::jobControlCommands()
{
    // The words after "jobs stop", parsed against the options the CLI declares for it.
    const auto parseStop = [](const std::vector<std::string>& words) -> JobStopSpec {
        if (words.size() < 2 || words[0] != "jobs" || words[1] != "stop")
            throw std::logic_error("not a jobs stop command line");
        return JobStopSpec::fromArgs(cmdline::parseArgs(JobStopSpec::optionSpecs(), {words.begin() + 2, words.end()}));
    };
    const JobStopSpec graceful{.job = 7};
    QCOMPARE(graceful.toArgs(), (std::vector<std::string>{"jobs", "stop", "7"}));
    const JobStopSpec back = parseStop(graceful.toArgs());
    QCOMPARE(back.job, std::int64_t(7));
    QVERIFY(!back.now && !back.wait);
    const JobStopSpec now{.job = 12, .now = true, .wait = true};
    QCOMPARE(now.toArgs(), (std::vector<std::string>{"jobs", "stop", "12", "--now", "--wait"}));
    const JobStopSpec nowBack = parseStop(now.toArgs());
    QCOMPARE(nowBack.job, std::int64_t(12));
    QVERIFY(nowBack.now && nowBack.wait);

    const JobResumeSpec resume{.job = 3};
    QCOMPARE(resume.toArgs(), (std::vector<std::string>{"jobs", "resume", "3"}));
    QCOMPARE(JobResumeSpec::fromArgs(cmdline::parseArgs({}, {"3"})).job, std::int64_t(3));
    QVERIFY(!JobResumeSpec::fromArgs(cmdline::parseArgs(JobResumeSpec::optionSpecs(), {"3"})).yes);
    const JobResumeSpec confirmed{.job = 5, .yes = true};
    QCOMPARE(confirmed.toArgs(), (std::vector<std::string>{"jobs", "resume", "5", "--yes"}));
    const std::vector<std::string> confirmedWords = confirmed.toArgs();
    const JobResumeSpec confirmedBack = JobResumeSpec::fromArgs(
        cmdline::parseArgs(JobResumeSpec::optionSpecs(), {confirmedWords.begin() + 2, confirmedWords.end()}));
    QCOMPARE(confirmedBack.job, std::int64_t(5));
    QVERIFY(confirmedBack.yes);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{}, {"0"}, {"x7"}, {"3", "4"}}) {
        try {
            JobResumeSpec::fromArgs(cmdline::parseArgs({}, bad));
            QFAIL("a bad job id was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("pitwall jobs resume: ") == 0, e.what());
        }
    }

    QCOMPARE(withDatabase({"jobs", "stop", "7"}, "/data/p.db"),
             (std::vector<std::string>{"jobs", "stop", "7", "--db", "/data/p.db"}));
    QCOMPARE(withDatabase({"hpo", "--db", "/a.db", "c.yaml"}, "/b.db"),
             (std::vector<std::string>{"hpo", "--db", "/a.db", "c.yaml"}));
    QCOMPARE(withDatabase({"hpo", "--db=/a.db"}, "/b.db"), (std::vector<std::string>{"hpo", "--db=/a.db"}));

    QVERIFY(startsBackgroundJob(resume.toArgs()));
    QVERIFY(startsBackgroundJob(detachedWords({"train", "c.yaml"})));
    QVERIFY(!startsBackgroundJob(now.toArgs()));
    QVERIFY(!startsBackgroundJob({"train", "c.yaml"}));
}

QTEST_GUILESS_MAIN(TestJobsSpecs)
#include "tst_jobs_specs.moc"
