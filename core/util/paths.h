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

// The relative folder a study (or experiment) name becomes under an output folder. Names are data, never paths:
// each '/'-separated part keeps [A-Za-z0-9._-] and has any other byte replaced by '_'; empty parts are dropped,
// and a part that is only dots ("." or "..") becomes underscores, so the result never leaves the output folder
// (no root, no ".."). Parts stay nested ("study/final-default" is a sub-folder). When the mapping changed
// anything, "-" and 8 hex digits of a hash of the whole name are appended, so "a b" and "a_b" do not share a
// folder. Parts are cut to 100 bytes (then hashed) to stay within file-name limits.
std::filesystem::path studyFolder(const std::string& name);

// Reads a whole file; throws InputError naming the file when it cannot be read or is a directory.
std::string readTextFile(const std::filesystem::path& file);

} // namespace pitwall
