#pragma once
// Helpers for the worker-pool tests: the trial script, spaces written into a temporary folder, reading a
// study while processes write it, and waiting for a condition (never for a fixed time).

#include "../../cli/clitestutil.h"

#include "core/pool/trialstate.h"
#include "core/store/store.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <string>
#include <vector>

#include "tests/support/testpaths.h"

namespace schedtest {

inline const QString kTrialScript = pitwall::test::sourcePath("/tests/core/pool/data/trial.py");

// The command template running the trial script with Debian's Python (fast to start, no pyenv shim).
inline QString trialCommand(const QString& extra = {})
{
    return "/usr/bin/python3 " + kTrialScript + " --mode {mode} --x {x}" + (extra.isEmpty() ? "" : " " + extra);
}

inline QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(file.fileName()));
    file.write(text);
    return file.fileName();
}

// Starts `pitwall hpo --db DB` in `dir` over the trial script in `mode` (space: x uniform in [0, 1]; its trials
// wait for DIR/gate in mode wait), random sampler, no pruner, heartbeats every 0.2 s, plus `extra` arguments.
inline void startScriptSearch(QProcess& hpo, const QTemporaryDir& dir, const QString& db, const QString& mode,
                              const QStringList& extra)
{
    const QString space =
        writeFile(dir, "space.yaml", "mode: " + mode.toUtf8() + "\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    hpo.setWorkingDirectory(dir.path());
    hpo.start(pitwall::test::cliPath(),
              QStringList{"hpo", "--db", db, "--command", trialCommand("--gate " + dir.filePath("gate")), "--space",
                          space, "--sampler", "random", "--pruner", "none", "--heartbeat-interval", "0.2"} +
                  extra);
}

// Polls `condition` every 50 ms for up to `timeoutMs`; true once it holds.
inline bool waitFor(const std::function<bool()>& condition, int timeoutMs = 60000)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QTest::qWait(50);
    }
    return true;
}

// The study's trials as they are now (empty while the study does not exist yet).
inline std::vector<pitwall::TrialRecord> trials(const QString& db, const std::string& study)
{
    if (!QFile::exists(db))
        return {};
    try {
        auto store = pitwall::openStore(db.toStdString(), pitwall::OpenMode::ReadOnly);
        const auto record = store->findStudy(study);
        return record ? store->trials(record->id) : std::vector<pitwall::TrialRecord>{};
    } catch (const std::exception&) {
        return {}; // created but not migrated yet
    }
}

inline std::string failReason(const pitwall::TrialRecord& t)
{
    const auto it = t.systemAttrs.find(pitwall::kFailReasonAttr);
    return it != t.systemAttrs.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline pitwall::Json param(const pitwall::TrialRecord& t, const std::string& name)
{
    for (const auto& p : t.params)
        if (p.name == name)
            return p.value();
    return nullptr;
}

} // namespace schedtest
