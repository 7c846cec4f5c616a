#pragma once
// Results databases as the window names them: a file path, or a PostgreSQL location (core/store/pglocation.h).
// A password in a location reaches the store and nothing else: titles, status texts and the recent list never
// show or keep it (libpq finds it again in ~/.pgpass or PGPASSWORD).

#include <QString>

namespace pitwall::ui {

bool isServerLocation(const QString& location);
// What the window keeps and compares: a file's absolute path; a PostgreSQL location as given, less its password,
// which goes to this process's PGPASSWORD (movePasswordToEnvironment): libpq reads it there, and the commands the
// window starts inherit it instead of carrying it in their command lines and job records.
QString normalLocation(const QString& location);
// What the window shows in full: a file's path; a PostgreSQL location with "***" for its password.
QString shownLocation(const QString& location);
// A short name for titles and labels: the file's name; "DBNAME on HOST" for a PostgreSQL database.
QString locationName(const QString& location);
// What the recent list keeps: a file's path; a PostgreSQL location without its password.
QString rememberedLocation(const QString& location);
// A folder to start a file dialog in: the file's folder; empty for a server location.
QString locationFolder(const QString& location);

} // namespace pitwall::ui
