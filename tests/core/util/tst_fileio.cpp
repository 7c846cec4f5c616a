// Issue 27, items 2, 8 and 11: how Pitwall reads files from outside and writes its own.
// - readTextFile reads only regular files and at most a limit (`--space /dev/zero` read 2.3 GB; a FIFO would hang).
// - writeFileAtomically / OutputFile report every failed write with the path (a full disk was a success with 0-byte
//   files); a replaced file holds the old or the whole new content, never a part.
// - Logs are created 0600 and never through a planted symbolic link (openLogFile, and the output files of
//   ChildProcess::start: worker_*.log, job-N.log).
// - The CLI exits 1 when its standard output could not be written (a detached job's log on a full disk).
// If one of these fails, a full disk, a device or a planted link is back to being silently accepted.
#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"
#include "core/util/process.h"

#include "../../support/testenv.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace pitwall;

namespace {

// The message of the exception `f` throws (of type E), "" when it throws none.
template <typename E, typename F> QString messageOf(F f)
{
    try {
        f();
    } catch (const E& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QByteArray contentOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

mode_t modeOf(const QString& path)
{
    struct stat info {};
    return ::lstat(path.toLocal8Bit().constData(), &info) == 0 ? info.st_mode & 07777 : 0;
}

} // namespace

class TestFileIo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsOnlyRegularFiles_data();
    void readsOnlyRegularFiles();
    void readStopsAtTheLimit();
    void atomicWriteReplacesWhole();
    void atomicWriteIntoADevice();
    void fullDiskIsAnError();
    void logsArePrivateAndNeverFollowLinks();
    void childOutputFilesNeverFollowLinks();
    void cliFailsWhenItsOutputIsLost();
};

void TestFileIo::readsOnlyRegularFiles_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::newRow("endless device") << "/dev/zero"
                                    << "/dev/zero: is a device, not a regular file (Pitwall reads input only from "
                                       "regular files)";
    QTest::newRow("directory") << "/tmp"
                               << "/tmp: is a directory, not a file";
    QTest::newRow("missing") << "/nonexistent/space.yaml"
                             << "/nonexistent/space.yaml: cannot read file: No such file or directory";
}

void TestFileIo::readsOnlyRegularFiles()
{
    QFETCH(QString, path);
    QFETCH(QString, message);
    QCOMPARE(messageOf<InputError>([&] { readTextFile(path.toStdString()); }), message);
}

void TestFileIo::readStopsAtTheLimit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A FIFO nobody writes to: refused at once (opening it must not wait for a writer).
    const QString fifo = dir.filePath("space.yaml");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QCOMPARE(messageOf<InputError>([&] { readTextFile(fifo.toStdString()); }),
             fifo + ": is a pipe, not a regular file (Pitwall reads input only from regular files)");

    const QString file = dir.filePath("big.json");
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QVERIFY(out.write(QByteArray(101, 'x')) == 101);
    }
    QCOMPARE(messageOf<InputError>([&] { readTextFile(file.toStdString(), 100); }),
             file + ": is larger than 100 bytes (101 bytes), the most Pitwall reads from one input file of this kind");
    QCOMPARE(readTextFile(file.toStdString(), 101).size(), std::size_t(101));
    QCOMPARE(QString::fromStdString(byteSizeText(kMaxInputFileBytes)), QString("16 MiB"));
}

void TestFileIo::atomicWriteReplacesWhole()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("best_params.yaml");
    writeFileAtomically(path.toStdString(), "x: 1\n");
    QCOMPARE(contentOf(path), QByteArray("x: 1\n"));
    QCOMPARE(::chmod(path.toLocal8Bit().constData(), 0640), 0);
    writeFileAtomically(path.toStdString(), "x: 2\n");
    QCOMPARE(contentOf(path), QByteArray("x: 2\n"));
    QCOMPARE(modeOf(path), mode_t(0640)); // a replaced file keeps its permissions
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"best_params.yaml"}); // no temporary
    // A folder that does not exist: named, nothing left behind.
    const QString missing = dir.filePath("no/such/best.yaml");
    QCOMPARE(messageOf<RuntimeError>([&] { writeFileAtomically(missing.toStdString(), "x"); }),
             "cannot write " + missing + ": No such file or directory");
    QCOMPARE(messageOf<RuntimeError>([&] { writeFileAtomically(dir.path().toStdString(), "x"); }),
             "cannot write " + dir.path() + ": it is a directory");
}

