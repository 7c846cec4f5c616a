// pitwall-gui: the workbench window.
#include "ui/application.h"
#include "ui/mainwindow.h"

#include "core/util/error.h"

#include "core/util/paths.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int kScreenshotTimeoutMs = 60000;
constexpr int kReadyChecksBeforeGrab = 3; // ready on consecutive checks, so the last redraw has been painted
constexpr int kCheckIntervalMs = 100;
// Without a display Qt would abort while creating the application. --help, --version and --screenshot need no
// screen, so they run on the offscreen platform; anything else gets a plain message instead of Qt's abort.
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

int runWindow(pitwall::ui::Application& app);
} // namespace

int main(int argc, char** argv)
{
    if (!prepareDisplay(argc, argv))
        return 2;
    pitwall::ui::Application app(argc, argv);
    // An error while the window is built is reported like one in an event handler; then the process ends
    // with exit 1 (bad input: 2) instead of Qt's abort.
    try {
        return runWindow(app);
    } catch (const pitwall::InputError& e) {
        for (const pitwall::Diagnostic& d : e.diagnostics())
            std::fprintf(stderr, "pitwall-gui: error: %s\n", d.toString().c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pitwall-gui: could not start: %s\n", e.what());
        return 1;
    }
}

namespace {
int runWindow(pitwall::ui::Application& app)
{
    QApplication::setOrganizationName("Pitwall");
    QApplication::setApplicationName("pitwall-gui");
    QApplication::setApplicationVersion(PITWALL_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Pitwall workbench: studies, configuration, live training charts, study analysis, "
                                     "comparisons and benchmarks from a results database.");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption dbOption("db", "Results database to open (default: $PITWALL_DB, else pitwall.db).", "FILE");
    QCommandLineOption screenshotOption(
        "screenshot", "Render the window to a PNG file once the view's data is shown, then exit.", "FILE");
    QCommandLineOption compareDbOption(
        "compare-db", "Another results database to compare trials with, opened read-only (repeatable).", "FILE");
    QCommandLineOption studyOption("study", "Study to put in focus at start (default: the first one).", "NAME");
    QCommandLineOption viewOption("view", "View to show: studies, configure, live, study, compare or benchmarks.",
                                  "VIEW", "studies");
    parser.addOption(dbOption);
    parser.addOption(compareDbOption);
    parser.addOption(screenshotOption);
    parser.addOption(studyOption);
    parser.addOption(viewOption);
    parser.process(app);

    const auto view = pitwall::ui::parseView(parser.value(viewOption));
    if (!view) {
        std::fprintf(stderr, "pitwall-gui: unknown view '%s' (studies, configure, live, study, compare, benchmarks)\n",
                     qPrintable(parser.value(viewOption)));
        return 2;
    }
    const QString db =
        parser.isSet(dbOption) ? parser.value(dbOption) : QString::fromStdString(pitwall::defaultDatabasePath());
    const bool screenshot = parser.isSet(screenshotOption);
    const QStringList compareDbs = parser.values(compareDbOption);
    const QStringList needed = QStringList{db} + compareDbs;
    for (const QString& file : needed)
        if (screenshot && !QFileInfo::exists(file)) {
            std::fprintf(stderr, "pitwall-gui: no database at %s\n", qPrintable(file));
            return 2;
        }

    pitwall::ui::MainWindow window;
    if (!parser.value(studyOption).isEmpty())
        window.focusStudy(parser.value(studyOption));
    window.showView(*view);
    window.show();
    if (QFileInfo::exists(db))
        window.openDatabase(db);
    for (const QString& file : compareDbs)
        window.addCompareDatabase(file); // a missing or foreign file is refused in the window, with its reason

    if (screenshot) {
        const QString file = parser.value(screenshotOption);
        auto* timer = new QTimer(&app);
        auto* waited = new QElapsedTimer;
        waited->start();
        int readyChecks = 0;
        QObject::connect(timer, &QTimer::timeout, &app, [&, timer, waited] {
            readyChecks = window.viewReady(*view) ? readyChecks + 1 : 0;
            const bool timedOut = waited->elapsed() > kScreenshotTimeoutMs;
            if (readyChecks < kReadyChecksBeforeGrab && !timedOut)
                return;
            timer->stop();
            const bool ok = window.grab().save(file, "PNG");
            if (timedOut)
                std::fprintf(stderr,
                             "pitwall-gui: the %s view's data did not arrive within %d s; wrote what was shown\n",
                             qPrintable(pitwall::ui::viewName(*view)), kScreenshotTimeoutMs / 1000);
            std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "cannot write %s\n", qPrintable(file));
            delete waited;
            app.exit(ok && !timedOut ? 0 : 1);
        });
        timer->start(kCheckIntervalMs);
    }
    return app.exec();
}
} // namespace
