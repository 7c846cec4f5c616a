#include "core/pool/internal/spawn.h"

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
                                     const std::map<std::string, std::string>& environment, TrialLog& log)
{
    if (argv.empty())
        throw RuntimeError("cannot start a command without a program");
    ProcessOptions options;
    options.environment = environment;
    options.group = ProcessGroup::Own;   // the worker decides what a terminal's Ctrl-C means
    options.parentDeathSignal = SIGKILL; // no command outlives a killed worker
    options.pipeStdout = true;
    options.pipeStderr = true; // into the bounded log (triallog.h)
    options.stdinFromDevNull = true;
    CommandProcess process;
    process.m_log = &log;
    try {
        process.m_child = ChildProcess::start(argv, options);
    } catch (const RuntimeError& e) {
        // A program that cannot be executed is a failed trial like one that exits 127, with the reason in its log.
        log.write(std::string(e.what()) + "\n");
        process.m_exit = CommandExit{true, 127};
        return process;
    }
    process.m_pid = process.m_child.pid();
    process.m_fd = process.m_child.stdoutFd();
    process.m_errFd = process.m_child.stderrFd();
    return process;
}

CommandProcess::CommandProcess(CommandProcess&& other) noexcept
    : m_child(std::move(other.m_child)), m_log(other.m_log), m_pid(other.m_pid), m_fd(other.m_fd),
      m_errFd(other.m_errFd), m_lines(std::move(other.m_lines)), m_exit(other.m_exit)
{
    other.m_pid = -1;
    other.m_fd = -1;
    other.m_errFd = -1;
}

CommandProcess::~CommandProcess()
{
    if (m_pid > 0 && !m_exit) {
        signal(SIGKILL);
        m_child.wait();
    }
}

std::vector<OutputLine> CommandProcess::readLines(int timeoutMs)
{
    std::vector<OutputLine> lines;
    if (m_fd < 0 && m_errFd < 0)
        return lines;
    pollfd fds[2] = {{m_fd, POLLIN, 0}, {m_errFd, POLLIN, 0}}; // a negative fd is skipped
    if (::poll(fds, 2, timeoutMs) <= 0)
        return lines;
    char buffer[65536];
    if (m_errFd >= 0 && fds[1].revents != 0) {
        const ssize_t n = ::read(m_errFd, buffer, sizeof buffer);
        if (n > 0)
            m_log->write(std::string_view(buffer, static_cast<std::size_t>(n)));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            m_child.closeStderr();
            m_errFd = -1;
        }
    }
    if (m_fd < 0 || fds[0].revents == 0)
        return lines;
    const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return lines;
    if (n > 0)
        m_lines.feed(std::string_view(buffer, static_cast<std::size_t>(n)), lines);
    if (n <= 0) { // end of output
        m_lines.finish(lines);
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
