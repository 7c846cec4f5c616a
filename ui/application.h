#pragma once
// The workbench's QApplication: numbers stay in the C locale whatever the desktop's, and no exception ever
// ends the window. An error escaping an event handler is shown in a dialog (and on stderr) and the window goes on.

#include <QApplication>

namespace pitwall::ui {

class Application : public QApplication {
public:
    Application(int& argc, char** argv);

    // Delivers the event; an exception thrown by its handler is reported through reportError() instead of
    // terminating the process.
    bool notify(QObject* receiver, QEvent* event) override;

    // Shows `what` with advice in a non-blocking dialog on the main thread and writes it to stderr.
    static void reportError(const QString& context, const QString& what);

    // How many errors were reported since start (tests read it).
    static int reportedErrors();
};

} // namespace pitwall::ui
