#pragma once
// Every file Pitwall writes goes through here, so that a full disk, a quota or a read-only folder is an error that
// names the file (RuntimeError, exit 1), never a success with an empty file behind it.
//
// - writeFileAtomically: a file that replaces what was there (best_params.yaml, exports, configs written for a
//   run): written to a new file in the same folder, flushed to disk, then renamed over the path, so the path holds
//   either the old content or all of the new one.
// - OutputFile: a file written piece by piece (a log): every write and the close are checked.
// - openLogFile: a log's descriptor for a child process's output (dup2'd into it).
//
// Logs are created 0600 (they hold commands, paths and whatever a command prints) and opened with O_NOFOLLOW: a
// symbolic link planted where a log goes is refused with a message naming the path instead of being followed.

#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace pitwall {

// Permissions for a log or a file with a command's output (before the umask).
inline constexpr mode_t kPrivateFileMode = 0600;
// Permissions for results meant to be shared (best_params.yaml, exports), before the umask.
inline constexpr mode_t kSharedFileMode = 0666;

// Writes `text` to `path` as described above; the folder must exist. A new file gets `mode` less the umask; an
// existing one keeps its permissions; a symbolic link to a file has that file replaced; a device or a pipe
// (`--out /dev/stdout`) is written into. RuntimeError "cannot write PATH: <why>" (the temporary file is removed).
void writeFileAtomically(const std::filesystem::path& path, std::string_view text, mode_t mode = kSharedFileMode);

enum class WriteMode { Truncate, Append };

// A file written in pieces. Opened without following a symbolic link; created with `mode` (less the umask) when
// missing. Every method throws RuntimeError naming the path when the system refuses (ENOSPC, EDQUOT, EIO...).
// Threads: one owner.
class OutputFile {
public:
    OutputFile(std::filesystem::path path, WriteMode writeMode, mode_t mode = kPrivateFileMode);
    ~OutputFile(); // closes without checking: call close() to know that everything reached the file
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view text);
    // fsync: the bytes written so far are on disk (a full disk on a delayed-allocation file system shows here).
    void sync();
    // Closes the file and reports a failure of the close itself (NFS reports a full disk only here).
    void close();
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
    int m_fd = -1;
};

// A descriptor for a log (O_WRONLY | O_CLOEXEC | O_NOFOLLOW, created with `mode` when missing, appended to or
// truncated). RuntimeError "cannot open PATH for writing: <why>", or "PATH is a symbolic link; ..." when one was
// planted there. The caller closes it.
int openLogFile(const std::filesystem::path& path, WriteMode writeMode, mode_t mode = kPrivateFileMode);

// Writes all of `text` to `fd` (retrying short writes and EINTR); false with errno set on failure.
bool writeAll(int fd, std::string_view text);

} // namespace pitwall
