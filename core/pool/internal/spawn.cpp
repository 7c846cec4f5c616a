#include "core/pool/internal/spawn.h"

#include "core/util/error.h"
#include "core/util/process.h"

#include <fstream>

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
    {
        std::ofstream probe(logFile, std::ios::app);
        if (!probe)
            throw RuntimeError("cannot open the trial log " + logFile + ": " + std::strerror(errno));
    }
    ProcessOptions options;
    options.environment = environment;
    options.group = ProcessGroup::Own;       // the worker decides what a terminal's Ctrl-C means
    options.parentDeathSignal = SIGKILL;     // no command outlives a killed worker
    options.pipeStdout = true;
    options.stderrFile = logFile;
    options.appendOutput = true;
    options.stdinFromDevNull = true;
    CommandProcess process;
    try {
        process.m_child = ChildProcess::start(argv, options);
    } catch (const RuntimeError& e) {
        // A program that cannot be executed is a failed trial like one that exits 127, with the reason in its log.
        std::ofstream(logFile, std::ios::app) << e.what() << "\n";
        process.m_exit = CommandExit{true, 127};
        return process;
    }
    process.m_pid = process.m_child.pid();
    process.m_fd = process.m_child.stdoutFd();
    return process;
}

CommandProcess::CommandProcess(CommandProcess&& other) noexcept
    : m_child(std::move(other.m_child)), m_pid(other.m_pid), m_fd(other.m_fd), m_pending(std::move(other.m_pending)),
      m_exit(other.m_exit)
{
    other.m_pid = -1;
    other.m_fd = -1;
}

CommandProcess::~CommandProcess()
{
    if (m_pid > 0 && !m_exit) {
        signal(SIGKILL);
        m_child.wait();
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
        m_child.closeStdout();
        m_fd = -1;
    }
    return lines;
}

std::optional<CommandExit> CommandProcess::poll()
{
    if (m_exit || m_pid <= 0)
        return m_exit;
    if (const auto exit = m_child.poll())
        m_exit = CommandExit{exit->exited, exit->code};
    return m_exit;
}

void CommandProcess::signal(int signalNumber) const
{
    if (m_pid > 0 && !m_exit)
        ::kill(-m_pid, signalNumber);
}

} // namespace pitwall::sched_internal
