// What the benchmark and evaluation commands make of their options and what they print, from plain values:
// bench loader (core/engine/loaderbenchreport.h), bench partitions (core/engine/train/partitionbenchreport.h),
// bench variants (core/engine/train/variantsbenchreport.h) and eval driving's spec and check
// (core/engine/drive/policyreport.h). If this fails, a command measures something other than was typed, a bad value
// is taken instead of named, or a line or JSON field that scripts and the window read changed.
#include "core/engine/drive/policyreport.h"
#include "core/engine/loaderbenchreport.h"
#include "core/engine/train/partitionbenchreport.h"
#include "core/engine/train/variantsbenchreport.h"
#include "core/util/error.h"

#include <QtTest>

#include <functional>

#include "tests/support/testpaths.h"

using pitwall::test::sourceFile;

using namespace pitwall;
using namespace pitwall::image;

class TestBenchReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void loaderOptions();
    void loaderOptionsSayWhatIsWrong_data();
    void loaderOptionsSayWhatIsWrong();
    void loaderCheck();
    void loaderResult();
    void partitionSpec();
    void partitionCheckAndResult();
    void variantsSeedsAndCheck();
    void variantsResult();
    void drivingSpecAndCheck();
};

namespace {

cmdline::Args argsOf(std::initializer_list<std::pair<std::string, std::string>> options)
{
    cmdline::Args args;
    for (const auto& [name, value] : options)
        args.options[name].push_back(value);
    return args;
}

std::string inputErrorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

void TestBenchReports::loaderOptions()
{
    using namespace engine::data;
    const LoaderBenchOptions defaults = engine::loaderBenchOptions({});
    QCOMPARE(defaults.batches, 1000);
    QCOMPARE(defaults.warmup, 300);
    QCOMPARE(defaults.loader.batchSize, 8);
    QCOMPARE(defaults.loader.sample.outputWidth, 1024);
    QCOMPARE(defaults.loader.sample.outputHeight, 372);
    QCOMPARE(defaults.loader.prefetchBatches, 4);
    QVERIFY(defaults.loader.mode == LoaderMode::Pitwall);
    QVERIFY(defaults.loader.sample.augment.enabled);
    QVERIFY(defaults.loader.sample.scaleChoice == ScaleChoice::FastEighths);
    QVERIFY(defaults.loader.sample.regionDecode);
    QVERIFY(!engine::loaderBenchOptions(argsOf({{"decode", "whole"}})).loader.sample.regionDecode);

    const LoaderBenchOptions reference = engine::loaderBenchOptions(
        argsOf({{"mode", "reference"}, {"images", "/img"}, {"batch", "2"}, {"threads", "256"}, {"no-augment", ""},
                {"dct-scale", "any-up"}, {"seed", "7"}, {"preprocessed", ""}, {"cache", "/c.bin"}}));
    QCOMPARE(reference.images, std::string("/img"));
    QVERIFY(reference.loader.mode == LoaderMode::Reference);
    QCOMPARE(reference.loader.prefetchBatches, 2); // DataLoader's prefetch_factor unless --prefetch
    QCOMPARE(reference.loader.batchSize, 2);
    QCOMPARE(reference.loader.threads, 256);
    QVERIFY(!reference.loader.sample.augment.enabled);
    QVERIFY(reference.loader.sample.scaleChoice == ScaleChoice::AnyEighthUp);
    QCOMPARE(reference.loader.shard.seed, std::uint64_t(7));
    QVERIFY(reference.loader.usePreprocessed);
    QCOMPARE(reference.loader.cachePath, std::string("/c.bin"));
    QCOMPARE(engine::loaderBenchOptions(argsOf({{"mode", "reference"}, {"prefetch", "6"}})).loader.prefetchBatches, 6);
}

void TestBenchReports::loaderOptionsSayWhatIsWrong_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("threads") << "threads" << "100000" << "--threads 100000: give a whole number in 0..256";
    QTest::newRow("width") << "width" << "100000" << "--width 100000: give a whole number in 1..8192";
    QTest::newRow("batch") << "batch" << "0" << "--batch 0: give a whole number in 1..4096";
    QTest::newRow("not a number") << "warmup" << "ten" << "--warmup ten: give a whole number in 0..1000000";
    QTest::newRow("mode") << "mode" << "dali" << "--mode dali: give pitwall or reference";
    QTest::newRow("dct scale") << "dct-scale" << "half" << "--dct-scale half: give fast, any, any-up or full";
    QTest::newRow("decode") << "decode" << "crop" << "--decode crop: give region or whole";
}

