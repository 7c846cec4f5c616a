// What the engine's commands print (train, eval driving, eval detection, data synth/info, engine info), rendered by
// the engine's report functions from plain results: core/engine/train/experimentreport.h,
// core/engine/drive/policyreport.h, core/engine/eval/predictionreport.h, core/synth/datasetreport.h and
// core/engine/engineinforeport.h. If this fails, a table column, a score line or a JSON field that scripts and
// the window read changed.
#include "core/engine/drive/policyreport.h"
#include "core/engine/engineinforeport.h"
#include "core/engine/eval/predictionreport.h"
#include "core/engine/train/experimentreport.h"
#include "core/synth/datasetreport.h"

#include <QtTest>

using namespace pitwall;

class TestEngineReports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void experimentResult();
    void trainProgress();
    void drivingReport();
    void predictionScore();
    void synthGeneration();
    void synthOptionsFromTheCommandLine();
    void engineInfo();
};

void TestEngineReports::experimentResult()
{
    engine::ExperimentResult result;
    result.study = "smoke";
    result.dataDir = "/data";
    engine::SeedResult seed;
    seed.seed = 3;
    seed.trialNumber = 1;
    seed.train.runId = 9;
    engine::StageResult stage;
    stage.stage = "pretrain";
    stage.seconds = 2.0;
    stage.computeFps = 100.0;
    stage.fullFps = 50.0;
    stage.validation["loss"] = 0.123456;
    seed.train.stages = {stage};
    seed.train.finalMetrics["loss"] = 0.5;
    seed.train.notices = {"compile does nothing on CPU"};
    result.seeds = {seed};
    const std::string text = engine::experimentResultText(result, "/db");
    QVERIFY2(text.find("\nstudy 'smoke' in /db (data: /data)\n") == 0, text.c_str());
    QVERIFY2(text.find("  3     1      pretrain        2.0        100.0       50.0     0.1235\n") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("  final validation:  loss=0.5000\n  note: compile does nothing on CPU\n") != std::string::npos,
             text.c_str());
    const nlohmann::json json = engine::experimentResultJson(result);
    QCOMPARE(json["runs"][0]["run_id"].get<int>(), 9);
    QCOMPARE(json["runs"][0]["metrics"]["compute_fps/pretrain"].get<double>(), 100.0);
    QCOMPARE(json["runs"][0]["metrics"]["val/loss"].get<double>(), 0.5);
}

void TestEngineReports::trainProgress()
{
    engine::TrainProgress p;
    p.stage = "posttrain";
    p.epoch = 1;
    p.epochs = 4;
    p.loss = 0.25;
    p.computeFps = 12.34;
    engine::TrainProgressText running = engine::trainProgressText(7, p);
    QCOMPARE(running.label, std::string("seed 7 posttrain epoch 2/4"));
    QCOMPARE(running.detail, std::string("loss 0.2500  12.3 samples/s"));
    QVERIFY(running.text.empty());
    p.epochDone = true;
    p.validation["loss"] = 0.5;
    const engine::TrainProgressText done = engine::trainProgressText(7, p);
    QCOMPARE(done.text, std::string("seed 7 posttrain epoch 2/4 done: train loss 0.2500, val loss 0.5000"));
}

