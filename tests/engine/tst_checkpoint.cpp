// The checkpoint markers' meters: a marker of the current format needs all of them, and one written before the
// format was versioned (loose keys, loss_scale only under fp16) still resumes. If this fails, a resumed stage
// either trains finished epochs again or ends with a summary that lost the epochs before the interruption.
#include "core/engine/train/checkpoint.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace pitwall::engine;

class TestCheckpoint : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void legacyMarkerResumesWithItsMeters();
    void currentMarkerWithoutMetersIsUnfinished();

private:
    // Writes epoch `epoch`'s marker as `json` beside empty weight files.
    void writeEpoch(const QTemporaryDir& dir, int epoch, const std::string& json);
};

void TestCheckpoint::writeEpoch(const QTemporaryDir& dir, int epoch, const std::string& json)
{
    const std::filesystem::path stage = std::filesystem::path(dir.path().toStdString()) / "pretrain";
    std::filesystem::create_directories(stage);
    char name[32];
    for (const char* suffix : {"model.pt", "optim.pt", "json"}) {
        std::snprintf(name, sizeof name, "epoch_%04d.%s", epoch, suffix);
        std::ofstream(stage / name) << (std::string(suffix) == "json" ? json : std::string());
    }
}

void TestCheckpoint::legacyMarkerResumesWithItsMeters()
{
    QTemporaryDir dir;
    writeEpoch(dir, 0,
               R"({"epoch": 0, "global_step": 6, "meters": {"samples": 24.0, "step_seconds": 1.5,
                   "wall_seconds": 2.0, "wait_ms": 30.0, "steps": 6, "last_loss": 0.75,
                   "validation": {"loss": 0.5, "map50": 0.25}}})");
    const auto info = CheckpointStore(dir.path().toStdString()).latest(Stage::Pretrain);
    QVERIFY(info.has_value());
    QCOMPARE(info->epoch, 0);
    QCOMPARE(info->globalStep, std::int64_t(6));
    QCOMPARE(info->meters.samples, 24.0);
    QCOMPARE(info->meters.stepSeconds, 1.5);
    QCOMPARE(info->meters.wallSeconds, 2.0);
    QCOMPARE(info->meters.waitMs, 30.0);
    QCOMPARE(info->meters.steps, std::int64_t(6));
    QCOMPARE(info->meters.lastLoss, 0.75);
    QCOMPARE(info->meters.validation.at("map50"), 0.25);
    QCOMPARE(info->meters.lossScale, 0.0); // fp32: no scale saved, the scaler keeps its initial one
}

void TestCheckpoint::currentMarkerWithoutMetersIsUnfinished()
{
    QTemporaryDir dir;
    writeEpoch(dir, 0,
               R"({"format": 2, "epoch": 0, "global_step": 6, "meters": {"samples": 24.0, "step_seconds": 1.5,
                   "wall_seconds": 2.0, "wait_ms": 30.0, "steps": 6, "last_loss": 0.75, "validation": {},
                   "loss_scale": 0.0}})");
    writeEpoch(dir, 1, R"({"format": 2, "epoch": 1, "global_step": 12, "meters": {"samples": 48.0}})");
    const auto info = CheckpointStore(dir.path().toStdString()).latest(Stage::Pretrain);
    QVERIFY(info.has_value());
    QCOMPARE(info->epoch, 0); // epoch 1's marker lacks its meters
}

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
