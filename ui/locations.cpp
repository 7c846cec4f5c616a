#include "ui/locations.h"

#include "core/store/pglocation.h"

#include <QFileInfo>
#include <QUrl>

namespace pitwall::ui {

bool isServerLocation(const QString& location)
{
    return isPostgresLocation(location.toStdString());
}

QString normalLocation(const QString& location)
{
    if (!isServerLocation(location))
        return QFileInfo(location).absoluteFilePath();
    return QString::fromStdString(movePasswordToEnvironment(location.trimmed().toStdString()));
}

QString shownLocation(const QString& location)
{
    return isServerLocation(location) ? QString::fromStdString(redactedLocation(location.toStdString())) : location;
}

QString locationName(const QString& location)
{
    if (!isServerLocation(location))
        return QFileInfo(location).fileName();
    const QUrl url(location);
    const QString database = url.path().mid(1);
    const QString host = url.host().isEmpty() ? QStringLiteral("localhost") : url.host();
    return QObject::tr("%1 on %2").arg(database.isEmpty() ? QStringLiteral("?") : database, host);
}

QString rememberedLocation(const QString& location)
{
    if (!isServerLocation(location))
        return location;
    QUrl url(location);
    if (!url.isValid() || url.password().isEmpty())
        return location;
    url.setPassword(QString());
    return url.toString();
}

QString locationFolder(const QString& location)
{
    return location.isEmpty() || isServerLocation(location) ? QString() : QFileInfo(location).absolutePath();
}

} // namespace pitwall::ui
