#include "core/store/optunaschema.h"

#include "core/util/error.h"
#include "core/util/printable.h"

#include <cstdlib>

namespace pitwall {

std::optional<OptunaSchema> parseOptunaSchema(const std::string& text)
{
    if (text == "3.1")
        return OptunaSchema::V3_1;
    if (text == "3.2")
        return OptunaSchema::V3_2;
    return std::nullopt;
}

std::string optunaSchemaName(OptunaSchema schema) { return schema == OptunaSchema::V3_1 ? "3.1" : "3.2"; }

std::string optunaAlembicRevision(OptunaSchema schema)
{
    return schema == OptunaSchema::V3_1 ? "v3.0.0.d" : "v3.2.0.a";
}

std::optional<OptunaSchema> optunaSchemaOfRevision(const std::string& revision)
{
    if (revision == "v3.0.0.d")
        return OptunaSchema::V3_1;
    if (revision == "v3.2.0.a")
        return OptunaSchema::V3_2;
    return std::nullopt;
}

OptunaSchema optunaSchemaForNewFiles()
{
    const char* text = std::getenv("PITWALL_OPTUNA_SCHEMA");
    if (!text || !*text)
        return OptunaSchema::V3_2;
    if (auto schema = parseOptunaSchema(text))
        return *schema;
    throw InputError("PITWALL_OPTUNA_SCHEMA='" + printable(text) +
                     "': give 3.1 (the tables of Optuna 3.1, Debian 12's) or 3.2 (those of every Optuna since 3.2, "
                     "the default)");
}

} // namespace pitwall
