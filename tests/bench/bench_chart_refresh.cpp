// Chart refresh cost of the workbench (goal: < 16 ms per refresh, one frame at 60 Hz).
//
// 1. Live view, a run with 1,000,000 loss points (plus per-head losses and the other live metrics at the
//    trainer's usual density): LTTB to 2 points per pixel and a bulk replace of the series, for one chart, then
//    what the charts do now (ChartView::setCurve: the envelope, and with smoothing), then the whole view (six
//    charts, through setCurve), and the same with painting (grab) included.
// 2. Study view with 10,000 trials (4 parameters, 5 intermediate values each, runs on 16 logical devices):
//    a full redraw (history, intermediate values, parallel coordinates, importance, timeline), then with
//    painting included. These lines call showStudy, which computes everything on the calling thread (and
//    copies the trials, as before), so they stay comparable with earlier runs.
//    Then the view's real refresh path (setStudy: computed off the GUI thread, swapped in when ready):
//    "GUI-thread time" sums what the GUI thread spends (hand-over, event processing that applies the frame,
//    painting), the waits in between excluded; "until on screen" is the wall time from the call until the new
//    data is painted, background computation included.
//
// Prints milliseconds per refresh (median and worst of N). Runs offscreen; not part of CTest:
//   build/bench/bench_chart_refresh [repetitions]
#include "ui/charts/chartview.h"
#include "ui/charts/curves.h"
#include "ui/charts/lttb.h"
#include "ui/live/livemodel.h"
#include "ui/live/liveview.h"
#include "ui/poller/storepoller.h"
#include "ui/study/internal/studyframe.h"
#include "ui/study/studyview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineSeries>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

using namespace pitwall;

