// pitwall-gui: the workbench window.
#include "ui/mainwindow.h"
#include "ui/studiesview.h"

#include "core/util/paths.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Pitwall");
    QApplication::setApplicationName("pitwall-gui");
    QApplication::setApplicationVersion(PITWALL_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Pitwall workbench: studies, trials and live training charts from a results database.");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption dbOption("db", "Results database to open (default: $PITWALL_DB, else pitwall.db).", "FILE");
    QCommandLineOption screenshotOption("screenshot", "Render the window to a PNG file once the data is shown, then exit.", "FILE");
    QCommandLineOption studyOption("study", "Study to select at start.", "NAME");
    parser.addOption(dbOption);
    parser.addOption(screenshotOption);
    parser.addOption(studyOption);
    parser.process(app);

    const QString db = parser.isSet(dbOption) ? parser.value(dbOption)
                                              : QString::fromStdString(pitwall::defaultDatabasePath());
    pitwall::ui::MainWindow window;
    window.show();
    if (QFileInfo::exists(db))
        window.openDatabase(db);

    const QString study = parser.value(studyOption);
    if (!study.isEmpty()) {
        QObject::connect(&window, &pitwall::ui::MainWindow::snapshotShown, &window, [&] {
            if (window.snapshot().focusStudy.isEmpty())
                Q_EMIT window.studiesView()->studySelected(study);
        });
    }
    if (parser.isSet(screenshotOption)) {
        const QString file = parser.value(screenshotOption);
        QObject::connect(&window, &pitwall::ui::MainWindow::snapshotShown, &app, [&] {
            if (!study.isEmpty() && window.snapshot().focusStudy != study)
                return; // wait for the study's trials
            QTimer::singleShot(50, &app, [&] {
                const bool ok = window.grab().save(file, "PNG");
                std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "cannot write %s\n", qPrintable(file));
                app.exit(ok ? 0 : 1);
            });
        });
        if (!QFileInfo::exists(db)) {
            std::fprintf(stderr, "no database at %s\n", qPrintable(db));
            return 2;
        }
    }
    return app.exec();
}
