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

// The query parameters whose values are secrets: libpq's password and the pass phrase of the client key.
bool isSecretParameter(const std::string& name)
{
    const std::string key = toLower(name);
    return key == "password" || key == "sslpassword";
}

// One query parameter: [begin, end) is "name=value" and valueBegin where its value starts (end when it has no '=').
struct QueryParameter {
    std::size_t begin = 0, valueBegin = 0, end = 0;
    std::string name;
};

// The query parameters of a URL location, in order (none when it has no '?').
std::vector<QueryParameter> queryParameters(const std::string& location)
{
    std::vector<QueryParameter> out;
    const auto schemeEnd = location.find("://");
    const std::size_t question = location.find('?', schemeEnd == std::string::npos ? 0 : schemeEnd + 3);
    if (schemeEnd == std::string::npos || question == std::string::npos)
        return out;
    for (std::size_t begin = question + 1; begin <= location.size();) {
        const std::size_t amp = location.find('&', begin);
        const std::size_t end = amp == std::string::npos ? location.size() : amp;
        const std::size_t eq = location.find('=', begin);
        QueryParameter parameter;
        parameter.begin = begin;
        parameter.end = end;
        parameter.valueBegin = eq < end ? eq + 1 : end;
        parameter.name = location.substr(begin, (eq < end ? eq : end) - begin);
        if (end > begin)
            out.push_back(parameter);
        begin = end + 1;
    }
    return out;
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
    // The query's secrets first (they come after the user part, so its offsets stay valid).
    std::string out = location;
    const std::vector<QueryParameter> parameters = queryParameters(location);
    for (auto it = parameters.rbegin(); it != parameters.rend(); ++it) {
        if (toLower(it->name) != "password") // sslpassword has no environment variable to move to: it stays
            continue;
        // Drop "name=value" with the '&' before it, or with the one after it when it is the first parameter.
        std::size_t begin = it->begin, end = it->end;
        if (out[begin - 1] == '&')
            --begin;
        else if (end < out.size() && out[end] == '&')
            ++end;
        out.erase(begin, end - begin);
    }
    if (!out.empty() && out.back() == '?')
        out.pop_back();
    const auto span = passwordSpan(out);
    return span ? out.substr(0, span->first - 1) + out.substr(span->second) : out;
}

std::string movePasswordToEnvironment(const std::string& location)
{
    if (!isPostgresLocation(location))
        return location;
    // libpq reads the query's password after the user part's, so that one wins when both are given.
    std::optional<std::string> password;
    if (const auto span = passwordSpan(location))
        password = location.substr(span->first, span->second - span->first);
    for (const QueryParameter& parameter : queryParameters(location))
        if (toLower(parameter.name) == "password")
            password = location.substr(parameter.valueBegin, parameter.end - parameter.valueBegin);
    if (!password)
        return location;
    ::setenv("PGPASSWORD", percentDecoded(*password).c_str(), 1);
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
    std::string out = location;
    const std::vector<QueryParameter> parameters = queryParameters(location);
    for (auto it = parameters.rbegin(); it != parameters.rend(); ++it)
        if (isSecretParameter(it->name) && it->valueBegin < it->end)
            out.replace(it->valueBegin, it->end - it->valueBegin, "***");
    const auto span = passwordSpan(out);
    return span ? out.substr(0, span->first) + "***" + out.substr(span->second) : out;
}

} // namespace pitwall
