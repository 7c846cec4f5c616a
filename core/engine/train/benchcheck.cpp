#include "core/engine/train/benchcheck.h"

#include "core/store/pglocation.h"
#include "core/store/store.h"

#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/pathcheck.h"

#include <filesystem>

namespace pitwall::engine {

void checkTrainingPaths(const ResolvedConfig& config, const std::string& storeLocation)
{
    const std::string root = config.getString("data.root");
    std::error_code error;
    if (!root.empty() && !std::filesystem::is_directory(root, error))
        throw InputError("data.root '" + root + "' is not a folder");
    checkCanCreate(config.getString("experiment.output_dir"), PathKind::Folder, "experiment.output_dir");
    if (!isPostgresLocation(storeLocation)) // a server checks its own rights when it is reached
        checkCanCreate(sqliteFilePath(storeLocation), PathKind::File, "results database");
}

} // namespace pitwall::engine
