#include "ui/application.h"

#include "core/util/error.h"

#include <QMessageBox>

#include <atomic>
#include <clocale>
#include <cstdio>

namespace pitwall::ui {

namespace {
std::atomic<int> g_reported{0};
constexpr int kMaxDialogs = 3; // an error repeating in every paint event must not bury the window in dialogs
}

Application::Application(int& argc, char** argv) : QApplication(argc, argv)
{
    // QApplication has just set every C locale category from the environment; under de_DE, printf and strtod in
    // libraries would then write and read "0,5". Qt's own widgets format through QLocale, which this leaves alone.
    std::setlocale(LC_NUMERIC, "C");
}

bool Application::notify(QObject* receiver, QEvent* event)
{
    try {
        return QApplication::notify(receiver, event);
    } catch (const InputError& e) {
        QString text;
        for (const Diagnostic& d : e.diagnostics())
            text += QString::fromStdString(d.toString()) + "\n";
        reportError(QStringLiteral("Bad input"), text.trimmed());
    } catch (const std::exception& e) {
        reportError(QStringLiteral("Unexpected error"), QString::fromLocal8Bit(e.what()));
    } catch (...) {
        reportError(QStringLiteral("Unexpected error"), QStringLiteral("an unknown exception"));
    }
    return false;
}

void Application::reportError(const QString& context, const QString& what)
{
    const int n = ++g_reported;
    std::fprintf(stderr, "pitwall-gui: %s: %s\n", qPrintable(context), qPrintable(what));
    if (n > kMaxDialogs)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, QStringLiteral("Pitwall — ") + context,
                                what + QStringLiteral("\n\nThe window stays open: correct the input or the file named above and try "
                                                  "again. Details are also on the terminal (stderr)."),
                                QMessageBox::Ok);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("pitwallErrorDialog"));
    box->open();
}

int Application::reportedErrors() { return g_reported.load(); }

} // namespace pitwall::ui
