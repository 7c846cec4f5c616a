#pragma once
// Locations of PostgreSQL results databases, in the forms Optuna users write:
// postgresql://user[:password]@host[:port]/dbname, postgres://…, and SQLAlchemy's postgresql+psycopg2://….
// libpq reads the rest: its query parameters (?sslmode=require), its environment (PGHOST, PGPASSWORD, PGSSLMODE, …) and files (PGPASSFILE, service files).
// A password in a location is never shown: every message, log and record uses redactedLocation().

#include <string>
#include <vector>

namespace pitwall {

// Whether `location` names a PostgreSQL database (by its scheme, in any letter case).
bool isPostgresLocation(const std::string& location);

// The connection URI libpq takes for a PostgreSQL location (the SQLAlchemy driver suffix dropped). InputError for a
// location that is not one, or that names no database.
std::string postgresConninfo(const std::string& location);

// `location` with the password of a URL's user part and the values of its password= and sslpassword= query
// parameters replaced by "***"; any other location unchanged.
std::string redactedLocation(const std::string& location);

// `location` without the password of its user part and without its password= query parameter (an sslpassword=
// stays: libpq has no other place to read it from); any other location unchanged.
std::string locationWithoutPassword(const std::string& location);

// When a PostgreSQL `location` holds a password (in its user part or as ?password=, the latter winning, as in libpq):
// puts it (percent-decoded) into this process's PGPASSWORD, where libpq
// reads it and the processes this one starts inherit it, and returns the location without it. So that no argv (ps),
// job record or log of this process or its workers carries the password. Any other location comes back unchanged.
std::string movePasswordToEnvironment(const std::string& location);

// movePasswordToEnvironment for a command line's --db value (`--db X` or `--db=X`, changed in place in `words`) and
// for $PITWALL_DB: what the CLI does first.
void moveDatabasePasswordsToEnvironment(std::vector<std::string>& words);

} // namespace pitwall
