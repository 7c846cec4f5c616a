// The workbench on large studies (issue 28). For each size asked, writes through the store API a study shaped like
// a real search, unless its file exists (in batches, Store::addTrials): "workbench", N complete trials with 4
// parameters (lr, log-scaled; batch_size, int; dropout; optimizer, categorical), 20 intermediate values and a value.
// Then, side by side:
//   - as a user starts it: pitwall-gui --db FILE --study workbench --view study --screenshot PNG, the wall time from
//     starting the process to its exit and its peak resident memory (wait4). The screenshot mode grabs only after
//     the view was ready on three checks 100 ms apart and then writes a PNG, so this is an upper bound of "start to
//     first full paint" by about 0.2-0.3 s;
//   - in this process: a MainWindow opening (a copy of) FILE on the Study view until the view is ready and painted
//     (a grab), and the resident memory that added; then another connection adds one trial, and the time until the
//     view shows it (the window polls every 500 ms) and the longest event on the GUI thread meanwhile (every event
//     the application delivers is timed: the longest time the window did not answer);
//   - parameter importance (ui/study/studymath.h: first-order "fANOVA-lite", ε² of group means over quantile bins;
//     the Study view computes it on a pool thread, never on the GUI thread): studyParams on the study's trials.
// The smallest size is the reference: the others print their ratio to it.
//
// With --live RUNSxROWS (1000x100000: 100 M rows), also the Live view on that many finished runs of that many metric
// rows each (written once, a run at a time): open to the first run painted, and switching to the middle and the last
// run, then another connection appending a row to the run shown and the time until the view shows it, with the
// longest GUI-thread event. --trials none runs only that.
//
//   bench_workbench [--trials 10000,100000|none] [--live RUNSxROWS] [--folder DIR] [--gui PATH] [--repeat 3]
#include "bench_common.h"

#include "ui/live/livemodel.h"
#include "ui/live/liveview.h"
#include "ui/mainwindow.h"
#include "ui/study/studyview.h"
#include "ui/study/studymath.h"

#include "core/store/store.h"
#include "core/util/strings.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QSettings>
#include <QThread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace pitwall;

namespace {

double residentMegabytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::atof(line.c_str() + 6) / 1024.0;
    return 0.0;
}

