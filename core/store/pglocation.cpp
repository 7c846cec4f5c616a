#include "core/store/pglocation.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

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

namespace {

// Where the password of a URL's user part is: [colon + 1, at); nullopt when it has none.
std::optional<std::pair<std::size_t, std::size_t>> passwordSpan(const std::string& location)
{
    const auto schemeEnd = location.find("://");
    if (schemeEnd == std::string::npos)
        return std::nullopt;
    const std::size_t start = schemeEnd + 3;
    const std::size_t hostEnd = location.find_first_of("/?", start);
    const std::size_t at = location.rfind('@', hostEnd == std::string::npos ? std::string::npos : hostEnd);
    if (at == std::string::npos || at < start)
        return std::nullopt;
    const std::size_t colon = location.find(':', start);
    if (colon == std::string::npos || colon > at)
        return std::nullopt;
    return std::make_pair(colon + 1, at);
}

std::string percentDecoded(const std::string& text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

} // namespace

std::string locationWithoutPassword(const std::string& location)
{
    const auto span = passwordSpan(location);
    return span ? location.substr(0, span->first - 1) + location.substr(span->second) : location;
}

std::string movePasswordToEnvironment(const std::string& location)
{
    const auto span = passwordSpan(location);
    if (!span || !isPostgresLocation(location))
        return location;
    ::setenv("PGPASSWORD", percentDecoded(location.substr(span->first, span->second - span->first)).c_str(), 1);
    return locationWithoutPassword(location);
}

void moveDatabasePasswordsToEnvironment(std::vector<std::string>& words)
{
    for (std::size_t i = 1; i < words.size(); ++i) {
        if (words[i] == "--db" && i + 1 < words.size())
            words[i + 1] = movePasswordToEnvironment(words[i + 1]);
        else if (startsWith(words[i], "--db="))
            words[i] = "--db=" + movePasswordToEnvironment(words[i].substr(5));
    }
    if (const char* db = std::getenv("PITWALL_DB"))
        ::setenv("PITWALL_DB", movePasswordToEnvironment(db).c_str(), 1);
}

std::string redactedLocation(const std::string& location)
{
    const auto span = passwordSpan(location);
    return span ? location.substr(0, span->first) + "***" + location.substr(span->second) : location;
}

} // namespace pitwall
