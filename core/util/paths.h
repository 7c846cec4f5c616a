#pragma once
// Where Pitwall finds its files at run time.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace pitwall {

// Absolute path of the running executable.
std::filesystem::path executablePath();

// Folders searched for plugins and their schema files, in order: $PITWALL_PLUGIN_PATH (':'-separated),
// then <exe>/../lib/pitwall/plugins (build tree and install tree). Missing folders are left out.
std::vector<std::filesystem::path> pluginSearchPath();

// The example configs (configs/transfuser/demo.yaml, ...): <exe>/../share/pitwall/configs, where the package puts
// them and where the build tree links to the checkout's configs/. Empty when not there.
std::filesystem::path exampleConfigsDir();

// The results database a command uses when --db is not given: $PITWALL_DB, else ./pitwall.db.
std::string defaultDatabasePath();

// `path` made absolute against the working directory, with "." and ".." resolved lexically.
std::string absolutePath(const std::string& path);

// This user's folder for Pitwall's own state: $XDG_STATE_HOME/pitwall, else ~/.local/state/pitwall (/tmp/pitwall
// without a home). Not created here.
std::string userStateFolder();

// The relative folder a study (or experiment) name becomes under an output folder. Names are data, never paths:
// each '/'-separated part keeps [A-Za-z0-9._-] and has any other byte replaced by '_'; empty parts are dropped,
// and a part that is only dots ("." or "..") becomes underscores, so the result never leaves the output folder
// (no root, no ".."). Parts stay nested ("study/final-default" is a sub-folder). When the mapping changed
// anything, "-" and 8 hex digits of a hash of the whole name are appended, so "a b" and "a_b" do not share a
// folder. Parts are cut to 100 bytes (then hashed) to stay within file-name limits.
std::filesystem::path studyFolder(const std::string& name);

// The most readTextFile reads from one file unless told otherwise: far beyond any config, search space, schema or
// variants file a person writes, and small enough that a wrong path costs no memory worth noticing.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t(16) << 20; // 16 MiB

// Reads a whole file given from outside. Only a regular file is read: a directory, a device (/dev/zero), a pipe
// or a socket is refused without reading (a pipe is opened without waiting for a writer). InputError naming the
// file when it cannot be read, is not a regular file, or holds more than `maxBytes` (the message names the
// limit); at most `maxBytes` + 1 bytes are read, also from a file that grows while it is read.
std::string readTextFile(const std::filesystem::path& file, std::size_t maxBytes = kMaxInputFileBytes);

// "16 MiB", "512 KiB", "300 bytes": a byte limit as messages name it.
std::string byteSizeText(std::size_t bytes);

} // namespace pitwall
