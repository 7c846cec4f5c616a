#pragma once
// The revisions of Optuna's tables that Pitwall writes. Optuna keeps its schema under alembic; a file whose revision
// is not the running Optuna's head is refused until `optuna storage upgrade`, and an Optuna never opens a revision it
// does not know. Two revisions matter:
//   3.1  alembic v3.0.0.d: Optuna 3.1's head, Debian 12's python3-optuna
//   3.2  alembic v3.2.0.a: an index on trials.study_id; the head of every Optuna since 3.2 (5.1 included)
// New files get 3.2, so the newest Optuna opens them as they are; $PITWALL_OPTUNA_SCHEMA=3.1 gives new files 3.1's
// tables for Debian's Optuna, and `pitwall db migrate --optuna-schema 3.1|3.2` converts a file either way. Pitwall
// reads and writes both.

#include <optional>
#include <string>

namespace pitwall {

enum class OptunaSchema { V3_1, V3_2 };

// "3.1" / "3.2"; nullopt for any other text.
std::optional<OptunaSchema> parseOptunaSchema(const std::string& text);
std::string optunaSchemaName(OptunaSchema schema);
// The alembic revision of each ("v3.0.0.d", "v3.2.0.a").
std::string optunaAlembicRevision(OptunaSchema schema);
// The revision's schema from the file's alembic revision; nullopt for another (a newer Optuna's).
std::optional<OptunaSchema> optunaSchemaOfRevision(const std::string& revision);

// The revision new results files get: $PITWALL_OPTUNA_SCHEMA when set, else 3.2. InputError naming the variable and
// the accepted values for any other text.
OptunaSchema optunaSchemaForNewFiles();

} // namespace pitwall
