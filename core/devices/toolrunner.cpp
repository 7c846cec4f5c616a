#include "core/devices/toolrunner.h"

#include "core/util/strings.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace pitwall {

namespace {

class SystemToolRunner final : public ToolRunner {
public:
    bool available(const std::string& tool) const override { return findOnPath(tool).has_value(); }

    ToolResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const override
    {
        ToolResult result;
        if (argv.empty())
            return result;
        const auto path = findOnPath(argv.front());
        if (!path)
            return result;
        // Everything the child needs is prepared before fork (only async-signal-safe calls after it).
        std::vector<char*> args;
        for (const std::string& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        int outPipe[2], errPipe[2];
        if (pipe2(outPipe, O_CLOEXEC) != 0)
            return result;
        if (pipe2(errPipe, O_CLOEXEC) != 0) {
            close(outPipe[0]);
            close(outPipe[1]);
            return result;
        }
        const int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        const pid_t pid = fork();
        if (pid == 0) {
            if (devNull >= 0)
                dup2(devNull, STDIN_FILENO);
            dup2(outPipe[1], STDOUT_FILENO);
            dup2(errPipe[1], STDERR_FILENO);
            execv(path->c_str(), args.data());
            _exit(127);
        }
        if (devNull >= 0)
            close(devNull);
        close(outPipe[1]);
        close(errPipe[1]);
        if (pid < 0) {
            close(outPipe[0]);
            close(errPipe[0]);
            return result;
        }
        result.started = true;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
        int openPipes = 2;
        char buffer[65536];
        while (openPipes > 0) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                result.timedOut = true;
                break;
            }
            const int ready = poll(fds, 2, static_cast<int>(left.count()));
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready <= 0)
                continue;
            for (int i = 0; i < 2; ++i) {
                if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
                if (n > 0) {
                    (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
                } else if (n == 0 || errno != EINTR) {
                    close(fds[i].fd);
                    fds[i].fd = -1;
                    --openPipes;
                }
            }
        }
        for (pollfd& fd : fds)
            if (fd.fd >= 0)
                close(fd.fd);
        int status = 0;
        if (result.timedOut)
            kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!result.timedOut)
            result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return result;
    }
};

} // namespace

std::string ToolResult::failure() const
{
    if (!started)
        return "not found on PATH or not executable";
    if (timedOut)
        return "timed out";
    if (exitCode == 0)
        return {};
    std::string first = trim(err.empty() ? out : err);
    if (const auto newline = first.find('\n'); newline != std::string::npos)
        first = first.substr(0, newline);
    return "exit status " + std::to_string(exitCode) + (first.empty() ? "" : ": " + first);
}

const ToolRunner& systemToolRunner()
{
    static const SystemToolRunner runner;
    return runner;
}

std::optional<std::string> findOnPath(const std::string& name)
{
    if (name.find('/') != std::string::npos)
        return access(name.c_str(), X_OK) == 0 ? std::optional<std::string>(name) : std::nullopt;
    const char* path = std::getenv("PATH");
    for (const std::string& folder : split(path ? path : "/usr/bin:/bin", ':')) {
        if (folder.empty())
            continue;
        const std::string candidate = folder + "/" + name;
        struct stat info {};
        if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

std::string commandText(const std::vector<std::string>& argv)
{
    std::vector<std::string> words;
    for (const std::string& a : argv)
        words.push_back(a.find_first_of(" \t'\"$") == std::string::npos ? a : "'" + a + "'");
    return join(words, " ");
}

} // namespace pitwall
