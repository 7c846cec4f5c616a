#include "core/store/store.h"

#include "core/store/internal/sqlite.h"
#include "core/store/pglocation.h"
#include "core/store/pgstore.h"
#include "core/store/sqlitestore.h"
#include "core/store/storefile.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

namespace pitwall {

StudyRecord Store::requireStudy(const std::string& name)
{
    if (auto study = findStudy(name))
        return std::move(*study);
    std::vector<std::string> known;
    for (const auto& summary : listStudies())
        known.push_back(summary.study.name);
    const std::string where = location().empty() ? std::string() : " in " + location();
    std::string message = "no study named '" + name + "'" + where;
    if (known.empty()) {
        message += " (it has no studies yet)";
    } else {
        message += " (known studies: " + join(known, ", ") + ")";
        const auto nearest = nearestNames(name, known);
        if (!nearest.empty())
            message += "; did you mean '" + nearest.front() + "'?";
    }
    throw InputError(message);
}

std::string sqliteFilePath(const std::string& location)
{
    if (location.empty())
        throw InputError("no results database given (a file path or sqlite:///path)");
    if (isPostgresLocation(location))
        throw InputError(redactedLocation(location) +
                         ": a PostgreSQL database, where this needs an SQLite results file");
    std::string path = location;
    const auto schemeEnd = location.find("://");
    if (schemeEnd != std::string::npos) {
        const std::string scheme = toLower(location.substr(0, schemeEnd));
        if (scheme != "sqlite")
            throw InputError(location + ": the '" + scheme +
                             "' backend is not built into this Pitwall (available: a file path, sqlite:///path, or "
                             "postgresql://user@host/dbname)");
        // Optuna's form: sqlite:///relative/path or sqlite:////absolute/path.
        path = location.substr(schemeEnd + 3);
        if (!startsWith(path, "/"))
            throw InputError(location + ": an SQLite URL is sqlite:///relative/path or sqlite:////absolute/path");
        path = path.substr(1);
        if (path.empty())
            throw InputError(location + ": the SQLite URL names no file (in-memory databases are not supported)");
    }
    // SQLite reads these names as an in-memory database or a URI (file:NAME?mode=memory, ...): a study created
    // there is gone when the command ends, and Pitwall needs the real file for its checks and job logs.
    if (path == ":memory:")
        throw InputError(location + ": an in-memory database stores nothing beyond this command; give the results "
                                    "database's file path (or sqlite:///path)");
    if (startsWith(path, "file:"))
        throw InputError(location + ": SQLite URIs (file:...) are not accepted as a results database: some store "
                                    "nothing (mode=memory) and Pitwall needs the file itself; give its file path "
                                    "(./file:NAME for a file whose name begins with 'file:')");
    return path;
}

std::string heldStoreFile(const std::string& location)
{
    if (isPostgresLocation(location))
        return {}; // a server, not a file
    const std::string key = store_internal::heldFileKey(sqliteFilePath(location));
    const auto file = store_internal::expectedFile(key);
    return file ? std::to_string(file->device) + ":" + std::to_string(file->inode) + ":" + key : std::string();
}

double Store::now()
{
    return nowSeconds();
}

bool storeExists(const std::string& location)
{
    if (isPostgresLocation(location))
        return pgDatabaseHasTables(location);
    std::error_code error;
    return std::filesystem::exists(sqliteFilePath(location), error);
}

std::string absoluteLocation(const std::string& location)
{
    if (isPostgresLocation(location))
        return location;
    return std::filesystem::absolute(sqliteFilePath(location)).lexically_normal().string();
}

std::unique_ptr<Store> openStore(const std::string& location, OpenMode mode)
{
    if (isPostgresLocation(location))
        return std::make_unique<PgStore>(location, mode);
    return std::make_unique<SqliteStore>(sqliteFilePath(location), mode);
}

} // namespace pitwall