void TestEngineReports::drivingReport()
{
    drive::RouteResult route;
    route.index = 0;
    route.worldSeed = 11;
    route.status = drive::RouteStatus::Completed;
    route.routeCompletion = 100;
    route.infractionPenalty = 0.6;
    route.drivingScore = 60;
    drive::Infraction collision;
    collision.type = drive::InfractionType::CollisionVehicle;
    route.infractions = {collision, collision};
    const drive::DrivingReport report = drive::summarise("expert", {route});
    const std::string text = drive::drivingReportText(report);
    QVERIFY2(text.find("completed") != std::string::npos, text.c_str());
    QVERIFY2(text.find(std::string(drive::infractionKey(drive::InfractionType::CollisionVehicle)) + " ×2") !=
                 std::string::npos,
             text.c_str());
    QVERIFY2(text.find("policy expert, 1 route(s)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("  driving score        60.00 ± ") != std::string::npos, text.c_str());

    drive::PolicyEvalSpec spec;
    spec.options.routes = 1;
    drive::PolicyEvalResult one;
    one.reports = {report};
    QCOMPARE(drive::policyEvalJson(spec, one)["policy"].get<std::string>(), std::string("expert"));
    QCOMPARE(drive::policyEvalJson(spec, one)["options"]["routes"].get<int>(), 1);
    QVERIFY(drive::policyEvalAcrossRunsText(spec, one).empty()); // only for several runs
    drive::PolicyEvalResult two = one;
    two.reports.push_back(report);
    two.drivingScore.mean = 60;
    QCOMPARE(drive::policyEvalJson(spec, two)["runs"].size(), std::size_t(2));
    QVERIFY(drive::policyEvalAcrossRunsText(spec, two).find("\nover 2 runs (training seeds)") == 0);
}

void TestEngineReports::predictionScore()
{
    engine::eval::PredictionScore score;
    score.metrics.precision = 0.5;
    score.metrics.map50 = 0.25;
    score.metrics.images = 2;
    score.metrics.classes = {{0, "car", 3, 4, 0.5, 0.5, 0.25, 0.125, true}, {1, "bus", 0, 1, 0, 0, 0, 0, false}};
    score.datasetKind = "yolo";
    score.imagesDir = "/d/images";
    score.predictionsRead = 6;
    const std::string text = engine::eval::predictionScoreText(score);
    QVERIFY2(text.find("AP: ") == 0, text.c_str());
    QVERIFY2(text.find("2 images (yolo, /d/images), 0 predictions after NMS of 6 read") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("– : a class with predictions but no ground truth") != std::string::npos, text.c_str());
    const nlohmann::json json = engine::eval::predictionScoreJson(score, {});
    QCOMPARE(json["classes"][0]["map50"].get<double>(), 0.25);
    QVERIFY(json["classes"][1]["map50"].is_null()); // undefined without ground truth
    QCOMPARE(json["predictions_read"].get<int>(), 6);
}

void TestEngineReports::synthGeneration()
{
    synth::GenerationStats stats;
    stats.frames = 20;
    stats.episodes = 2;
    stats.seconds = 2.0;
    stats.bytes = 2048;
    stats.complete = true;
    QCOMPARE(synth::generationText("/out", stats),
             std::string("wrote 20 frames in 2 episodes to /out: 2.00 s, 10.0 frames/s, 2.0 KiB\n"));
    QCOMPARE(synth::generationJson("/out", stats)["frames_per_second"].get<double>(), 10.0);
    std::vector<std::string> lines;
    const ProgressReporter progress = synth::decileProgress(20, [&](const std::string& l) { lines.push_back(l); });
    for (int done = 1; done <= 20; ++done)
        progress.progress({synth::kSynthesisingFrames, double(done), 20, ""});
    QCOMPARE(lines.size(), std::size_t(10)); // one line per tenth
    QVERIFY2(lines.back().rfind("  [100%] 20/20 frames, ", 0) == 0, lines.back().c_str());
}

void TestEngineReports::engineInfo()
{
    EngineInfo info;
    info.torchVersion = "1.13.1";
    info.cudaAvailable = true;
    info.gpuCount = 2;
    info.intraOpThreads = 4;
    info.interOpThreads = 1;
    info.parallelInfo = "OpenMP";
    QCOMPARE(engineInfoText(info), std::string("engine: LibTorch 1.13.1, 2 GPU(s) visible\n"
                                               "threads: 4 intra-op, 1 inter-op\nOpenMP\n"));
    QCOMPARE(engineInfoJson(info)["gpu_count"].get<int>(), 2);
}

// `data synth`'s shorthand options: if this fails, --frames or --width no longer reach data.synthetic.*, or an
// option given on the command line loses against an override before it.
void TestEngineReports::synthOptionsFromTheCommandLine()
{
    const std::vector<cmdline::OptionSpec> shorthands = synth::synthKeyOptions();
    QCOMPARE(shorthands.size(), std::size_t(10));
    QCOMPARE(shorthands.front().name, std::string("frames"));
    QCOMPARE(shorthands.front().valueName, std::string("N"));
    cmdline::Args args;
    args.positionals = {"data.synthetic.frames=5", "data.synthetic.episode_frames=4"};
    args.options = {{"frames", {"12"}}, {"seed", {"3"}}, {"width", {"128"}}};
    const synth::SynthOptions options = synth::synthOptionsFromArgs(args);
    QCOMPARE(options.frames, 12); // the option comes after the positional override
    QCOMPARE(options.episodeFrames, 4);
    QCOMPARE(options.seed, std::uint64_t(3));
    QCOMPARE(options.sensors.camera.width, 128);
    QCOMPARE(options.sensors.camera.height, 96); // the default
}

QTEST_GUILESS_MAIN(TestEngineReports)
#include "tst_engine_reports.moc"
