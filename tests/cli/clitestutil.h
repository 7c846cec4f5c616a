#pragma once
// Runs the real `pitwall` executable and captures what it printed and its exit status.

#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "tests/support/testpaths.h"

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

inline CliResult runCli(const QStringList& args, const QString& workingDir = QString(),
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    if (!workingDir.isEmpty())
        process.setWorkingDirectory(workingDir);
    process.start(pitwall::test::cliPath(), args);
    process.waitForFinished(120000);
    CliResult result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// Writes `text` to `path` (a test's input file, such as a search space); false when it cannot.
inline bool writeTestFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

// The cells of one Markdown table line as the CLI prints it, "| a | b |" -> {"a", "b"}.
inline QStringList markdownCells(const QString& line)
{
    QStringList cells = line.split('|');
    if (cells.size() < 2)
        return {};
    cells.removeFirst();
    cells.removeLast();
    for (QString& cell : cells)
        cell = cell.trimmed();
    return cells;
}
