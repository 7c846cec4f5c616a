// `pitwall hpo` with the built-in trainer: TransFuser-lite's smoke config over the TransFuser search space on
// two workers, one epoch per stage. Every trial must end COMPLETE with the chosen objective (or PRUNED), with
// an intermediate value for every epoch that has the metric, its metrics as user attributes and its training run linked
// to it. If this fails, a search with the built-in trainer reports nothing usable, or the pruner never sees the epochs.
#include "../../cli/clitestutil.h"

#include "core/devices/devices.h"
#include "core/sched/trialstate.h"
#include "core/store/store.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;

class TestHpoBuiltin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void searchesTransfuser();
};

void TestHpoBuiltin::searchesTransfuser()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("t.db");
    const QString partition = processCores().size() >= 2 ? "DPX" : "SPX";
    const CliResult r = runCli({"hpo",
                                PITWALL_SOURCE_DIR "/configs/transfuser/smoke.yaml",
                                "data.synthetic.frames=100",
                                "--space",
                                PITWALL_SOURCE_DIR "/configs/transfuser/hpo/speed_space.yaml",
                                "--trials",
                                "3",
                                "--epochs",
                                "1",
                                "--partition",
                                partition,
                                "--sampler",
                                "random",
                                "--seed",
                                "3",
                                "--pruner",
                                "median",
                                "--pruner-startup-trials",
                                "1",
                                "--objective",
                                "val/waypoint_l1",
                                "--db",
                                db,
                                "--json"},
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
        QVERIFY2(t.state == TrialState::Complete || t.state == TrialState::Pruned,
                 t.systemAttrs.value(kFailReasonAttr, Json("")).dump().c_str());
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
    QVERIFY(complete >= 1);
}

QTEST_GUILESS_MAIN(TestHpoBuiltin)
#include "tst_hpo_builtin.moc"
