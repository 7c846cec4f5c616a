#include "core/util/paths.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace pitwall {

namespace fs = std::filesystem;

fs::path executablePath()
{
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self;
}

std::vector<fs::path> pluginSearchPath()
{
    std::vector<fs::path> folders;
    if (const char* env = std::getenv("PITWALL_PLUGIN_PATH")) {
        for (const std::string& part : split(env, ':'))
            if (!part.empty())
                folders.emplace_back(part);
    }
    const fs::path exe = executablePath();
    if (!exe.empty())
        folders.push_back(exe.parent_path().parent_path() / "lib" / "pitwall" / "plugins");
    std::vector<fs::path> existing;
    for (const fs::path& folder : folders) {
        std::error_code ec;
        if (fs::is_directory(folder, ec)) {
            const fs::path canonical = fs::weakly_canonical(folder, ec);
            if (std::find(existing.begin(), existing.end(), canonical) == existing.end())
                existing.push_back(canonical);
        }
    }
    return existing;
}

std::string defaultDatabasePath()
{
    if (const char* env = std::getenv("PITWALL_DB"); env && *env)
        return env;
    return "pitwall.db";
}

std::string readTextFile(const fs::path& file)
{
    std::error_code ec;
    if (fs::is_directory(file, ec)) // a directory opens as a stream and reads as empty text
        throw InputError(SourceLocation{file.string()}, "is a directory, not a file");
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        const std::string reason = std::strerror(errno);
        throw InputError(SourceLocation{file.string()}, "cannot read file: " + reason);
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string absolutePath(const std::string& path)
{
    return std::filesystem::absolute(path).lexically_normal().string();
}

namespace {

constexpr std::size_t kMaxFolderPartBytes = 100;

std::string nameHash(const std::string& name)
{
    std::uint32_t hash = 2166136261u; // FNV-1a, 32 bits: stable across builds and platforms
    for (unsigned char c : name) {
        hash ^= c;
        hash *= 16777619u;
    }
    char text[9];
    std::snprintf(text, sizeof text, "%08x", hash);
    return text;
}

bool safeFolderByte(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

} // namespace

fs::path studyFolder(const std::string& name)
{
    std::vector<std::string> parts;
    bool changed = false;
    for (const std::string& raw : split(name, '/')) {
        if (raw.empty()) {
            changed = true; // a leading, trailing or doubled '/'
            continue;
        }
        std::string part = raw;
        for (char& c : part)
            if (!safeFolderByte(c))
                c = '_';
        if (part.find_first_not_of('.') == std::string::npos)
            part.assign(part.size(), '_'); // "." and ".." are not names
        if (part.size() > kMaxFolderPartBytes)
            part.resize(kMaxFolderPartBytes);
        changed = changed || part != raw;
        parts.push_back(part);
    }
    if (parts.empty()) {
        parts.push_back("_");
        changed = true;
    }
    if (changed)
        parts.back() += "-" + nameHash(name);
    fs::path out;
    for (const std::string& part : parts)
        out /= part;
    return out;
}

} // namespace pitwall
