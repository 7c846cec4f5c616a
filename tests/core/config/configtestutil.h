#pragma once
// Helpers for the config tests: write small YAML files into a temporary folder.

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <string>

inline std::string writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(text);
    return path.toStdString();
}
