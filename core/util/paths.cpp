#include "core/util/paths.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pitwall {

namespace fs = std::filesystem;

fs::path executablePath()
{
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self;
}

fs::path exampleConfigsDir()
{
    const fs::path exe = executablePath();
    if (exe.empty())
        return {};
    const fs::path dir = exe.parent_path().parent_path() / "share" / "pitwall" / "configs";
    std::error_code ec;
    return fs::is_directory(dir, ec) ? fs::weakly_canonical(dir, ec) : fs::path();
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

std::string byteSizeText(std::size_t bytes)
{
    constexpr std::size_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
    if (bytes >= kGiB && bytes % kGiB == 0)
        return std::to_string(bytes / kGiB) + " GiB";
    if (bytes >= kMiB && bytes % kMiB == 0)
        return std::to_string(bytes / kMiB) + " MiB";
    if (bytes >= kKiB && bytes % kKiB == 0)
        return std::to_string(bytes / kKiB) + " KiB";
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

namespace {

[[noreturn]] void throwTooLarge(const fs::path& file, std::size_t maxBytes, const std::string& size)
{
    throw InputError(SourceLocation{file.string()}, "is larger than " + byteSizeText(maxBytes) + " (" + size +
                                                        "), the most Pitwall reads from one input file of this kind");
}

// What kind of file a stat mode names, for the refusal of anything but a regular file.
std::string fileKindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a directory, not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a regular file (Pitwall reads input only from regular files)";
    if (S_ISFIFO(mode))
        return "is a pipe, not a regular file (Pitwall reads input only from regular files)";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file (Pitwall reads input only from regular files)";
    return "is not a regular file (Pitwall reads input only from regular files)";
}

} // namespace

std::string readTextFile(const fs::path& file, std::size_t maxBytes)
{
    // O_NONBLOCK: opening a pipe nobody writes to returns at once (and is refused below) instead of waiting.
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const std::string reason = std::strerror(errno);
        throw InputError(SourceLocation{file.string()}, "cannot read file: " + reason);
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const std::string reason = std::strerror(errno);
        throw InputError(SourceLocation{file.string()}, "cannot read file: " + reason);
    }
    if (!S_ISREG(info.st_mode))
        throw InputError(SourceLocation{file.string()}, fileKindOf(info.st_mode));
    if (static_cast<std::uintmax_t>(info.st_size) > maxBytes)
        throwTooLarge(file, maxBytes, std::to_string(info.st_size) + " bytes");
    std::string text;
    text.resize(std::min<std::size_t>(static_cast<std::size_t>(info.st_size), maxBytes) + 1);
    std::size_t used = 0;
    for (;;) {
        if (used == text.size()) {
            if (used > maxBytes) // the file grew past the limit while it was read
                throwTooLarge(file, maxBytes, "more than that while it was read");
            text.resize(std::min(maxBytes + 1, std::max<std::size_t>(2 * used, 4096)));
        }
        const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const std::string reason = std::strerror(errno);
            throw InputError(SourceLocation{file.string()}, "cannot read file: " + reason);
        }
        if (n == 0)
            break;
        used += static_cast<std::size_t>(n);
    }
    if (used > maxBytes)
        throwTooLarge(file, maxBytes, "more than that while it was read");
    text.resize(used);
    return text;
}

std::string absolutePath(const std::string& path)
{
    return std::filesystem::absolute(path).lexically_normal().string();
}

std::string userStateFolder()
{
    std::filesystem::path base;
    if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/')
        base = state;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".local" / "state";
    else
        base = "/tmp";
    return (base / "pitwall").string();
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
