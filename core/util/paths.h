#pragma once
// Where Pitwall finds its files at run time.

#include <filesystem>
#include <string>
#include <vector>

namespace pitwall {

// Absolute path of the running executable.
std::filesystem::path executablePath();

// Folders searched for plugins and their schema files, in order: $PITWALL_PLUGIN_PATH (':'-separated),
// then <exe>/../lib/pitwall/plugins (build tree and install tree). Missing folders are left out.
std::vector<std::filesystem::path> pluginSearchPath();

// The results database a command uses when --db is not given: $PITWALL_DB, else ./pitwall.db.
std::string defaultDatabasePath();

// `path` made absolute against the working directory, with "." and ".." resolved lexically.
std::string absolutePath(const std::string& path);

// Reads a whole file; throws InputError naming the file when it cannot be read.
std::string readTextFile(const std::filesystem::path& file);

} // namespace pitwall
