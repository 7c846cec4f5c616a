#include "core/sched/internal/spawn.h"

#include "core/util/error.h"
#include "core/util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pitwall::sched_internal {

CommandProcess CommandProcess::start(const std::vector<std::string>& argv,
                                     const std::map<std::string, std::string>& environment, const std::string& logFile)
{
    if (argv.empty())
        throw RuntimeError("cannot start a command without a program");
    // Everything is prepared before fork: the child makes only async-signal-safe calls.
    const ExecArrays exec(argv, environment);
    const int log = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0)
        throw RuntimeError("cannot open the trial log " + logFile + ": " + std::strerror(errno));
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        ::close(log);
        throw RuntimeError(std::string("pipe failed: ") + std::strerror(errno));
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(log);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        throw RuntimeError(std::string("fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            _exit(137); // the worker died before the line above
        ::dup2(pipeFds[1], STDOUT_FILENO);
        ::dup2(log, STDERR_FILENO);
        const int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull >= 0)
            ::dup2(devNull, STDIN_FILENO);
        ::signal(SIGPIPE, SIG_DFL);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execve(exec.program(), exec.argv(), exec.envp());
        const char* why = std::strerror(errno);
        (void)!::write(STDERR_FILENO, "cannot execute ", 15);
        (void)!::write(STDERR_FILENO, exec.program(), std::strlen(exec.program()));
        (void)!::write(STDERR_FILENO, ": ", 2);
        (void)!::write(STDERR_FILENO, why, std::strlen(why));
        (void)!::write(STDERR_FILENO, "\n", 1);
        _exit(127);
    }
    ::setpgid(pid, pid); // also from the parent, so signal() works even before the child ran
    ::close(log);
    ::close(pipeFds[1]);
    CommandProcess process;
    process.m_pid = pid;
    process.m_fd = pipeFds[0];
    return process;
}

CommandProcess::CommandProcess(CommandProcess&& other) noexcept
    : m_pid(other.m_pid), m_fd(other.m_fd), m_pending(std::move(other.m_pending)), m_exit(other.m_exit)
{
    other.m_pid = -1;
    other.m_fd = -1;
}

CommandProcess::~CommandProcess()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_pid > 0 && !m_exit) {
        signal(SIGKILL);
        int status = 0;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

std::vector<std::string> CommandProcess::readLines(int timeoutMs)
{
    std::vector<std::string> lines;
    if (m_fd < 0)
        return lines;
    pollfd p{m_fd, POLLIN, 0};
    if (::poll(&p, 1, timeoutMs) <= 0)
        return lines;
    char buffer[65536];
    const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return lines;
    if (n > 0)
        m_pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = m_pending.find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(m_pending.substr(start, nl - start));
    m_pending.erase(0, start);
    if (n <= 0) { // end of output
        if (!m_pending.empty())
            lines.push_back(m_pending);
        m_pending.clear();
        ::close(m_fd);
        m_fd = -1;
    }
    return lines;
}

std::optional<CommandExit> CommandProcess::poll()
{
    if (m_exit || m_pid <= 0)
        return m_exit;
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        CommandExit e;
        e.exited = WIFEXITED(status);
        e.code = e.exited ? WEXITSTATUS(status) : WTERMSIG(status);
        m_exit = e;
    }
    return m_exit;
}

void CommandProcess::signal(int signalNumber) const
{
    if (m_pid > 0 && !m_exit)
        ::kill(-m_pid, signalNumber);
}

} // namespace pitwall::sched_internal
