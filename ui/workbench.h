#pragma once
// Starting the workbench window for pitwall-gui's main (app/gui/main.cpp), which parses the command line: the
// display check that keeps Qt from aborting without one, and the window opened on a database, with the
// screenshot mode that renders a view once its data is shown.

#include "ui/mainwindow.h"
#include "ui/theme.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace pitwall::ui {

class Application;

// Without a display Qt would abort while creating the application. --help, --version and --screenshot need no
// screen, so they run on the offscreen platform (QT_QPA_PLATFORM is set here); anything else gets a plain
// message on stderr and false.
bool prepareDisplay(int argc, char** argv);

struct WorkbenchOptions {
    QString db;                // opened when it exists; created when dbGiven and its folder exists
    bool dbGiven = false;      // named on the command line or by $PITWALL_DB (else the default, ./pitwall.db)
    QStringList compareDbs;    // opened read-only for comparing; a missing or foreign file is refused in the window
    QString study;             // put in focus at start when not empty
    View view = View::Studies; // shown at start
    QString screenshot;        // when not empty: write the window as a PNG here once the view's data is shown, exit
    std::optional<ThemeChoice> theme; // for this run; when empty, the saved choice (View > Theme), else System
};

// Shows the window and runs the event loop; returns the exit status (screenshot mode: 0 written, 1 not written
// or the data did not arrive within a minute, in which case what was shown is written).
int runWorkbench(Application& app, const WorkbenchOptions& options);

} // namespace pitwall::ui