void writeStudy(const std::string& file, int trials)
{
    const auto start = std::chrono::steady_clock::now();
    auto store = openStore(file);
    const auto study = store->createStudy("workbench", {StudyDirection::Minimize});
    Distribution lr, batch_size, dropout, optimizer;
    lr.low = 1e-5;
    lr.high = 1e-1;
    lr.log = true;
    batch_size.kind = Distribution::Kind::Int;
    batch_size.low = 8;
    batch_size.high = 256;
    batch_size.step = 1;
    dropout.high = 0.5;
    optimizer.kind = Distribution::Kind::Categorical;
    optimizer.choices = {"adamw", "sgd", "lion"};
    // In batches through addTrials: a million trials take about a minute where a call per part takes hours.
    constexpr int kBatch = 5000;
    std::vector<TrialRecord> batch;
    for (int t = 0; t < trials; ++t) {
        TrialRecord& trial = batch.emplace_back();
        trial.state = TrialState::Complete;
        const double u = static_cast<double>((static_cast<std::int64_t>(t) * 7919) % trials) / trials;
        trial.params = {{"lr", 1e-5 * std::pow(1e4, u), lr},
                        {"batch_size", static_cast<double>(8 + (t * 31) % 249), batch_size},
                        {"dropout", 0.5 * ((t * 13) % 100) / 100.0, dropout},
                        {"optimizer", static_cast<double>(t % 3), optimizer}};
        const double final = 0.1 + u * u + 0.01 * (t % 17);
        for (int step = 0; step < 20; ++step)
            trial.intermediateValues[step] = final + 1.0 / (step + 1);
        trial.values = {final};
        trial.startTime = 1.7e9 + 60.0 * (t / 8) + t % 8; // eight workers
        trial.completeTime = *trial.startTime + 50.0 + t % 20;
        if (batch.size() == kBatch || t + 1 == trials) {
            store->addTrials(study, batch);
            batch.clear();
        }
    }
    std::printf("wrote %s (%d trials) in %.1f s\n", file.c_str(), trials,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

struct ProcessRun {
    double seconds = 0.0, peakMegabytes = 0.0;
    int status = -1;
};

// The window is started by a launcher process forked at the start, while this process is still small: exec records
// the replaced image's peak resident size as the new program's, so a window started from this (large) process would
// report this process's memory as its own. Requests are "GUI\tFILE\tPNG" lines; replies "SECONDS MAXRSS_KB STATUS".
struct Launcher {
    FILE* request = nullptr;
    FILE* reply = nullptr;
} g_launcher;

[[noreturn]] void serveLaunches(int requests, int replies)
{
    FILE* in = fdopen(requests, "r");
    char line[8192];
    while (in && std::fgets(line, sizeof line, in)) {
        std::string text(line);
        if (!text.empty() && text.back() == '\n')
            text.pop_back();
        const std::vector<std::string> words = split(text, '\t');
        if (words.size() != 3)
            break;
        const auto start = std::chrono::steady_clock::now();
        const pid_t child = fork();
        if (child == 0) {
            const int devnull = ::open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            execl(words[0].c_str(), words[0].c_str(), "--db", words[1].c_str(), "--study", "workbench", "--view",
                  "study", "--screenshot", words[2].c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        int status = 0;
        rusage usage{};
        wait4(child, &status, 0, &usage);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        dprintf(replies, "%.6f %ld %d\n", seconds, usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    _exit(0);
}

void startLauncher()
{
    int requests[2], replies[2];
    if (pipe(requests) != 0 || pipe(replies) != 0)
        return;
    if (fork() == 0) {
        close(requests[1]);
        close(replies[0]);
        serveLaunches(requests[0], replies[1]);
    }
    close(requests[0]);
    close(replies[1]);
    g_launcher = {fdopen(requests[1], "w"), fdopen(replies[0], "r")};
}

ProcessRun runGui(const std::string& gui, const std::string& file, const std::string& png)
{
    ProcessRun run;
    if (!g_launcher.request)
        return run;
    std::fprintf(g_launcher.request, "%s\t%s\t%s\n", gui.c_str(), file.c_str(), png.c_str());
    std::fflush(g_launcher.request);
    long maxrss = 0;
    if (std::fscanf(g_launcher.reply, "%lf %ld %d", &run.seconds, &maxrss, &run.status) != 3)
        run.status = -1;
    run.peakMegabytes = maxrss / 1024.0;
    return run;
}

// The application, timing every event it delivers on the GUI thread: the longest is the longest time the window
// did not answer (a nested event counts within the one that dispatched it).
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override
    {
        if (QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        const auto start = std::chrono::steady_clock::now();
        const bool result = QApplication::notify(receiver, event);
        if (++m_depth == 1)
            longest =
                std::max(longest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        --m_depth;
        return result;
    }
    double longest = 0.0;

private:
    int m_depth = 0;
};

struct WindowRun {
    double seconds = 0.0, addedMegabytes = 0.0;
    double refreshSeconds = 0.0, longestEventSeconds = 0.0; // a trial written by another connection
};

bool titleSays(ui::MainWindow& window, const QString& text)
{
    const auto* title = window.studyView()->findChild<QLabel*>("studyTitle");
    return title && title->text().contains(text);
}

// Opens `file` (a copy: a trial is added) in a MainWindow on the Study view and times it until the view is ready
// and painted. Then another connection adds one trial: the time until the view shows it, and the longest event on
// the GUI thread meanwhile.
WindowRun openInWindow(const std::string& original, const std::string& file, int trials)
{
    const auto removeCopy = [&] {
        for (const char* suffix : {"", "-wal", "-shm"}) // a WAL left beside another file would be read as its
            std::filesystem::remove(file + suffix);
    };
    removeCopy();
    std::filesystem::copy_file(original, file);
    auto& app = static_cast<TimedApplication&>(*QCoreApplication::instance());
    const double before = residentMegabytes();
    WindowRun run;
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.showView(ui::View::Study);
        window.show();
        QApplication::processEvents();
        QElapsedTimer clock;
        clock.start();
        window.openDatabase(QString::fromStdString(file));
        window.focusStudy("workbench");
        while (!window.viewReady(ui::View::Study) && clock.elapsed() < 600000)
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        (void)window.grab();
        run.seconds = clock.nsecsElapsed() / 1e9;
        run.addedMegabytes = residentMegabytes() - before;

        auto writer = openStore(file);
        TrialRecord trial;
        trial.state = TrialState::Complete;
        trial.values = {0.05};
        trial.intermediateValues = {{0, 1.0}, {1, 0.5}};
        const QString shown = QStringLiteral("%1 trials,").arg(trials + 1);
        app.longest = 0.0;
        clock.restart();
        writer->addTrials(writer->requireStudy("workbench").id, std::vector<TrialRecord>{trial});
        while (!(titleSays(window, shown) && window.viewReady(ui::View::Study)) && clock.elapsed() < 600000)
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        (void)window.grab();
        run.refreshSeconds = clock.nsecsElapsed() / 1e9;
        run.longestEventSeconds = app.longest;
    }
    QApplication::processEvents();
    removeCopy();
    return run;
}

struct ReadSeconds {
    double whole = 0;      // Store::trials
    double summarised = 0; // Store::trialsSummarised, the newest 200 whole: what the window reads
    double importance = 0; // studyParams (the parameter table and importance) on what was read
};

// Seconds reading the study takes (a fresh connection each), and computing its importance.
ReadSeconds readAndImportanceSeconds(const std::string& file)
{
    ReadSeconds seconds;
    const auto since = [](auto start) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    {
        auto store = openStore(file, OpenMode::ReadOnly);
        const StudySummary summary = store->listStudies().front();
        const auto start = std::chrono::steady_clock::now();
        const std::vector<TrialRecord> trials = store->trialsSummarised(summary.study.id, summary.total() - 200);
        seconds.summarised = since(start);
    }
    auto store = openStore(file, OpenMode::ReadOnly);
    const std::int64_t study = store->requireStudy("workbench").id;
    auto start = std::chrono::steady_clock::now();
    const std::vector<TrialRecord> trials = store->trials(study);
    seconds.whole = since(start);
    start = std::chrono::steady_clock::now();
    const ui::StudyParams params = ui::studyParams(trials);
    seconds.importance = since(start);
    if (params.importance.size() != 4)
        std::fprintf(stderr, "importance: %zu parameters instead of 4\n", params.importance.size());
    return seconds;
}

// --- the Live view on many long runs ----------------------------------------------------------------------------

// `runs` finished training runs of `rows` metric rows each (five series: loss, loss/bev, compute_fps, lr,
// data_wait_ms; a row each per step), appended a run at a time.
void writeRuns(const std::string& file, int runs, int rows)
{
    const auto start = std::chrono::steady_clock::now();
    auto store = openStore(file);
    static const char* const keys[] = {"loss", "loss/bev", "compute_fps", "lr", "data_wait_ms"};
    std::vector<MetricSample> samples;
    for (int r = 0; r < runs; ++r) {
        RunRecord run;
        run.kind = "train";
        run.configYaml = "training: {}\n";
        run.seed = r;
        run.logicalDevice = "cpu:0";
        run.host = "bench";
        run.pid = 1;
        run.startTime = 1.7e9 + 3600.0 * r;
        const std::int64_t id = store->createRun(run);
        samples.clear();
        for (int i = 0; i < rows; ++i) {
            const int step = i / 5;
            const double decay = 1.0 / (1.0 + 0.001 * step);
            const double values[] = {2.0 * decay + 0.01 * (r % 7), decay, 900.0 + (step * 37) % 50, 1e-3 * decay,
                                     3.0 + (step * 13) % 5};
            samples.push_back({id, "train", step, keys[i % 5], values[i % 5], run.startTime + 0.1 * step});
        }
        store->appendMetrics(samples);
        store->finishRun(id, RunStatus::Succeeded, 0, "");
        if ((r + 1) % 100 == 0)
            std::fprintf(stderr, "  %d of %d runs written\n", r + 1, runs);
    }
    std::printf("wrote %s (%d runs of %d metric rows) in %.1f s\n", file.c_str(), runs, rows,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// Seconds until the Live view shows run `runId` fully read and drawn (a grab paints it).
double showLiveRun(ui::MainWindow& window, qint64 runId, const QElapsedTimer& clock)
{
    window.liveView()->showRun(runId);
    while (!(window.liveView()->shownRun() == runId && window.viewReady(ui::View::Live)) && clock.elapsed() < 600000)
        QApplication::processEvents(QEventLoop::AllEvents, 5);
    (void)window.grab();
    return clock.nsecsElapsed() / 1e9;
}

// Opens the file on the Live view of the first run (start to painted), then switches to the middle and the last
// run (each: the switch to painted); prints the medians of `repeat` rounds and the longest GUI-thread event.
void benchLive(const std::filesystem::path& folder, int runs, int rows, int repeat)
{
    const auto file = folder / ("pitwall-live-" + std::to_string(runs) + "x" + std::to_string(rows) + ".db");
    if (!std::filesystem::exists(file))
        writeRuns(file.string(), runs, rows);
    auto& app = static_cast<TimedApplication&>(*QCoreApplication::instance());
    std::vector<double> open, middle, last, longest, row;
    for (int r = 0; r < repeat; ++r) {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.showView(ui::View::Live);
        window.show();
        QApplication::processEvents();
        app.longest = 0.0;
        QElapsedTimer clock;
        clock.start();
        window.openDatabase(QString::fromStdString(file.string()));
        open.push_back(showLiveRun(window, 1, clock));
        clock.restart();
        middle.push_back(showLiveRun(window, runs / 2 + 1, clock));
        clock.restart();
        last.push_back(showLiveRun(window, runs, clock));
        // Another connection appends a row to the run shown: the time until the view has it and is drawn.
        const qint64 before = window.liveModel()->rowCount();
        auto writer = openStore(file.string());
        clock.restart();
        writer->appendMetrics(std::vector<MetricSample>{
            {runs, "train", rows / 5 + 1, "loss", 0.5, 1.7e9 + 3600.0 * (runs - 1) + 0.1 * (rows / 5 + 1)}});
        while (!(window.liveModel()->rowCount() > before && window.viewReady(ui::View::Live)) &&
               clock.elapsed() < 600000)
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        (void)window.grab();
        row.push_back(clock.nsecsElapsed() / 1e9);
        longest.push_back(app.longest);
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("live view, %d runs x %d metric rows (%.0f M rows): open to run 1 painted %s s; switch to run %d %s s, "
                "to run %d %s s; a row written by another connection on screen after %s s (a 500 ms poll interval "
                "included); longest GUI-thread event %s ms\n",
                runs, rows, runs * static_cast<double>(rows) / 1e6, benchcommon::fixed(median(open), 3).c_str(),
                runs / 2 + 1, benchcommon::fixed(median(middle), 3).c_str(), runs,
                benchcommon::fixed(median(last), 3).c_str(), benchcommon::fixed(median(row), 3).c_str(),
                benchcommon::fixed(1000 * median(longest), 1).c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    std::vector<int> sizes{10000, 100000};
    std::filesystem::path folder = std::filesystem::temp_directory_path();
    std::string gui = benchcommon::besideExecutable("../bin/pitwall-gui").string();
    int repeat = 3;
    int liveRuns = 0, liveRows = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::string value = i + 1 < argc ? argv[i + 1] : "";
        if (arg == "--trials" && !value.empty()) {
            sizes.clear(); // "none": only --live
            for (const std::string& part : split(value, ','))
                if (part != "none")
                    sizes.push_back(std::atoi(part.c_str()));
        } else if (arg == "--folder" && !value.empty()) {
            folder = value;
        } else if (arg == "--gui" && !value.empty()) {
            gui = value;
        } else if (arg == "--live" && !value.empty()) {
            const auto parts = split(value, 'x');
            liveRuns = parts.size() == 2 ? std::atoi(parts[0].c_str()) : 0;
            liveRows = parts.size() == 2 ? std::atoi(parts[1].c_str()) : 0;
            if (liveRuns < 2 || liveRows < 5) {
                std::fprintf(stderr, "bench_workbench: --live wants RUNSxROWS, at least 2x5 (1000x100000)\n");
                return 2;
            }
        } else if (arg == "--repeat" && !value.empty()) {
            repeat = std::max(1, std::atoi(value.c_str()));
        } else {
            std::fprintf(stderr,
                         "usage: bench_workbench [--trials 10000,100000|none] [--live RUNSxROWS] [--folder DIR] "
                         "[--gui PATH] [--repeat 3]\n");
            return 2;
        }
        ++i;
    }
    std::sort(sizes.begin(), sizes.end());
    for (int n : sizes)
        if (n < 1) {
            std::fprintf(stderr, "bench_workbench: --trials wants sizes >= 1\n");
            return 2;
        }
    startLauncher(); // before anything makes this process large
    TimedApplication app(argc, argv);
    QCoreApplication::setOrganizationName("PitwallBench");
    QSettings().clear();

    std::printf("%-9s %-34s %-34s %s\n", "trials", "pitwall-gui start -> exit (s, median)", "peak RSS (MB, median)",
                "in process: open -> painted (s) / +RSS (MB)");
    double referenceSeconds = 0.0, referenceWindow = 0.0;
    for (int n : sizes) {
        const auto file = folder / ("pitwall-workbench-" + std::to_string(n) + ".db");
        if (!std::filesystem::exists(file))
            writeStudy(file.string(), n);
        std::vector<double> seconds, peaks, window, added, importance, refresh, longest, reads,
            summarisedReads;
        for (int r = 0; r < repeat; ++r) {
            const ProcessRun run = runGui(gui, file.string(), (folder / "pitwall-workbench.png").string());
            if (run.status != 0) {
                std::fprintf(stderr, "%s exited with %d on %s\n", gui.c_str(), run.status, file.c_str());
                return 1;
            }
            seconds.push_back(run.seconds);
            peaks.push_back(run.peakMegabytes);
            const WindowRun inside = openInWindow(file.string(), (folder / "pitwall-workbench-copy.db").string(), n);
            window.push_back(inside.seconds);
            added.push_back(inside.addedMegabytes);
            refresh.push_back(inside.refreshSeconds);
            longest.push_back(inside.longestEventSeconds);
            const ReadSeconds read = readAndImportanceSeconds(file.string());
            reads.push_back(read.whole);
            summarisedReads.push_back(read.summarised);
            importance.push_back(read.importance);
        }
        const auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        if (referenceSeconds == 0.0) {
            referenceSeconds = median(seconds);
            referenceWindow = median(window);
        }
        std::printf("%-9d %-34s %-34s %s / %s   (x%s, x%s of %d trials)\n", n,
                    benchcommon::fixed(median(seconds), 3).c_str(), benchcommon::fixed(median(peaks), 1).c_str(),
                    benchcommon::fixed(median(window), 3).c_str(), benchcommon::fixed(median(added), 1).c_str(),
                    benchcommon::fixed(median(seconds) / referenceSeconds, 2).c_str(),
                    benchcommon::fixed(median(window) / referenceWindow, 2).c_str(), sizes.front());
        std::printf("%-9s one trial written by another connection: on screen after %s s; longest GUI-thread event "
                    "meanwhile %s ms (a 500 ms poll interval included)\n",
                    "", benchcommon::fixed(median(refresh), 3).c_str(),
                    benchcommon::fixed(1000 * median(longest), 1).c_str());
        std::printf("%-9s Store::trials reads the study in %s s (summarised as the window reads it, "
                    "Store::trialsSummarised: %s s); importance of 4 parameters (off the GUI thread): %s s\n",
                    "", benchcommon::fixed(median(reads), 3).c_str(),
                    benchcommon::fixed(median(summarisedReads), 3).c_str(),
                    benchcommon::fixed(median(importance), 3).c_str());
        std::fflush(stdout);
    }
    if (liveRuns > 0)
        benchLive(folder, liveRuns, liveRows, repeat);
    return 0;
}
