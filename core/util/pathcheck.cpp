#include "core/util/pathcheck.h"

#include "core/util/error.h"

#include <filesystem>
#include <unistd.h>

namespace pitwall {

namespace fs = std::filesystem;

void checkCanCreate(const std::string& path, PathKind kind, const std::string& what)
{
    const auto refuse = [&](const std::string& why) { throw InputError(what + " '" + path + "': " + why); };
    if (path.empty())
        refuse("no path given");
    std::error_code error;
    const fs::path target = fs::absolute(path, error).lexically_normal();
    const fs::file_status status = fs::status(target, error);
    if (fs::exists(status)) {
        if (kind == PathKind::Folder && !fs::is_directory(status))
            refuse("is a file, not a folder");
        if (kind == PathKind::File && fs::is_directory(status))
            refuse("is a folder, not a file");
        if (::access(target.c_str(), kind == PathKind::Folder ? W_OK | X_OK : W_OK) != 0)
            refuse("is not writable");
        return;
    }
    // The first ancestor that exists is where the missing folders (and the file) would be created.
    fs::path ancestor = target.parent_path();
    while (!ancestor.empty() && !fs::exists(ancestor, error) && ancestor != ancestor.parent_path())
        ancestor = ancestor.parent_path();
    if (!fs::is_directory(ancestor, error))
        refuse("cannot be created: '" + ancestor.string() + "' is not a folder");
    if (::access(ancestor.c_str(), W_OK | X_OK) != 0)
        refuse("cannot be created: the folder '" + ancestor.string() + "' is not writable");
}

} // namespace pitwall