void TestBenchReports::loaderOptionsSayWhatIsWrong()
{
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, message);
    const cmdline::Args args = argsOf({{option.toStdString(), value.toStdString()}});
    QCOMPARE(QString::fromStdString(inputErrorOf([&] { engine::loaderBenchOptions(args); })), message);
}

void TestBenchReports::loaderCheck()
{
    using namespace engine::data;
    cmdline::Args stray;
    stray.positionals = {"stray.yaml"};
    QVERIFY(inputErrorOf([&] { engine::loaderBenchOptions(stray); })
                .starts_with("pitwall bench loader takes no positional arguments (got 'stray.yaml')"));

    LoaderBenchOptions options = engine::loaderBenchOptions(argsOf({{"batch", "2"}, {"width", "256"}, {"height", "96"}}));
    auto index = std::make_shared<DatasetIndex>();
    index->kind = DatasetKind::Synth;
    index->root = "/data/synth";
    index->samples.resize(3);
    LoaderBenchCheck check{index, 4, ""};
    QCOMPARE(engine::loaderBenchCheckText(options, check),
             std::string("ok: synth dataset of 3 images in /data/synth\n"
                         "ok: would measure 1000 batches of 2 at 256x96 after 300 warm-up with the pitwall loader (4 "
                         "workers)\n"));
    check.cachePath = "/data/synth/.pitwall-cache/preprocessed.bin";
    QVERIFY(engine::loaderBenchCheckText(options, check)
                .ends_with("(4 workers), pre-processed cache /data/synth/.pitwall-cache/preprocessed.bin\n"));
    const nlohmann::json json = engine::loaderBenchCheckJson(options, check);
    QVERIFY(json["ok"].get<bool>());
    QCOMPARE(json["dataset_kind"].get<std::string>(), std::string("synth"));
    QCOMPARE(json["images"].get<long long>(), 3LL);
    QCOMPARE(json["workers"].get<int>(), 4);
    QCOMPARE(json["width"].get<int>(), 256);
    QCOMPARE(json["cache"].get<std::string>(), check.cachePath);
    QCOMPARE(json.size(), std::size_t(12));
}

void TestBenchReports::loaderResult()
{
    using namespace engine::data;
    LoaderOptions l;
    l.batchSize = 8;
    l.sample.outputWidth = 1024;
    l.sample.outputHeight = 372;
    LoaderBenchResult r;
    r.mode = "pitwall";
    r.datasetKind = "images";
    r.images = 64;
    r.workers = 4;
    r.cores = 2;
    r.batches = 100;
    r.warmup = 10;
    r.msPerBatch = 12.5;
    r.cpuPercent = 190.4;
    r.decodeMsPerImage = 3.0;
    r.floorMsPerBatch = 12.0;
    r.floorRatio = 1.04;
    r.decodedEighths = {{8, 100}};
    r.problems = {{"bad.jpg", "not a JPEG"}};
    r.invalidSamples = 2;
    r.sampleSlots = 880;
    const std::string text = engine::loaderBenchResultText(r, l);
    QVERIFY2(text.starts_with("pitwall loader, images dataset of 64 images, batch 8 at 1024x372, augmented, 4 workers "
                              "on 2 cores\n  12.50 ms/batch, CPU 190 % (100 = one core) over 100 batches after 10 "
                              "warm-up\n  decode-bound floor: 3.00 ms/image full-scale x 8 / 2 = 12.00 ms/batch; ratio "
                              "1.04\n"),
             text.c_str());
    QVERIFY2(text.ends_with("  1 of 64 images could not be read or decoded; 2 of 880 sample slot(s) left empty:\n"
                            "    bad.jpg: not a JPEG\n"),
             text.c_str());
    QVERIFY(text.find("  cache:") == std::string::npos); // only with the pre-processed cache
    const nlohmann::json json = engine::loaderBenchResultJson(r, l);
    QCOMPARE(json["ms_per_batch"].get<double>(), 12.5);
    QCOMPARE(json["failed_images"].get<std::size_t>(), std::size_t(1));
    QCOMPARE(json["problems"][0]["reason"].get<std::string>(), std::string("not a JPEG"));
    QCOMPARE(json["decoded_eighths"]["8"].get<long long>(), 100LL);
    QCOMPARE(json["decoded_scale"].get<std::string>(), describeDecodedScales(r.decodedEighths));
    QCOMPARE(json["batch"].get<int>(), 8);
    QCOMPARE(json["decode"].get<std::string>(), std::string("region"));
    QCOMPARE(json.size(), std::size_t(39));
    l.sample.regionDecode = false; // said on the first line, as it is not the default
    QVERIFY(engine::loaderBenchResultText(r, l).starts_with("pitwall loader, images dataset of 64 images, batch 8 at "
                                                            "1024x372, augmented, whole-image decode, 4 workers"));
    QCOMPARE(engine::loaderBenchResultJson(r, l)["decode"].get<std::string>(), std::string("whole"));
}