// `--out /dev/stdout` is written into, never replaced by a file (rename would replace the device's link in /dev).
void TestFileIo::atomicWriteIntoADevice()
{
    writeFileAtomically("/dev/null", "nothing\n");
    struct stat info {};
    QCOMPARE(::stat("/dev/null", &info), 0);
    QVERIFY(S_ISCHR(info.st_mode));
}

// /dev/full fails every write with ENOSPC, as a full file system does.
void TestFileIo::fullDiskIsAnError()
{
    QCOMPARE(messageOf<RuntimeError>([] { writeFileAtomically("/dev/full", "x: 1\n"); }),
             QString("cannot write /dev/full: No space left on device"));
    QCOMPARE(messageOf<RuntimeError>([] {
                 OutputFile log("/dev/full", WriteMode::Append);
                 log.write("[pitwall] trial 0 started\n");
             }),
             QString("cannot write /dev/full: No space left on device"));
}

void TestFileIo::logsArePrivateAndNeverFollowLinks()
{
    QTemporaryDir dir;
    const QString log = dir.filePath("trial.log");
    {
        OutputFile file(log.toStdString(), WriteMode::Append);
        file.write("hello\n");
        file.close();
    }
    QCOMPARE(modeOf(log), mode_t(0600));
    const QString target = dir.filePath("victim");
    QVERIFY(QFile(target).open(QIODevice::WriteOnly));
    const QString link = dir.filePath("job-1.log");
    QVERIFY(QFile::link(target, link));
    QCOMPARE(messageOf<RuntimeError>([&] { ::close(openLogFile(link.toStdString(), WriteMode::Append)); }),
             link + " is a symbolic link; Pitwall does not follow a link where it writes a log or an output file "
                    "(remove the link)");
    QCOMPARE(contentOf(target), QByteArray());
}

void TestFileIo::childOutputFilesNeverFollowLinks()
{
    QTemporaryDir dir;
    ProcessOptions options;
    options.stdoutFile = options.stderrFile = dir.filePath("worker_0.log").toStdString();
    options.appendOutput = true;
    ChildProcess child = ChildProcess::start({"/bin/sh", "-c", "echo out; echo err >&2"}, options);
    QCOMPARE(child.wait().code, 0);
    QCOMPARE(contentOf(dir.filePath("worker_0.log")), QByteArray("out\nerr\n"));
    QCOMPARE(modeOf(dir.filePath("worker_0.log")), mode_t(0600)); // was 0644: a job's log is readable by nobody else

    const QString target = dir.filePath("victim");
    QVERIFY(QFile(target).open(QIODevice::WriteOnly));
    const QString link = dir.filePath("job-1.log");
    QVERIFY(QFile::link(target, link));
    options.stdoutFile = options.stderrFile = link.toStdString();
    const QString message = messageOf<RuntimeError>([&] {
        ChildProcess::start({"/bin/sh", "-c", "echo leaked"}, options).wait();
    });
    QVERIFY2(message.startsWith(link + " is a symbolic link"), qPrintable(message));
    QCOMPARE(contentOf(target), QByteArray());
}

// `pitwall config schema > /dev/full` printed nothing and exited 0.
void TestFileIo::cliFailsWhenItsOutputIsLost()
{
    QProcess cli;
    cli.setStandardOutputFile("/dev/full");
    cli.start(QString::fromStdString(test::environmentPath("PITWALL_CLI")), {"config", "schema"});
    QVERIFY(cli.waitForFinished(60000));
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QCOMPARE(cli.exitCode(), 1);
    // The reason is named when the last flush failed; a write that failed earlier left only stdio's error flag.
    QVERIFY2(err.contains("pitwall config schema: cannot write its output to standard output"), qPrintable(err));
}

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_fileio.moc"
