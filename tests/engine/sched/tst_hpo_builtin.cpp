// `pitwall hpo` with the built-in trainer: TransFuser-lite's smoke config over the TransFuser search space on
// two workers, one epoch per stage. Every trial must end COMPLETE with the chosen objective, with an intermediate
// value for every epoch that has the metric, its metrics as user attributes and its training run linked to it. The
// objective exists in the last epoch only, so the median pruner judges each trial at its last step, where Pitwall
// never prunes (the training is paid for; Optuna would prune about half). If this fails, a search with the
// built-in trainer reports nothing usable, the pruner never sees the epochs, or it throws away finished trials.
#include "../../cli/clitestutil.h"

#include "core/devices/devices.h"
#include "core/pool/trialstate.h"
#include "core/store/store.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/testpaths.h"

using pitwall::test::sourcePath;

using namespace pitwall;

namespace {

// `pitwall hpo` on TransFuser-lite's smoke config (100 frames) over the TransFuser speed space: `trials` random
// trials of one epoch per stage, the median pruner from the first complete trial on.
QStringList transfuserSearch(int trials, const QString& partition, const QString& seed)
{
    return {"hpo",
            sourcePath("/configs/transfuser/smoke.yaml"),
            "data.synthetic.frames=100",
            "--space",
            sourcePath("/configs/transfuser/hpo/speed_space.yaml"),
            "--trials",
            QString::number(trials),
            "--epochs",
            "1",
            "--partition",
            partition,
            "--sampler",
            "random",
            "--seed",
            seed,
            "--pruner",
            "median",
            "--pruner-startup-trials",
            "1"};
}

} // namespace

class TestHpoBuiltin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void searchesTransfuser();
    void twoObjectivesReportVectors();
    void autospeedProtocol();
    void unknownObjectiveRefusedBeforeTraining();
};

