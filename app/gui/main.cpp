// pitwall-gui: the workbench window. This file parses the command line; ui/workbench.h opens the window.
#include "ui/application.h"
#include "ui/theme.h"
#include "ui/workbench.h"

#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/manpage.h"
#include "core/util/paths.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// pitwall-gui's man page from the same texts its --help prints (the build writes it: cmake/PitwallInstall.cmake).
int writeManPage(const QCommandLineParser& parser, const QList<QCommandLineOption>& options, const QString& file)
{
    pitwall::cmdline::Command command;
    command.summary = "the Pitwall workbench window";
    command.usage = "[FILE] [--db FILE] [--study NAME] [--view VIEW] [--compare-db FILE]... [--screenshot FILE]";
    command.description = parser.applicationDescription().toStdString() +
                          "\n\nFILE (or --db FILE) is the results database to open; without one the window opens "
                          "$PITWALL_DB, else pitwall.db in the working directory, when it exists.";
    for (const QCommandLineOption& option : options)
        command.options.push_back({option.names().constLast().toStdString(), option.valueName().toStdString(),
                                   option.description().toStdString()});
    command.options.push_back({"version", "", "show the version"});
    const pitwall::cmdline::ManPageInfo info{"pitwall-gui", PITWALL_VERSION, pitwall::cmdline::manPageDate()};
    pitwall::writeFileAtomically(file.toStdString(), pitwall::cmdline::commandManPage(info, command));
    return 0;
}

// The options that say what the window opens, as parseAndRun declared them.
struct WindowOptions {
    const QCommandLineOption& db;
    const QCommandLineOption& compareDb;
    const QCommandLineOption& screenshot;
    const QCommandLineOption& study;
    const QCommandLineOption& view;
    const QCommandLineOption& theme;
};

// Fills `options` from the parsed command line; false after printing what is wrong (exit status 2).
bool readOptions(const QCommandLineParser& parser, const WindowOptions& o, pitwall::ui::WorkbenchOptions& options)
{
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1 || (files.size() == 1 && parser.isSet(o.db))) {
        std::fprintf(stderr, "pitwall-gui: give one results database, as FILE or as --db FILE (got %s)\n",
                     qPrintable((parser.isSet(o.db) ? QStringList{parser.value(o.db)} + files : files)
                                    .join(QStringLiteral(", "))));
        return false;
    }

    const auto view = pitwall::ui::parseView(parser.value(o.view));
    if (!view) {
        std::fprintf(stderr, "pitwall-gui: unknown view '%s' (studies, configure, live, study, compare, benchmarks)\n",
                     qPrintable(parser.value(o.view)));
        return false;
    }
    std::optional<pitwall::ui::ThemeChoice> theme;
    if (parser.isSet(o.theme)) {
        theme = pitwall::ui::parseThemeChoice(parser.value(o.theme));
        if (!theme) {
            std::fprintf(stderr, "pitwall-gui: unknown theme '%s' (system, light, dark)\n",
                         qPrintable(parser.value(o.theme)));
            return false;
        }
    }
    options.theme = theme;
    options.db = parser.isSet(o.db) ? parser.value(o.db)
                 : files.size() == 1    ? files.front()
                                        : QString::fromStdString(pitwall::defaultDatabasePath());
    options.dbGiven = parser.isSet(o.db) || files.size() == 1 || !qEnvironmentVariableIsEmpty("PITWALL_DB");
    options.compareDbs = parser.values(o.compareDb);
    options.study = parser.value(o.study);
    options.view = *view;
    options.screenshot = parser.value(o.screenshot);
    if (parser.isSet(o.screenshot) && options.screenshot.isEmpty()) {
        std::fprintf(stderr, "pitwall-gui: --screenshot needs the PNG file to write\n");
        return false;
    }
    if (!options.screenshot.isEmpty())
        for (const QString& file : options.compareDbs)
            if (!QFileInfo::exists(file)) {
                std::fprintf(stderr, "pitwall-gui: no database at %s\n", qPrintable(file));
                return false;
            }
    return true;
}

// Returns the exit status.
int parseAndRun(pitwall::ui::Application& app)
{
    QApplication::setOrganizationName("Pitwall");
    QApplication::setApplicationName("pitwall-gui");
    QApplication::setApplicationVersion(PITWALL_VERSION);
    QApplication::setWindowIcon(pitwall::ui::applicationIcon());
    QGuiApplication::setDesktopFileName(QStringLiteral("org.pitwall.Pitwall")); // the desktop entry's icon on Wayland

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
    QCommandLineOption themeOption("theme",
                                   "Palette for this run: system (follow the desktop's light or dark preference), "
                                   "light or dark (default: the one chosen in View > Theme, else system).",
                                   "THEME");
    parser.addOption(dbOption);
    parser.addOption(compareDbOption);
    parser.addOption(screenshotOption);
    parser.addOption(studyOption);
    parser.addOption(viewOption);
    parser.addOption(themeOption);
    parser.addPositionalArgument("FILE", "Results database to open (the same as --db FILE).", "[FILE]");
    QCommandLineOption manOption("write-man-page", "Write the man page (roff) to FILE and exit.", "FILE");
    manOption.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(manOption);
    parser.process(app);
    if (parser.isSet(manOption))
        return writeManPage(parser, {dbOption, compareDbOption, screenshotOption, studyOption, viewOption, themeOption},
                            parser.value(manOption));
    pitwall::ui::WorkbenchOptions options;
    if (!readOptions(parser, {dbOption, compareDbOption, screenshotOption, studyOption, viewOption, themeOption},
                     options))
        return 2;
    return pitwall::ui::runWorkbench(app, options);
}

} // namespace

int main(int argc, char** argv)
{
    // The build writes the man page where there may be no display.
    for (int i = 1; i < argc; ++i)
        if (!std::strncmp(argv[i], "--write-man-page", 16))
            ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
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