namespace {

struct Timing {
    double median = 0, worst = 0;
};

Timing measure(int repetitions, const std::function<void()>& work)
{
    work(); // warm-up: series created, caches filled
    std::vector<double> ms;
    for (int i = 0; i < repetitions; ++i) {
        QElapsedTimer timer;
        timer.start();
        work();
        ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.back()};
}

// One asynchronous refresh of the study view: GUI-thread time and time until the new data is on screen.
struct AsyncTiming {
    Timing gui, onScreen, handOver, apply, paint; // gui = handOver + apply + paint
};

AsyncTiming measureAsync(int repetitions, ui::StudyView& study, const std::function<void()>& start)
{
    std::vector<double> gui, wall, handOver, apply, paint;
    for (int i = 0; i <= repetitions; ++i) { // the first is a warm-up
        QElapsedTimer total;
        total.start();
        QElapsedTimer busy;
        busy.start();
        start();
        const std::int64_t handOverNs = busy.nsecsElapsed();
        std::int64_t applyNs = 0;
        while (!study.ready()) {
            std::this_thread::sleep_for(std::chrono::microseconds(200)); // waiting: not GUI-thread work
            busy.restart();
            QCoreApplication::processEvents();
            applyNs += busy.nsecsElapsed();
        }
        // The on-screen paint of the new frame (what the event loop would do next), then any events it left.
        busy.restart();
        study.repaint();
        QCoreApplication::processEvents();
        const std::int64_t paintNs = busy.nsecsElapsed();
        if (i == 0)
            continue;
        gui.push_back(static_cast<double>(handOverNs + applyNs + paintNs) / 1e6);
        wall.push_back(static_cast<double>(total.nsecsElapsed()) / 1e6);
        handOver.push_back(static_cast<double>(handOverNs) / 1e6);
        apply.push_back(static_cast<double>(applyNs) / 1e6);
        paint.push_back(static_cast<double>(paintNs) / 1e6);
    }
    auto timing = [](std::vector<double>& ms) {
        std::sort(ms.begin(), ms.end());
        return Timing{ms[ms.size() / 2], ms.back()};
    };
    return {timing(gui), timing(wall), timing(handOver), timing(apply), timing(paint)};
}

void report(const char* what, const Timing& t)
{
    std::printf("%-64s %8.2f ms median %8.2f ms worst %s\n", what, t.median, t.worst,
                t.median < 16.0 ? "(< 16 ms)" : "(over 16 ms)");
}

ui::LiveDelta millionPointRun()
{
    constexpr int kPoints = 1000000;
    ui::LiveDelta delta;
    delta.runId = 1;
    delta.reset = true;
    ui::SeriesChunk loss{"loss", {}};
    loss.points.reserve(kPoints);
    for (int i = 1; i <= kPoints; ++i)
        loss.points.append(
            QPointF(i, 2.0 * std::exp(-i / 2e5) + 0.3 + 0.05 * std::sin(i * 0.01) + ((i * 7919LL) % 101) * 1e-3));
    delta.chunks.push_back(loss);
    // Per-head losses and the other step metrics every 10th step (log_scalars_every_n_steps), epoch metrics rarely.
    for (const char* key : {"loss/depth", "loss/semantic", "loss/bev_semantic", "loss/center_heatmap", "lr",
                            "data_wait_ms", "compute_fps"}) {
        ui::SeriesChunk chunk{key, {}};
        for (int i = 10; i <= kPoints; i += 10)
            chunk.points.append(QPointF(i, 0.5 + 0.1 * std::sin(i * 0.001)));
        delta.chunks.push_back(chunk);
    }
    for (const char* key : {"full_fps", "cpu_percent", "peak_memory_bytes", "epoch"}) {
        ui::SeriesChunk chunk{key, {}};
        for (int i = 1; i <= 100; ++i)
            chunk.points.append(QPointF(i * 10000.0, i));
        delta.chunks.push_back(chunk);
    }
    delta.stages = {{"pretrain", 0}, {"posttrain", 700000}};
    delta.rows = kPoints;
    return delta;
}

std::vector<TrialRecord> manyTrials(int count, std::vector<RunRecord>& runs)
{
    Distribution lr{Distribution::Kind::Float, 1e-5, 1e-2, true, std::nullopt, {}};
    Distribution box{Distribution::Kind::Float, 5, 10, false, std::nullopt, {}};
    Distribution warmup{Distribution::Kind::Int, 0, 4, false, 1.0, {}};
    Distribution optimizer{Distribution::Kind::Categorical, 0, 1, false, std::nullopt, {"sgd", "adamw"}};
    std::vector<TrialRecord> trials;
    std::vector<double> deviceFree(16, 1.7e9);
    for (int i = 0; i < count; ++i) {
        TrialRecord t;
        t.id = i + 1;
        t.number = i;
        const double x = std::fmod(i * 0.618033988749895, 1.0);
        const double y = std::fmod(i * 0.414213562373095, 1.0);
        t.params = {{"lr", std::pow(10.0, -5 + 3 * x), lr},
                    {"box", 5 + 5 * y, box},
                    {"warmup_epochs", static_cast<double>(i % 5), warmup},
                    {"optimizer", static_cast<double>(i % 2), optimizer}};
        const double value = 0.3 * std::pow(-5 + 3 * x + 3, 2) + 0.5 + 0.1 * (i % 2) + 0.01 * y;
        t.state = i % 7 == 6 ? TrialState::Pruned : i % 97 == 13 ? TrialState::Fail : TrialState::Complete;
        if (t.state != TrialState::Fail)
            t.values = {value};
        for (int step = 0; step < (t.state == TrialState::Pruned ? 2 : 5); ++step)
            t.intermediateValues[step] = value + 1.0 / (step + 1);
        const int device = i % 16;
        RunRecord r;
        r.id = i + 1;
        r.trialId = t.id;
        r.logicalDevice = "cpu:" + std::to_string(device / 8) + "." + std::to_string(device % 8);
        r.startTime = deviceFree[static_cast<std::size_t>(device)];
        r.endTime = r.startTime + 20 + i % 11;
        r.status = RunStatus::Succeeded;
        deviceFree[static_cast<std::size_t>(device)] = *r.endTime + 1;
        t.startTime = r.startTime;
        t.completeTime = r.endTime;
        trials.push_back(std::move(t));
        runs.push_back(std::move(r));
    }
    return trials;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int repetitions = argc > 1 ? std::max(3, std::atoi(argv[1])) : 20;
    std::printf("chart refresh, %d repetitions each (after one warm-up)\n\n", repetitions);

    // --- live view, 1,000,000 points ------------------------------------------------------------------
    ui::LiveModel model;
    model.apply(millionPointRun());
    ui::LiveView live(&model);
    live.resize(1200, 760);
    live.show();
    QApplication::processEvents();
    live.redraw(); // creates the series
    ui::ChartView* lossChart = live.charts().front();
    const qsizetype target = std::max(64, 2 * lossChart->plotWidth());
    std::printf("live run: %lld loss points, %d series, plot %d px wide -> LTTB to %lld points\n",
                static_cast<long long>(model.series("loss").size()), static_cast<int>(model.keys().size()),
                lossChart->plotWidth(), static_cast<long long>(target));
    const QList<QPointF>& loss = model.series("loss");
    report("LTTB of 1,000,000 points", measure(repetitions, [&] { (void)ui::lttb(loss, target); }));
    auto* series = qobject_cast<QLineSeries*>(lossChart->find("loss"));
    report("loss chart: LTTB + replace (total loss, 1M points)", measure(repetitions, [&] {
               lossChart->setPoints(series, ui::lttb(loss, target));
               lossChart->fitAxes();
           }));
    report("loss chart: LTTB + replace + paint", measure(repetitions, [&] {
               lossChart->setPoints(series, ui::lttb(loss, target));
               lossChart->fitAxes();
               (void)lossChart->grab();
           }));
    // What the charts do now (ChartView::setCurve), side by side with LTTB above: the envelope that keeps every
    // spike, and the same with smoothing (EMA over every point, then LTTB of the smoothed curve).
    report("envelope of 1,000,000 points (2 per pixel column at most)",
           measure(repetitions, [&] { (void)ui::envelope(loss, lossChart->plotWidth()); }));
    report("loss chart: setCurve (envelope) + replace + paint", measure(repetitions, [&] {
               lossChart->setCurve(series, loss);
               lossChart->fitAxes();
               (void)lossChart->grab();
           }));
    report("debiased EMA of 1,000,000 points", measure(repetitions, [&] { (void)ui::debiasedEma(loss, 0.6); }));
    lossChart->setSmoothing(0.6);
    report("loss chart: setCurve smoothed 0.6 (+ faint raw), no paint", measure(repetitions, [&] {
               lossChart->setCurve(series, loss);
               lossChart->fitAxes();
           }));
    report("loss chart: setCurve smoothed 0.6 (+ faint raw) + paint", measure(repetitions, [&] {
               lossChart->setCurve(series, loss);
               lossChart->fitAxes();
               (void)lossChart->grab();
           }));
    lossChart->setSmoothing(0);
    report("live view: redraw of all six charts (model data -> series)", measure(repetitions, [&] { live.redraw(); }));
    report("live view: redraw of all six charts + paint", measure(repetitions, [&] {
               live.redraw();
               (void)live.grab();
           }));

    // --- study view, 10,000 trials --------------------------------------------------------------------
    std::vector<RunRecord> runs;
    const std::vector<TrialRecord> trials = manyTrials(10000, runs);
    ui::StudyView study;
    study.resize(1200, 760);
    study.show();
    QApplication::processEvents();
    std::printf("\nstudy: %zu trials, %zu runs on 16 logical devices\n", trials.size(), runs.size());
    report("study view: redraw (history, curves, parallel, importance, timeline)",
           measure(repetitions, [&] { study.showStudy("bench", StudyDirection::Minimize, trials, runs); }));
    report("study view: redraw + paint", measure(repetitions, [&] {
               study.showStudy("bench", StudyDirection::Minimize, trials, runs);
               (void)study.grab();
           }));
    study.setTopK(100);
    report("study view, top 100: redraw + paint", measure(repetitions, [&] {
               study.showStudy("bench", StudyDirection::Minimize, trials, runs);
               (void)study.grab();
           }));
    study.setTopK(0);
    while (!study.ready())
        QApplication::processEvents();

    // The real refresh path: the trials handed over by move (copied before the clock starts; the copy is
    // reported on its own: showSnapshot paid it before the snapshot shared its trials and runs, and its
    // hand-over is reported on its own too), computed off the GUI thread.
    std::printf("\nstudy view, asynchronous refresh (setStudy; frame computed off the GUI thread):\n");
    report("copy of 10,000 trials and runs (what showSnapshot paid before)", measure(repetitions, [&] {
               std::vector<TrialRecord> t = trials;
               std::vector<RunRecord> r = runs;
           }));
    {
        // What the poller's snapshot costs the view now: trials and runs shared, not copied (two studies in
        // turn, so every call takes the new data; the draw it schedules is not part of this line).
        ui::StoreSnapshot snapshots[2];
        for (int i = 0; i < 2; ++i) {
            snapshots[i].focusStudy = i ? QStringLiteral("bench") : QStringLiteral("bench-2");
            snapshots[i].focusTrials = ui::shareRecords(trials);
            snapshots[i].runs = ui::shareRecords(runs);
        }
        int turn = 0;
        report("study view: showSnapshot hand-over (shared; signature, no copy)",
               measure(repetitions, [&] { study.showSnapshot(snapshots[turn++ % 2]); }));
        while (!study.ready())
            QApplication::processEvents();
    }
    {
        ui::StudyInput input;
        input.trials = std::make_shared<const std::vector<TrialRecord>>(trials);
        input.runs = std::make_shared<const std::vector<RunRecord>>(runs);
        input.historyPlot = study.history()->chart()->plotArea().size();
        input.parallelStyle = study.parallel()->layerStyle();
        report("background: frame computation (worker thread, not GUI)",
               measure(repetitions, [&] { (void)ui::computeStudyFrame(input); }));
    }
    std::vector<std::vector<TrialRecord>> trialCopies(static_cast<std::size_t>(repetitions) + 1, trials);
    std::vector<std::vector<RunRecord>> runCopies(static_cast<std::size_t>(repetitions) + 1, runs);
    std::size_t next = 0;
    auto refresh = [&] {
        study.setStudy("bench", StudyDirection::Minimize, std::move(trialCopies[next]), std::move(runCopies[next]));
        ++next;
    };
    AsyncTiming all = measureAsync(repetitions, study, refresh);
    report("study view: GUI-thread time per refresh (hand-over, apply, paint)", all.gui);
    report("  of which hand-over (setStudy)", all.handOver);
    report("  of which applying the frame (event processing)", all.apply);
    report("  of which the on-screen paint (repaint)", all.paint);
    report("study view: time until the new data is on screen", all.onScreen);
    trialCopies.assign(static_cast<std::size_t>(repetitions) + 1, trials);
    runCopies.assign(static_cast<std::size_t>(repetitions) + 1, runs);
    next = 0;
    study.setTopK(100);
    while (!study.ready())
        QApplication::processEvents();
    AsyncTiming top = measureAsync(repetitions, study, refresh);
    report("study view, top 100: GUI-thread time per refresh", top.gui);
    report("study view, top 100: time until the new data is on screen", top.onScreen);
    return 0;
}
