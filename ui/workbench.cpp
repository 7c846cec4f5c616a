#include "ui/workbench.h"

#include "ui/application.h"
#include "ui/themecontroller.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace pitwall::ui {

namespace {
constexpr int kScreenshotTimeoutMs = 60000;
constexpr int kReadyChecksBeforeGrab = 3; // ready on consecutive checks, so the last redraw has been painted
constexpr int kCheckIntervalMs = 100;

// Grabs the window once `view` has shown its data, writes `file` and ends the event loop.
void screenshotWhenReady(Application& app, MainWindow& window, View view, const QString& file)
{
    auto* timer = new QTimer(&app);
    auto waited = std::make_shared<QElapsedTimer>();
    waited->start();
    auto readyChecks = std::make_shared<int>(0);
    QObject::connect(timer, &QTimer::timeout, &app, [&app, &window, view, file, timer, waited, readyChecks] {
        *readyChecks = window.viewReady(view) ? *readyChecks + 1 : 0;
        const bool timedOut = waited->elapsed() > kScreenshotTimeoutMs;
        if (*readyChecks < kReadyChecksBeforeGrab && !timedOut)
            return;
        timer->stop();
        const bool ok = window.grab().save(file, "PNG");
        if (timedOut)
            std::fprintf(stderr, "pitwall-gui: the %s view's data did not arrive within %d s; wrote what was shown\n",
                         qPrintable(viewName(view)), kScreenshotTimeoutMs / 1000);
        std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "cannot write %s\n", qPrintable(file));
        app.exit(ok && !timedOut ? 0 : 1);
    });
    timer->start(kCheckIntervalMs);
}
} // namespace

bool prepareDisplay(int argc, char** argv)
{
    const auto set = [](const char* name) { return std::getenv(name) && *std::getenv(name); };
    if (set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY"))
        return true;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h") || !std::strcmp(a, "--version") ||
            !std::strcmp(a, "-v") || !std::strncmp(a, "--screenshot", 12)) {
            ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
            return true;
        }
    }
    std::fprintf(stderr, "pitwall-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run it on a desktop, "
                         "render a view with --screenshot FILE, or use the command line: pitwall --help\n");
    return false;
}

int runWorkbench(Application& app, const WorkbenchOptions& options)
{
    ThemeController::instance()->start(options.theme);
    MainWindow window;
    if (!options.study.isEmpty())
        window.focusStudy(options.study);
    window.showView(options.view);
    window.show();
    if (QFileInfo::exists(options.db))
        window.openDatabase(options.db);
    else if (options.dbGiven)
        window.createDatabase(options.db); // says so in the status bar; an error in a dialog
    else
        window.showStartPage(QObject::tr("There is no results database at %1 yet: make a new one, open one, or run "
                                         "the demo.")
                                 .arg(QFileInfo(options.db).absoluteFilePath()),
                             false);
    for (const QString& file : options.compareDbs)
        window.addCompareDatabase(file);
    if (!options.screenshot.isEmpty())
        screenshotWhenReady(app, window, options.view, options.screenshot);
    return app.exec();
}

} // namespace pitwall::ui
