#include "core/store/pglocation.h"

#include "core/util/error.h"
#include "core/util/strings.h"

namespace pitwall {

namespace {

// The scheme before "://", lower-cased; empty when there is none.
std::string schemeOf(const std::string& location)
{
    const auto end = location.find("://");
    return end == std::string::npos ? std::string() : toLower(location.substr(0, end));
}

} // namespace

bool isPostgresLocation(const std::string& location)
{
    const std::string scheme = schemeOf(location);
    return scheme == "postgresql" || scheme == "postgres" || startsWith(scheme, "postgresql+");
}

std::string postgresConninfo(const std::string& location)
{
    const std::string scheme = schemeOf(location);
    if (!isPostgresLocation(location))
        throw InputError(redactedLocation(location) + ": not a PostgreSQL location (postgresql://user@host/dbname)");
    if (startsWith(scheme, "postgresql+") && scheme != "postgresql+psycopg2" && scheme != "postgresql+psycopg")
        throw InputError(redactedLocation(location) + ": unknown driver '" + scheme.substr(11) +
                         "' (Pitwall speaks to PostgreSQL through libpq; write postgresql:// or "
                         "postgresql+psycopg2://)");
    const std::string rest = location.substr(location.find("://") + 3);
    const auto slash = rest.find('/');
    const std::string database = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    if (database.empty() || database.front() == '?')
        throw InputError(redactedLocation(location) +
                         ": names no database; write postgresql://user@host[:port]/DBNAME");
    return "postgresql://" + rest;
}

std::string redactedLocation(const std::string& location)
{
    const auto schemeEnd = location.find("://");
    if (schemeEnd == std::string::npos)
        return location;
    const std::size_t start = schemeEnd + 3;
    const std::size_t hostEnd = location.find_first_of("/?", start);
    const std::size_t at = location.rfind('@', hostEnd == std::string::npos ? std::string::npos : hostEnd);
    if (at == std::string::npos || at < start)
        return location;
    const std::size_t colon = location.find(':', start);
    if (colon == std::string::npos || colon > at)
        return location;
    return location.substr(0, colon + 1) + "***" + location.substr(at);
}

} // namespace pitwall
