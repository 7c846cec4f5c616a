// checkCanCreate(): whether a benchmark's output folder, plot or results file can be made, decided without making
// anything (what `pitwall bench ... --check` relies on). If this fails, a check passes a path the real start
// cannot write (it then fails after the job started), refuses a path that works, or leaves folders behind.
#include "core/util/error.h"
#include "core/util/pathcheck.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using pitwall::checkCanCreate;
using pitwall::PathKind;

Q_DECLARE_METATYPE(PathKind)

namespace {
// The message of the InputError `path` gets, "" when it passes.
QString problemOf(const QString& path, PathKind kind)
{
    try {
        checkCanCreate(path.toStdString(), kind, "--out");
    } catch (const pitwall::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}
} // namespace

class TestPathCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void decides_data();
    void decides();
    void createsNothing();
    void readOnlyFolderIsRefused();

private:
    QTemporaryDir m_dir;
};

void TestPathCheck::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir(m_dir.path()).mkpath("folder"));
    QFile file(m_dir.filePath("file.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write("x") == 1);
}

void TestPathCheck::decides_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<PathKind>("kind");
    QTest::addColumn<QString>("problem"); // "" when it passes
    QTest::newRow("existing folder") << "folder" << PathKind::Folder << "";
    QTest::newRow("new nested folders") << "folder/a/b/c" << PathKind::Folder << "";
    QTest::newRow("new file in new folder") << "new/plot.png" << PathKind::File << "";
    QTest::newRow("existing file") << "file.txt" << PathKind::File << "";
    QTest::newRow("file where a folder is wanted") << "file.txt" << PathKind::Folder << "is a file, not a folder";
    QTest::newRow("folder where a file is wanted") << "folder" << PathKind::File << "is a folder, not a file";
    QTest::newRow("under a file") << "file.txt/sub/plot.png" << PathKind::File << "cannot be created: '";
}

void TestPathCheck::decides()
{
    QFETCH(QString, relative);
    QFETCH(PathKind, kind);
    QFETCH(QString, problem);
    const QString path = m_dir.filePath(relative);
    const QString found = problemOf(path, kind);
    if (problem.isEmpty()) {
        QVERIFY2(found.isEmpty(), qPrintable(found));
    } else {
        QVERIFY2(found.startsWith("--out '" + path + "': "), qPrintable(found)); // names the option and the path
        QVERIFY2(found.contains(problem), qPrintable(found));
    }
}

void TestPathCheck::createsNothing()
{
    QVERIFY(problemOf(m_dir.filePath("x/y/z"), PathKind::Folder).isEmpty());
    QVERIFY(problemOf(m_dir.filePath("p/q.png"), PathKind::File).isEmpty());
    QVERIFY(!QFileInfo::exists(m_dir.filePath("x")));
    QVERIFY(!QFileInfo::exists(m_dir.filePath("p")));
    QVERIFY(!problemOf("", PathKind::Folder).isEmpty());
}

void TestPathCheck::readOnlyFolderIsRefused()
{
    // The check must answer as creating would: refused where mkdir fails (a 0555 folder, for a normal user), passed
    // where it succeeds (root may write into any folder). Whoever runs it, the verdict is compared with the real
    // attempt, so the test never skips.
    const QString locked = m_dir.filePath("locked");
    QVERIFY(QDir(m_dir.path()).mkpath("locked"));
    QVERIFY(::chmod(locked.toLocal8Bit().constData(), 0555) == 0);
    const QString found = problemOf(locked + "/out", PathKind::Folder);
    const bool created = QDir(locked).mkdir("out");
    ::chmod(locked.toLocal8Bit().constData(), 0755);
    if (created)
        QVERIFY2(found.isEmpty(), qPrintable(found));
    else
        QVERIFY2(found.contains("is not writable"), qPrintable(found));
}

QTEST_GUILESS_MAIN(TestPathCheck)
#include "tst_pathcheck.moc"
