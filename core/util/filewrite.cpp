#include "core/util/filewrite.h"

#include "core/util/error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace pitwall {

namespace fs = std::filesystem;

namespace {

std::string reasonOf(int error)
{
    return std::strerror(error);
}

[[noreturn]] void cannotWrite(const fs::path& path, int error)
{
    throw RuntimeError("cannot write " + path.string() + ": " + reasonOf(error));
}

// Closes `fd`; false with errno set when the close reported an error (a failed write-back).
bool closeChecked(int fd)
{
    if (::close(fd) == 0)
        return true;
    return errno == EINTR; // Linux closes the descriptor even then; nothing more is known
}

// Flushes the folder's entry for a renamed file; a file system without fsync on folders is not an error.
void syncFolder(const fs::path& folder)
{
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);
    ::close(fd);
}

// Opens `path` for writing; the errno of a failure is returned through `error`.
int openForWriting(const fs::path& path, int flags, mode_t mode)
{
    int fd;
    do
        fd = ::open(path.c_str(), flags | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

// Whether `path` is a symbolic link (what O_NOFOLLOW's ELOOP means, or a link to a folder).
bool isSymlink(const fs::path& path)
{
    std::error_code ec;
    return fs::is_symlink(fs::symlink_status(path, ec));
}

[[noreturn]] void cannotOpen(const fs::path& path, int error)
{
    if ((error == ELOOP || error == EMLINK) && isSymlink(path))
        throw RuntimeError(path.string() + " is a symbolic link; Pitwall does not follow a link where it writes a log "
                                           "or an output file (remove the link)");
    throw RuntimeError("cannot open " + path.string() + " for writing: " + reasonOf(error));
}

} // namespace

bool writeAll(int fd, std::string_view text)
{
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0) {
            errno = ENOSPC; // a write that writes nothing: the device is full
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

namespace {

// A device or a pipe given as the output (`--out /dev/stdout`): written into, as a shell's `>` would.
void writeIntoSpecialFile(const fs::path& path, std::string_view text)
{
    int fd;
    do
        fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        cannotWrite(path, errno);
    if (!writeAll(fd, text)) {
        const int error = errno;
        ::close(fd);
        cannotWrite(path, error);
    }
    if (!closeChecked(fd))
        cannotWrite(path, errno);
}

} // namespace

void writeFileAtomically(const fs::path& path, std::string_view text, mode_t mode)
{
    static std::atomic<unsigned> counter{0};
    struct stat existing {};
    const bool replaces = ::stat(path.c_str(), &existing) == 0;
    if (replaces && S_ISDIR(existing.st_mode))
        throw RuntimeError("cannot write " + path.string() + ": it is a directory");
    if (replaces && !S_ISREG(existing.st_mode))
        return writeIntoSpecialFile(path, text);
    // A link to a file: the file it names is replaced (beside it), the link stays.
    std::error_code ec;
    const fs::path target = replaces && isSymlink(path) ? fs::canonical(path, ec) : path;
    if (ec)
        cannotWrite(path, ec.value());
    const fs::path folder = target.parent_path();
    fs::path temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        // Beside the target (a rename never crosses file systems), hidden, and unique to this process and call.
        temporary = folder / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                              std::to_string(counter++));
        fd = openForWriting(temporary, O_CREAT | O_EXCL, replaces ? kPrivateFileMode : mode);
        if (fd < 0 && (errno != EEXIST || attempt > 100))
            cannotWrite(path, errno);
    }
    const auto fail = [&](int error) {
        ::close(fd);
        ::unlink(temporary.c_str());
        cannotWrite(path, error);
    };
    if (replaces && ::fchmod(fd, existing.st_mode & 07777) != 0)
        fail(errno);
    if (!writeAll(fd, text) || ::fsync(fd) != 0)
        fail(errno);
    if (!closeChecked(fd)) {
        const int error = errno;
        ::unlink(temporary.c_str());
        cannotWrite(path, error);
    }
    if (::rename(temporary.c_str(), target.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        cannotWrite(path, error);
    }
    syncFolder(folder);
}

OutputFile::OutputFile(fs::path path, WriteMode writeMode, mode_t mode) : m_path(std::move(path))
{
    m_fd = openLogFile(m_path, writeMode, mode);
}

OutputFile::~OutputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void OutputFile::write(std::string_view text)
{
    if (m_fd < 0)
        throw RuntimeError("cannot write " + m_path.string() + ": it is closed");
    if (!writeAll(m_fd, text))
        cannotWrite(m_path, errno);
}

void OutputFile::sync()
{
    if (m_fd >= 0 && ::fsync(m_fd) != 0 && errno != EINVAL) // EINVAL: a file (a pipe, /dev/null) without fsync
        cannotWrite(m_path, errno);
}

void OutputFile::close()
{
    if (m_fd < 0)
        return;
    const int fd = m_fd;
    m_fd = -1;
    if (!closeChecked(fd))
        cannotWrite(m_path, errno);
}

int openLogFile(const fs::path& path, WriteMode writeMode, mode_t mode)
{
    const int fd = openForWriting(path, O_CREAT | (writeMode == WriteMode::Append ? O_APPEND : O_TRUNC), mode);
    if (fd < 0)
        cannotOpen(path, errno);
    return fd;
}

} // namespace pitwall