void TestBenchReports::partitionSpec()
{
    QTemporaryDir dir;
    cmdline::Args args = argsOf({{"config", sourceFile("/configs/transfuser/smoke.yaml")},
                                 {"modes", "SPX, QPX"},
                                 {"batch-sizes", "4,8"},
                                 {"epochs", "1"},
                                 {"out", dir.filePath("out").toStdString()},
                                 {"db", dir.filePath("r.db").toStdString()}});
    args.positionals = {"experiment.name=parts"};
    const engine::PartitionBenchSpec spec = engine::partitionBenchSpec(args);
    QCOMPARE(spec.modes, (std::vector<std::string>{"SPX", "QPX"}));
    QCOMPARE(spec.batchSizes, (std::vector<long long>{4, 8}));
    QCOMPARE(spec.epochs, 1LL);
    QCOMPARE(spec.configs.size(), std::size_t(2));
    QCOMPARE(spec.configs[1].getInt("training.optimization.batch_size"), 8LL);
    QCOMPARE(spec.configs[0].getString("experiment.name"), std::string("parts"));
    QCOMPARE(spec.overrides, (std::vector<std::string>{"experiment.name=parts", "training.stages.pretrain.epochs=1",
                                                        "training.stages.posttrain.epochs=0"}));
    QCOMPARE(spec.outputDir, dir.filePath("out").toStdString());
    QCOMPARE(spec.plotPath, dir.filePath("out/partitions.png").toStdString());
    QCOMPARE(spec.storeLocation, dir.filePath("r.db").toStdString());

    QCOMPARE(inputErrorOf([] { engine::partitionBenchSpec(argsOf({{"config", "x.yaml"}, {"modes", "SPX,HPX"}})); }),
             std::string("--modes: 'HPX' is not one of SPX, DPX, QPX, CPX"));
    QCOMPARE(inputErrorOf([] { engine::partitionBenchSpec(argsOf({{"config", "x.yaml"}, {"batch-sizes", "8,0"}})); }),
             std::string("--batch-sizes '8,0': '0' is not a batch size >= 1"));
    QCOMPARE(inputErrorOf([] { engine::partitionBenchSpec(argsOf({{"config", "x.yaml"}, {"epochs", "0"}})); }),
             std::string("--epochs '0' is not an integer >= 1"));
}

void TestBenchReports::partitionCheckAndResult()
{
    engine::PartitionBenchSpec spec;
    spec.batchSizes = {8, 16};
    spec.epochs = 2;
    spec.outputDir = "/out";
    spec.plotPath = "/out/partitions.png";
    LogicalDevice a, b;
    a.id = "cpu:0.0";
    b.id = "cpu:0.1";
    const engine::PartitionBenchCheck check{"cpu", {{"SPX", {a}, ""}, {"DPX", {a, b}, ""}, {"CPX", {}, "2 cores"}}};
    QCOMPARE(engine::partitionCheckText(spec, check),
             std::string("ok: SPX: 1 logical device(s), one trainer each\n"
                         "ok: DPX: 2 logical device(s), one trainer each\n"
                         "CPX: unavailable: 2 cores (left out)\n"
                         "ok: would train 4 cell(s) (batch sizes 8,16, 2 epoch(s) each) on cpu; runs in /out, plot "
                         "/out/partitions.png\n"));
    const Json checkJson = engine::partitionCheckJson(spec, check);
    QCOMPARE(checkJson["cells"].get<std::size_t>(), std::size_t(4));
    QCOMPARE(checkJson["modes"][1]["devices"][1].get<std::string>(), std::string("cpu:0.1"));
    QVERIFY(!checkJson["modes"][2]["available"].get<bool>());

    engine::PartitionBenchResult result;
    result.backend = "cpu";
    engine::PartitionCell cell;
    cell.mode = "SPX";
    cell.batchSize = 8;
    cell.computeFps = 120.0;
    cell.fullFps = 100.0;
    cell.deviceMemoryBytes = 3LL << 30;
    result.cells = {cell};
    result.unavailable = {{"CPX", "2 cores"}};
    // Each mode at its best batch size, the recommended one marked.
    const Table modes = engine::partitionModesTable(engine::partitionChoice(result));
    QCOMPARE(modes.rows().size(), std::size_t(1));
    QCOMPARE(modes.rows()[0], (std::vector<std::string>{"SPX (recommended)", "1", "3.0 GiB", "8", "120.0", "100.0",
                                                        "yes"}));
    const std::string text = engine::partitionResultText(spec, result);
    QVERIFY2(text.starts_with("\nNode throughput (cpu, 2 epoch(s) per run, one trainer per logical device; summed "
                              "samples/s; -1 = a run failed or ran out of memory)\n\n" +
                              engine::partitionTable(result, spec.batchSizes).toMarkdown()),
             text.c_str());
    QVERIFY2(text.ends_with("\nCPX: unavailable: 2 cores\n\nEach mode at its best batch size\n\n" + modes.toMarkdown() +
                            "\nrecommended: SPX (batch 8): 100.0 samples/s full FPS, the only mode that ran\n\nplot: "
                            "/out/partitions.png\nruns and logs: /out\n"),
             text.c_str());
    const Json json = engine::partitionResultJson(spec, result);
    QCOMPARE(json["recommended"].get<std::string>(), std::string("SPX"));
    QCOMPARE(json["modes"][0]["full_fps"].get<double>(), 100.0);
    QCOMPARE(json["modes"][0]["batch_size"].get<long long>(), 8LL);
    QCOMPARE(json["modes"][0]["memory_bytes"].get<long long>(), 3LL << 30);
    QCOMPARE(json["rows"][0]["compute_fps"].get<double>(), 120.0);
    QCOMPARE(json["unavailable"][0]["why"].get<std::string>(), std::string("2 cores"));
    QCOMPARE(json["epochs"].get<long long>(), 2LL);
}

