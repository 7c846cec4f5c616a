// The workbench's application object: an exception escaping an event handler is reported in a dialog and the
// window goes on (before, it terminated the process), and numbers stay in the C locale under a decimal-comma
// desktop locale.
#include "ui/application.h"

#include <QtTest>

#include <QMessageBox>

#include <clocale>
#include <cstdio>
#include <stdexcept>

namespace {
class Thrower : public QObject {
public:
    int delivered = 0;
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::User) {
            ++delivered;
            throw std::runtime_error("the handler failed on purpose");
        }
        return QObject::event(e);
    }
};

QMessageBox* errorDialog()
{
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->objectName() == "pitwallErrorDialog" && w->isVisible())
            return qobject_cast<QMessageBox*>(w);
    return nullptr;
}
} // namespace

class TestApplication : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exceptionInHandlerShowsDialogAndContinues();
    void numbersUseThePointUnderGermanLocale();
};

void TestApplication::exceptionInHandlerShowsDialogAndContinues()
{
    Thrower thrower;
    const int before = pitwall::ui::Application::reportedErrors();
    QCoreApplication::postEvent(&thrower, new QEvent(QEvent::User));
    QTRY_COMPARE(thrower.delivered, 1);
    QCOMPARE(pitwall::ui::Application::reportedErrors(), before + 1);
    QTRY_VERIFY(errorDialog() != nullptr);
    QVERIFY(errorDialog()->text().contains("the handler failed on purpose"));
    errorDialog()->accept();
    // The event loop still runs: a second event is delivered and reported too.
    QCoreApplication::postEvent(&thrower, new QEvent(QEvent::User));
    QTRY_COMPARE(thrower.delivered, 2);
    QCOMPARE(pitwall::ui::Application::reportedErrors(), before + 2);
}

void TestApplication::numbersUseThePointUnderGermanLocale()
{
    // ctest runs this under LC_ALL=de_DE.UTF-8; QApplication took every category from it, Application put
    // LC_NUMERIC back to C.
    QCOMPARE(QString::fromLatin1(std::setlocale(LC_NUMERIC, nullptr)), QString("C"));
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", 0.5);
    QCOMPARE(QString::fromLatin1(text), QString("0.5"));
}

int main(int argc, char** argv)
{
    pitwall::ui::Application app(argc, argv);
    TestApplication test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_application.moc"