void TestHpoBuiltin::searchesTransfuser()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("t.db");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    const CliResult r = runCli(transfuserSearch(3, partition, "3") +
                                   QStringList{"--objective", "val/waypoint_l1", "--db", db, "--json"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonDocument json = QJsonDocument::fromJson(r.out.toUtf8());
    QCOMPARE(json["study"].toString(), QString("transfuser-smoke-hpo"));
    QVERIFY(!json["best"].isNull());

    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const StudyRecord study = store->requireStudy("transfuser-smoke-hpo");
    const auto trials = store->trials(study.id);
    QCOMPARE(trials.size(), std::size_t(3));
    int complete = 0;
    for (const TrialRecord& t : trials) {
        QVERIFY2(t.state == TrialState::Complete, t.systemAttrs.value(kFailReasonAttr, Json("")).dump().c_str());
        QCOMPARE(t.params.size(), std::size_t(5));
        QVERIFY(t.systemAttrs.contains(kWorkerAttr));
        const auto runs = store->runs(t.id);
        QCOMPARE(runs.size(), std::size_t(1)); // the trainer's run belongs to the trial
        QCOMPARE(runs[0].logicalDevice, t.systemAttrs[kWorkerAttr]["device"].get<std::string>());
        if (t.state != TrialState::Complete)
            continue;
        ++complete;
        // --epochs 1 for each of the two stages; waypoint_l1 exists in post-train only: one value, at step 1 (the
        // second epoch overall).
        QCOMPARE(t.intermediateValues.size(), std::size_t(1));
        QCOMPARE(t.intermediateValues.begin()->first, std::int64_t(1));
        // The objective is the chosen validation metric of the last epoch, also the last reported value.
        QCOMPARE(t.values.front(), t.userAttrs["metrics"]["val/waypoint_l1"].get<double>());
        QCOMPARE(t.values.front(), t.intermediateValues.rbegin()->second);
        QVERIFY(t.userAttrs.contains("full_fps/pretrain") && t.userAttrs.contains("stage_seconds/posttrain"));
    }
    QCOMPARE(complete, 3);
}

// Two objectives with the built-in trainer: every epoch that has both reports a vector (val/waypoint_l1 from the
// epoch's validation, compute_fps from its training steps), so the median pruner reads vectors; the trial's values
// are the final metrics in the study's order. If this fails, a multi-objective search with the trainer cannot prune.
void TestHpoBuiltin::twoObjectivesReportVectors()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("two.db");
    const CliResult r =
        runCli(transfuserSearch(2, "SPX", "5") + QStringList{"--objective", "val/waypoint_l1", "--direction",
                                                             "minimize", "--objective", "compute_fps", "--direction",
                                                             "maximize", "--study", "two", "--db", db},
               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const StudyRecord study = store->requireStudy("two");
    QCOMPARE(study.directions.size(), std::size_t(2));
    const auto trials = store->trials(study.id);
    QCOMPARE(trials.size(), std::size_t(2));
    for (const TrialRecord& t : trials) {
        // Its only vector is at its last step: it completes whatever the pruner says.
        QVERIFY2(t.state == TrialState::Complete, t.systemAttrs.value(kFailReasonAttr, Json("")).dump().c_str());
        // waypoint_l1 exists in post-train only: one vector, at step 1 (the second epoch overall).
        QCOMPARE(t.intermediateVectors.size(), std::size_t(1));
        QCOMPARE(t.intermediateVectors.begin()->first, std::int64_t(1));
        const std::vector<double>& vector = t.intermediateVectors.begin()->second;
        QCOMPARE(vector.size(), std::size_t(2));
        QVERIFY2(vector[1] > 0.0, std::to_string(vector[1]).c_str()); // samples per second
        // Optuna's table keeps the first objective's value.
        QCOMPARE(t.intermediateValues.at(1), vector[0]);
        if (t.state != TrialState::Complete)
            continue;
        QCOMPARE(t.values.size(), std::size_t(2));
        // The last epoch's validation is the final one: the vector's first value is the trial's first objective.
        QCOMPARE(t.values[0], t.userAttrs["metrics"]["val/waypoint_l1"].get<double>());
        QCOMPARE(vector[0], t.values[0]);
        QVERIFY(t.values[1] > 0.0);
    }
}

// AutoSpeed's protocol end to end: the objective and direction come from the config (val/map50_95, maximize),
// trials train on train_hpo and validate on val_hpo (the held-out split untouched), AutoSpeed's metrics are
// trial attributes, best_params.yaml holds the best trial's values, and --final-epochs retrains default and best
// on the whole training split, evaluated on the held-out split. 160 synthetic frames: 16 held out (10 %), the
// other 144 split 116 / 28 (20 %) for the trials.
void TestHpoBuiltin::autospeedProtocol()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("a.db");
    const QString bestParams = dir.filePath("best.yaml");
    // bn_momentum 0.3: one-epoch runs validate with BatchNorm statistics that have kept up with the weights.
    const CliResult r = runCli({"hpo",
                                sourcePath("/configs/autospeed/smoke.yaml"),
                                "autospeed.bn_momentum=0.3",
                                "--space",
                                sourcePath("/configs/autospeed/hpo/experiment2.yaml"),
                                "--trials",
                                "2",
                                "--epochs",
                                "1",
                                "--final-epochs",
                                "1",
                                "--partition",
                                "SPX",
                                "--sampler",
                                "random",
                                "--seed",
                                "1",
                                "--pruner",
                                "none",
                                "--best-params",
                                bestParams,
                                "--db",
                                db,
                                "--json"},
                               dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonDocument json = QJsonDocument::fromJson(r.out.toUtf8());
    QCOMPARE(json["objective"].toString(), QString("val/map50_95"));
    const QJsonArray final = json["final"].toArray();
    QCOMPARE(final.size(), 2);
    QCOMPARE(final[0].toObject()["Configuration"].toString(), QString("default"));
    QCOMPARE(final[1].toObject()["Configuration"].toString(), QString("optimised"));
    for (const char* column : {"P (%)", "R (%)", "mAP50 (%)", "mAP50-95 (%)"})
        QVERIFY2(final[1].toObject().contains(column), column);
    // The final table's mAP columns say which AP they are (the final runs' notes).
    QVERIFY2(json["final_notes"].toArray().contains(
                 "validation AP: AutoSpeed (101-point envelope, trapezoid) (autospeed.ap_method=autospeed)"),
             qPrintable(r.out));

    auto store = openStore(db.toStdString(), OpenMode::ReadOnly);
    const StudyRecord study = store->requireStudy("autospeed-smoke-hpo");
    QCOMPARE(study.directions.front(), StudyDirection::Maximize);
    const auto trials = store->trials(study.id);
    QCOMPARE(trials.size(), std::size_t(2));
    const auto splitEvent = [&](std::int64_t trialId) { // the trainer's "...: N epoch(s), T training frames, ..."
        const auto runs = store->runs(trialId);
        if (runs.size() != 1)
            return QString("%1 runs").arg(runs.size());
        for (const EventRecord& e : store->eventsSince(runs[0].id, 0))
            if (e.message.find("training frames") != std::string::npos)
                return QString::fromStdString(e.message);
        return QString("no event with the split");
    };
    for (const TrialRecord& t : trials) {
        QVERIFY2(t.state == TrialState::Complete, t.systemAttrs.value(kFailReasonAttr, Json("")).dump().c_str());
        QCOMPARE(t.values.front(), t.userAttrs["metrics"]["val/map50_95"].get<double>());
        for (const char* key : {"map50", "precision", "recall"})
            QVERIFY2(t.userAttrs.contains(key), key);
        const QString event = splitEvent(t.id);
        QVERIFY2(event.contains("116 training frames, 28 val_hpo frames"), qPrintable(event));
        // The objective's mAP is AutoSpeed's AP (autospeed.ap_method's default), and the run says so.
        bool namesAp = false;
        for (const RunRecord& run : store->runs(t.id))
            for (const EventRecord& e : store->eventsSince(run.id, 0))
                namesAp = namesAp || e.message.find("validation AP: AutoSpeed (101-point envelope, trapezoid)") !=
                                         std::string::npos;
        QVERIFY2(namesAp, "no run event names the AP method");
    }
    // best_params.yaml: the best trial's three searched values under the space's names.
    const auto best = std::max_element(trials.begin(), trials.end(), [](const TrialRecord& a, const TrialRecord& b) {
        return a.values.front() < b.values.front();
    });
    QFile file(bestParams);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    for (const TrialParam& p : best->params) {
        const QRegularExpression line("^" + QString::fromStdString(p.name) + ": ([-0-9.e]+)$",
                                      QRegularExpression::MultilineOption);
        const auto match = line.match(text);
        QVERIFY2(match.hasMatch(), qPrintable(text));
        QVERIFY(qAbs(match.captured(1).toDouble() - p.value().get<double>()) < 1e-12);
    }
    // The final runs train on all 144 training frames and validate on the 16 held out.
    for (const char* name : {"autospeed-smoke-hpo/final-default", "autospeed-smoke-hpo/final-optimised"}) {
        const auto finalTrials = store->trials(store->requireStudy(name).id);
        QCOMPARE(finalTrials.size(), std::size_t(1));
        QCOMPARE(finalTrials[0].state, TrialState::Complete);
        const QString event = splitEvent(finalTrials[0].id);
        QVERIFY2(event.contains("144 training frames, 16 validation frames"), qPrintable(event));
    }
}

// An objective the model never records (val/nope) once trained every trial and failed each at its end. It must be
// refused before anything trains or is written, exit 2, with the objectives the model does record; the
// config's hpo.objective is checked the same way.
void TestHpoBuiltin::unknownObjectiveRefusedBeforeTraining()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("o.db");
    const CliResult r = runCli({"hpo", sourcePath("/configs/transfuser/smoke.yaml"), "--space",
                                sourcePath("/configs/transfuser/hpo/speed_space.yaml"), "--trials", "2", "--epochs",
                                "1", "--partition", "SPX", "--objective", "val/nope", "--db", db},
                               dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--objective 'val/nope' is not a validation metric that model 'transfuser' records"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("known objectives: val/loss, val/depth_mae, val/semantic_miou, val/detection_map, "
                            "val/waypoint_l1"),
             qPrintable(r.err));
    QVERIFY(!QFile::exists(db));
    QVERIFY(!QDir(dir.filePath("runs")).exists());

    const CliResult fromConfig = runCli(
        {"hpo", sourcePath("/configs/autospeed/smoke.yaml"), "hpo.objective=val/map5095", "--space",
         sourcePath("/configs/autospeed/hpo/experiment2.yaml"), "--trials", "1", "--partition", "SPX", "--db", db},
        dir.path());
    QCOMPARE(fromConfig.exitCode, 2);
    QVERIFY2(fromConfig.err.contains("hpo.objective 'val/map5095' is not a validation metric that model 'autospeed' "
                                     "records (did you mean val/map50_95?)"),
             qPrintable(fromConfig.err));

    // With several objectives and constraints every key is checked: a throughput key or a constraint's key that no
    // trial records is refused before anything trains; the keys a trial does record pass --check.
    const QStringList search = {"hpo", sourcePath("/configs/transfuser/smoke.yaml"), "--space",
                                sourcePath("/configs/transfuser/hpo/speed_space.yaml"), "--trials", "2", "--epochs",
                                "1", "--partition", "SPX", "--db", db, "--objective", "val/waypoint_l1", "--direction",
                                "minimize"};
    const CliResult typo = runCli(search + QStringList{"--objective", "full_fsp", "--direction", "maximize"}, dir.path());
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("--objective names 'full_fsp', which a trial of model 'transfuser' never records (did "
                               "you mean full_fps?)"),
             qPrintable(typo.err));
    const CliResult constraint = runCli(search + QStringList{"--objective", "full_fps", "--direction", "maximize",
                                                             "--constraint", "stage_second/train<=60"},
                                        dir.path());
    QCOMPARE(constraint.exitCode, 2);
    QVERIFY2(constraint.err.contains("--constraint names 'stage_second/train', which a trial of model 'transfuser' "
                                     "never records"),
             qPrintable(constraint.err));
    QVERIFY(!QFile::exists(db));
    const CliResult recorded =
        runCli(search + QStringList{"--objective", "compute_fps/train", "--direction", "maximize", "--constraint",
                                    "full_fps>=1", "--constraint", "loss<=9", "--check"},
               dir.path());
    QVERIFY2(recorded.exitCode == 0, qPrintable(recorded.err));
    QVERIFY(!QFile::exists(db));
}

QTEST_GUILESS_MAIN(TestHpoBuiltin)
#include "tst_hpo_builtin.moc"