void TestBenchReports::variantsSeedsAndCheck()
{
    QCOMPARE(engine::parseSeeds("3"), (std::vector<std::int64_t>{0, 1, 2}));
    QCOMPARE(engine::parseSeeds("4,1"), (std::vector<std::int64_t>{4, 1}));
    QCOMPARE(inputErrorOf([] { engine::parseSeeds("0"); }),
             std::string("--seeds 0: give a count >= 1 or a list such as 0,1,2"));
    QCOMPARE(inputErrorOf([] { engine::parseSeeds("1,x"); }), std::string("--seeds '1,x': 'x' is not a seed"));
    QCOMPARE(inputErrorOf([] { engine::variantsBenchSpec({}); }),
             std::string("give one variants file (e.g. configs/transfuser/speed.yaml), then any dotted.key=value "
                         "overrides"));

    engine::VariantsBenchSpec spec;
    spec.file.name = "speed";
    spec.storeLocation = "r.db";
    const std::vector<engine::VariantCheck> checks{{"base", "speed/base", {0, 1}}, {"frozen", "speed/frozen", {0}}};
    QCOMPARE(engine::variantsCheckText(spec, checks),
             std::string("ok: variant 'base': study 'speed/base', 2 seed(s)\n"
                         "ok: variant 'frozen': study 'speed/frozen', 1 seed(s)\n"
                         "ok: would train 2 variant(s), 3 run(s), into r.db\n"));
    spec.file.driving.enabled = true;
    QVERIFY(engine::variantsCheckText(spec, checks).ends_with("3 run(s) and drive each in closed loop, into r.db\n"));
    const nlohmann::json json = engine::variantsCheckJson(spec, checks);
    QCOMPARE(json["runs"].get<std::size_t>(), std::size_t(3));
    QCOMPARE(json["variants"][1]["study"].get<std::string>(), std::string("speed/frozen"));
    QVERIFY(json["driving"].get<bool>());
}

