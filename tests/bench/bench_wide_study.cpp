// The window on a study with very many parameters (issue 15: 30 trials × 10,000 parameters; goal: each view
// under about 1 s). Writes the study (tests/ui/widestudy.h) unless the file exists, then times, in one
// offscreen MainWindow:
//   open → Studies view ready (the store snapshot, the side bar and the trials table) and painted;
//   Study view ready (history, parallel coordinates, importance, timeline) and painted;
//   Compare view ready and painted, with no trial ticked and with three;
//   the Study view alone: StudyView::showStudy (computed on the calling thread) + paint.
// Prints seconds per step. Not part of CTest:
//   build/bench/bench_wide_study [params=10000] [trials=30] [database]
#include "../ui/widestudy.h"

#include "ui/compare/compareview.h"
#include "ui/mainwindow.h"
#include "ui/study/internal/parallelcoords.h"
#include "ui/study/internal/studywidgets.h"
#include "ui/study/studyview.h"

#include "core/store/store.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSettings>

#include <cstdio>
#include <cstdlib>

using namespace pitwall;

namespace {

// Seconds from `start()` until the view is ready, then painted (grab of the whole window).
void timeView(ui::MainWindow& window, ui::View view, const char* label, const std::function<void()>& start)
{
    QElapsedTimer clock;
    clock.start();
    start();
    while (!window.viewReady(view) && clock.elapsed() < 600000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    const double readySeconds = clock.nsecsElapsed() / 1e9;
    (void)window.grab();
    std::printf("%-44s ready %7.3f s, + paint %7.3f s\n", label, readySeconds, clock.nsecsElapsed() / 1e9);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("PitwallBench");
    QSettings().clear();
    const int params = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int trials = argc > 2 ? std::atoi(argv[2]) : 30;
    const QString db = argc > 3 ? QString::fromLocal8Bit(argv[3])
                                : QDir::temp().filePath(QStringLiteral("pitwall-wide-%1x%2.db").arg(trials).arg(params));
    if (!QFileInfo::exists(db)) {
        QElapsedTimer clock;
        clock.start();
        widestudy::writeWideStudy(db.toStdString(), "wide", trials, params);
        std::printf("wrote %s (%d trials × %d parameters) in %.1f s\n", qPrintable(db), trials, params,
                    clock.nsecsElapsed() / 1e9);
    }
    std::printf("window on %s\n", qPrintable(db));

    ui::MainWindow window;
    window.resize(1400, 900);
    window.showView(ui::View::Studies);
    window.show();
    timeView(window, ui::View::Studies, "open → Studies view", [&] { window.openDatabase(db); });
    timeView(window, ui::View::Study, "Study view", [&] { window.showView(ui::View::Study); });
    std::printf("  parallel coordinates: %d axes, importance: %zu bars\n", window.studyView()->parallel()->axisCount(),
                window.studyView()->importance()->values().size());
    timeView(window, ui::View::Compare, "Compare view", [&] { window.showView(ui::View::Compare); });
    timeView(window, ui::View::Compare, "Compare view, 3 trials ticked",
             [&] { window.compareView()->setChecked({0, 1, 2}); });
    timeView(window, ui::View::Studies, "back to Studies view", [&] { window.showView(ui::View::Studies); });

    QElapsedTimer read;
    read.start();
    auto store = openStore(db.toStdString());
    std::vector<TrialRecord> records = store->trials(store->requireStudy("wide").id);
    std::printf("%-44s %7.3f s\n", "Store::trials (what the poller reads)", read.nsecsElapsed() / 1e9);
    ui::StudyView study;
    study.resize(1400, 800);
    study.show();
    QApplication::processEvents();
    QElapsedTimer clock;
    clock.start();
    study.showStudy("wide", StudyDirection::Minimize, records, {});
    const double computed = clock.nsecsElapsed() / 1e9;
    (void)study.grab();
    std::printf("%-44s ready %7.3f s, + paint %7.3f s\n", "StudyView::showStudy alone", computed,
                clock.nsecsElapsed() / 1e9);
    return 0;
}
