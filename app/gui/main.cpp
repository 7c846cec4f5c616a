// pitwall-gui: the workbench window. This file parses the command line; ui/workbench.h opens the window.
#include "ui/application.h"
#include "ui/workbench.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>

namespace {

// Returns the exit status.
int parseAndRun(pitwall::ui::Application& app)
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
    pitwall::ui::WorkbenchOptions options;
    options.db =
        parser.isSet(dbOption) ? parser.value(dbOption) : QString::fromStdString(pitwall::defaultDatabasePath());
    options.compareDbs = parser.values(compareDbOption);
    options.study = parser.value(studyOption);
    options.view = *view;
    options.screenshot = parser.value(screenshotOption);
    if (parser.isSet(screenshotOption) && options.screenshot.isEmpty()) {
        std::fprintf(stderr, "pitwall-gui: --screenshot needs the PNG file to write\n");
        return 2;
    }
    if (!options.screenshot.isEmpty())
        for (const QString& file : QStringList{options.db} + options.compareDbs)
            if (!QFileInfo::exists(file)) {
                std::fprintf(stderr, "pitwall-gui: no database at %s\n", qPrintable(file));
                return 2;
            }
    return pitwall::ui::runWorkbench(app, options);
}

} // namespace

int main(int argc, char** argv)
{
    if (!pitwall::ui::prepareDisplay(argc, argv))
        return 2;
    pitwall::ui::Application app(argc, argv);
    // An error while the window is built is reported like one in an event handler; then the process ends
    // with exit 1 (bad input: 2) instead of Qt's abort.
    try {
        return parseAndRun(app);
    } catch (const pitwall::InputError& e) {
        for (const pitwall::Diagnostic& d : e.diagnostics())
            std::fprintf(stderr, "pitwall-gui: error: %s\n", d.toString().c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pitwall-gui: could not start: %s\n", e.what());
        return 1;
    }
}