void TestBenchReports::variantsResult()
{
    engine::VariantsBenchSpec spec;
    spec.file.name = "speed";
    spec.file.seeds = {0, 1};
    spec.storeLocation = "r.db";
    engine::VariantResult r;
    r.name = "base";
    r.study = "speed/base";
    r.computeFps = {250.0, 5.0, 2};
    r.quality = {0.75, 0.05, 2};
    r.drivingScore = {61.0, 3.0, 2};
    r.drivingScoreStandardError = 2.5;
    nlohmann::json json = engine::variantsResultJson(spec.file, {r});
    QCOMPARE(json["variants"][0]["compute_fps"].get<double>(), 250.0);
    QCOMPARE(json["variants"][0]["quality_std"].get<double>(), 0.05);
    QCOMPARE(json["variants"][0]["seeds"].get<int>(), 2);
    QCOMPARE(json["variants"][0]["quality_metric"].get<std::string>(), std::string("waypoint_l1"));
    QVERIFY(!json["variants"][0].contains("driving_score_mean")); // only when the file drives
    spec.file.driving.enabled = true;
    json = engine::variantsResultJson(spec.file, {r});
    QCOMPARE(json["variants"][0]["driving_score_stderr"].get<double>(), 2.5);

    engine::VariantsBenchResult result;
    result.results = {r};
    result.table = engine::variantsTable(spec.file, result.results);
    const std::string tail = engine::variantsLegend(spec.file) + " Studies: 'speed/<variant>' in r.db\n";
    QCOMPARE(engine::variantsResultText(spec, result, false), "\n" + result.table.toText() + "\n" + tail);
    QCOMPARE(engine::variantsResultText(spec, result, true), "\n" + result.table.toMarkdown() + "\n" + tail);
    QVERIFY(!engine::variantsResultJson(spec.file, result).contains("machine")); // not measured

    // The machine's load closes the text and goes into the JSON; a busy machine gets the warning.
    result.load.measured = true;
    result.load.loadBefore = 1.5;
    result.load.loadAfter = 2.5;
    result.load.otherCores = 0.9;
    result.load.cores = 2;
    const std::string text = engine::variantsResultText(spec, result, false);
    QVERIFY(text.starts_with("\n" + result.table.toText() + "\n" + tail + "Machine: load average 1.50 before"));
    QVERIFY(text.find("WARNING: the machine was busy (other processes kept 0.90 of 2 cores busy)") != std::string::npos);
    json = engine::variantsResultJson(spec.file, result);
    QCOMPARE(json["machine"]["other_cores_busy"].get<double>(), 0.9);
    QCOMPARE(json["machine"]["load_before"].get<double>(), 1.5);
    QVERIFY(json["machine"]["busy"].get<bool>());
    QCOMPARE(json["variants"][0]["compute_fps"].get<double>(), 250.0);
}

void TestBenchReports::drivingSpecAndCheck()
{
    const drive::PolicyEvalSpec spec =
        drive::policyEvalSpec(argsOf({{"policy", "3, 4"}, {"routes", "5"}, {"seed", "9"}, {"plan-hz", "5"}}));
    QCOMPARE(spec.policies.size(), std::size_t(2));
    QCOMPARE(spec.policies[1].text, std::string("4"));
    QCOMPARE(spec.policies[1].runId.value_or(0), std::int64_t(4));
    QCOMPARE(spec.options.routes, 5);
    QCOMPARE(spec.options.seed, std::uint64_t(9));
    QCOMPARE(spec.model.planIntervalS, 0.2);
    QCOMPARE(drive::policyEvalSpec(argsOf({{"policy", "expert"}})).options.routes, drive::kDefaultEvalRoutes);
    QVERIFY(!drive::policyEvalSpec(argsOf({{"policy", "idle"}})).policies.front().runId);
    QCOMPARE(inputErrorOf([] { drive::policyEvalSpec({}); }),
             std::string("give the policy with --policy RUN_ID[,RUN_ID...]|expert|idle"));
    QVERIFY(inputErrorOf([] { drive::policyEvalSpec(argsOf({{"policy", "3,x"}})); })
                .starts_with("--policy '3,x': give expert, idle, a run id or a comma-separated list of run ids"));
    QCOMPARE(inputErrorOf([] { drive::policyEvalSpec(argsOf({{"policy", "expert"}, {"routes", "0"}})); }),
             std::string("--routes '0': give an integer in 1..10000"));

    const std::vector<std::string> lines{"run 3: transfuser, checkpoint epoch 2", "run 4: transfuser, checkpoint epoch 2"};
    QCOMPARE(drive::policyCheckText(spec, lines),
             std::string("ok: run 3: transfuser, checkpoint epoch 2\nok: run 4: transfuser, checkpoint epoch 2\n"
                         "ok: would drive 5 route(s) per policy (seed 9)\n"));
    const nlohmann::json json = drive::policyCheckJson(spec, lines);
    QCOMPARE(json["routes"].get<int>(), 5);
    QCOMPARE(json["policies"].size(), std::size_t(2));

    drive::PolicyEvalSpec stored = spec;
    stored.storeLocation = "r.db";
    QCOMPARE(drive::policyEvalText(stored, {}),
             std::string("recorded with the run(s) in r.db (metrics of stage 'eval', benchmark suite 'driving')\n"));
    QCOMPARE(drive::policyEvalText(drive::policyEvalSpec(argsOf({{"policy", "expert"}})), {}), std::string());
}

QTEST_GUILESS_MAIN(TestBenchReports)
#include "tst_bench_reports.moc"
