#include "core/devices/toolrunner.h"

#include "core/util/error.h"
#include "core/util/process.h"
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
        std::vector<std::string> resolved = argv;
        resolved.front() = *path;
        ProcessOptions options;
        options.pipeStdout = options.pipeStderr = true;
        options.stdinFromDevNull = true;
        std::optional<ChildProcess> child;
        try {
            child = ChildProcess::start(resolved, options);
        } catch (const RuntimeError& e) {
            result.err = e.what(); // could not execute: started stays false
            return result;
        }
        result.started = true;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        pollfd fds[2] = {{child->stdoutFd(), POLLIN, 0}, {child->stderrFd(), POLLIN, 0}};
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
            if (ready <= 0)
                continue;
            for (int i = 0; i < 2; ++i) {
                if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
                if (n > 0) {
                    (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
                } else if (n == 0 || errno != EINTR) {
                    fds[i].fd = -1; // closed with the ChildProcess
                    --openPipes;
                }
            }
        }
        if (result.timedOut)
            child->signal(SIGKILL);
        const ProcessExit exit = child->wait();
        if (!result.timedOut)
            result.exitCode = exit.exited ? exit.code : 128 + exit.code;
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
