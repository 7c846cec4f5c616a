// The layering rule of the architecture, checked on the sources: core/ uses neither Qt nor torch,
// core/engine/ is the only place with torch and never uses Qt or ui/, ui/ never includes the engine, plugins see
// core/ and of the engine only the model contract (core/engine/model/modelapi.h), and the GUI's main stands on ui/
// and core/ without the engine.
#include <QtTest>

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "tests/support/testpaths.h"

using pitwall::test::binaryPath;
using pitwall::test::sourcePath;

class TestLayers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void includesPointDown_data();
    void includesPointDown();
    void noPathCompiledIn();
};

void TestLayers::includesPointDown_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("forbidden"); // regular expression over #include targets
    QTest::addColumn<QString>("exempt");    // sub-folder not checked (empty: none)
    QTest::newRow("core: no Qt, no torch, no ui, no engine")
        << "core" << R"(^(Q[A-Za-z]+|Qt[A-Za-z]+/.*|torch/.*|ATen/.*|c10/.*|ui/.*|core/engine/.*)$)" << "core/engine";
    QTest::newRow("engine: no Qt, no ui") << "core/engine" << R"(^(Q[A-Za-z]+|Qt[A-Za-z]+/.*|ui/.*)$)" << "";
    QTest::newRow("ui: no torch, no engine") << "ui" << R"(^(torch/.*|ATen/.*|c10/.*|core/engine/.*)$)" << "";
    QTest::newRow("cli: no Qt") << "app/cli" << R"(^(Q[A-Za-z]+|Qt[A-Za-z]+/.*|ui/.*)$)" << "";
    QTest::newRow("plugins: core/ and the model contract only")
        << "plugins"
        << R"(^(Q[A-Za-z]+|Qt[A-Za-z]+/.*|ui/.*|app/.*|core/engine/(?!model/modelapi\.h$).*)$)"
        << "";
    QTest::newRow("gui: no torch, no engine") << "app/gui"
                                              << R"(^(torch/.*|ATen/.*|c10/.*|core/engine/.*)$)"
                                              << "";
}

void TestLayers::includesPointDown()
{
    QFETCH(QString, folder);
    QFETCH(QString, forbidden);
    QFETCH(QString, exempt);
    const QRegularExpression includeLine(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
    const QRegularExpression bad(forbidden);
    const QString root = sourcePath("/") + folder;
    QDirIterator it(root, {"*.h", "*.cpp", "*.hpp", "*.in"}, QDir::Files, QDirIterator::Subdirectories);
    int files = 0;
    QStringList violations;
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(sourcePath()).relativeFilePath(path);
        if (!exempt.isEmpty() && relative.startsWith(exempt + "/"))
            continue;
        ++files;
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        int lineNumber = 0;
        while (!file.atEnd()) {
            ++lineNumber;
            const auto match = includeLine.match(QString::fromUtf8(file.readLine()));
            if (match.hasMatch() && bad.match(match.captured(1)).hasMatch())
                violations << QString("%1:%2 includes %3").arg(relative).arg(lineNumber).arg(match.captured(1));
        }
    }
    QVERIFY2(files > 0, qPrintable("no sources under " + folder));
    QVERIFY2(violations.isEmpty(), qPrintable(violations.join("\n")));
}

// No compile definition of any object holds the checkout's or the build's path: such an object differs in a clone
// in another folder, so CI's clone would miss ccache for it (a test once got PITWALL_SOURCE_DIR that way, and
// Qt Test's interface adds QT_TESTCASE_BUILDDIR; see the top-level CMakeLists.txt). Read from the build's
// compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS).
void TestLayers::noPathCompiledIn()
{
    QFile file(binaryPath("/compile_commands.json"));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QJsonArray commands = QJsonDocument::fromJson(file.readAll()).array();
    QVERIFY(!commands.isEmpty());
    const QRegularExpression definition(QStringLiteral("-D([A-Za-z0-9_]+)=(\\S+)"));
    for (const QJsonValue& entry : commands) {
        const QString command = entry.toObject().value("command").toString();
        for (const QRegularExpressionMatch& m : definition.globalMatch(command)) {
            const QString value = m.captured(2);
            QVERIFY2(!value.contains(sourcePath()) && !value.contains(binaryPath()),
                     qPrintable(entry.toObject().value("file").toString() + ": -D" + m.captured(1) + "=" + value));
        }
    }
}

QTEST_GUILESS_MAIN(TestLayers)
#include "tst_layers.moc"
