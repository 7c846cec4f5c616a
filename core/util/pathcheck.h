#pragma once
// Whether a path that a long command will write can be written, checked without creating anything: what the
// `--check` of a benchmark (and its real start, before any work) looks at for its output folders, plot and
// results file.

#include <string>

namespace pitwall {

enum class PathKind { File, Folder };

// Passes when `path` exists as `kind` and may be written, or does not exist and its nearest existing ancestor
// is a folder this process may create entries in. InputError "<what> 'PATH': <why>" otherwise (the path is a
// folder where a file is wanted or the other way round, an ancestor is a file, or a folder is not writable).
void checkCanCreate(const std::string& path, PathKind kind, const std::string& what);

} // namespace pitwall
