#pragma once
// Recording which job produced a study or a run, inside the transaction that creates it.

#include <string>

namespace pitwall::store_internal {

class Connection;
class PqConnection;

// When this process works for a job ($PITWALL_JOB_ID) and the schema has the jobs tables (`schemaVersion`
// >= 3), links `kind`/`ref` to it on `db`, in the caller's transaction. Nothing otherwise.
void linkCurrentJob(Connection& db, int schemaVersion, const std::string& kind, const std::string& ref);
// The same on a PostgreSQL database (whose Pitwall tables always include the jobs tables).
void linkCurrentJob(PqConnection& db, const std::string& kind, const std::string& ref);

} // namespace pitwall::store_internal
