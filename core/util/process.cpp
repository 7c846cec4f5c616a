#include "core/util/process.h"

#include "core/util/cancel.h"

#include "core/util/error.h"
#include "core/util/filewrite.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

extern char** environ;

namespace pitwall {

namespace {
ProcessExit fromStatus(int status)
{
    ProcessExit e;
    e.exited = WIFEXITED(status);
    e.code = e.exited ? WEXITSTATUS(status) : WTERMSIG(status);
    return e;
}

// The files a child's stdout and stderr go to, opened by the parent before fork (so that a file that cannot be
// opened, or a symbolic link planted where a log goes, is an error naming it, not output silently lost), created
// 0600 and never through a link (openLogFile). -1 where the output is inherited or piped.
struct OutputFiles {
    int out = -1;
    int err = -1;

    void closeAll() const
    {
        if (out >= 0)
            ::close(out);
        if (err >= 0 && err != out)
            ::close(err);
    }
};

OutputFiles openOutputFiles(const ProcessOptions& options)
{
    const WriteMode mode = options.appendOutput ? WriteMode::Append : WriteMode::Truncate;
    OutputFiles files;
    if (!options.stdoutFile.empty())
        files.out = openLogFile(options.stdoutFile, mode);
    if (options.stderrFile.empty())
        return files;
    if (options.stderrFile == options.stdoutFile) {
        files.err = files.out; // one file, one offset: the two streams interleave instead of overwriting
        return files;
    }
    try {
        files.err = openLogFile(options.stderrFile, mode);
    } catch (...) {
        files.closeAll();
        throw;
    }
    return files;
}
} // namespace

std::string ProcessExit::describe() const
{
    if (exited)
        return "exit status " + std::to_string(code);
    const char* name = sigabbrev_np(code);
    return "killed by signal " + std::to_string(code) + (name ? std::string(" (SIG") + name + ")" : std::string());
}

ExecArrays::ExecArrays(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                       const std::vector<std::string>& unset)
    : m_argv(argv)
{
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (!environment.count(name) && std::find(unset.begin(), unset.end(), name) == unset.end())
            m_env.push_back(entry);
    }
    for (const auto& [key, value] : environment)
        m_env.push_back(key + "=" + value);
    for (std::string& a : m_argv)
        m_argvPointers.push_back(a.data());
    m_argvPointers.push_back(nullptr);
    for (std::string& e : m_env)
        m_envPointers.push_back(e.data());
    m_envPointers.push_back(nullptr);
}

namespace {

// The pipes start() makes: `report` carries the child's errno when its exec fails (a successful exec closes
// it: O_CLOEXEC); `out` and `err` carry its stdout and stderr when piped (-1 when not).
struct StartPipes {
    int report[2] = {-1, -1};
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};

    void closeAll() const
    {
        for (int fd : {report[0], report[1], out[0], out[1], err[0], err[1]})
            if (fd >= 0)
                ::close(fd);
    }
};

StartPipes openPipes(const ProcessOptions& options)
{
    StartPipes pipes;
    if (::pipe2(pipes.report, O_CLOEXEC) != 0)
        throw RuntimeError(std::string("pipe failed: ") + std::strerror(errno));
    if ((options.pipeStdout && ::pipe2(pipes.out, O_CLOEXEC) != 0) ||
        (options.pipeStderr && ::pipe2(pipes.err, O_CLOEXEC) != 0)) {
        const int why = errno;
        pipes.closeAll();
        throw RuntimeError(std::string("pipe failed: ") + std::strerror(why));
    }
    return pipes;
}

// The child's side of start(), between fork and exec: only async-signal-safe calls. Execs the program, or
// writes errno to the report pipe and exits 127.
[[noreturn]] void execInChild(const ExecArrays& exec, const ProcessOptions& options, const cpu_set_t& cpus,
                              pid_t parent, const StartPipes& pipes, const OutputFiles& files)
{
    ::close(pipes.report[0]);
    if (options.group == ProcessGroup::NewSession)
        ::setsid();
    else if (options.group == ProcessGroup::Own)
        ::setpgid(0, 0);
    if (options.parentDeathSignal != 0) {
        ::prctl(PR_SET_PDEATHSIG, options.parentDeathSignal);
        if (::getppid() != parent)
            _exit(137); // the parent died before the line above
    }
    if (files.out >= 0)
        dup2(files.out, STDOUT_FILENO);
    if (files.err >= 0)
        dup2(files.err, STDERR_FILENO);
    if (pipes.out[1] >= 0)
        dup2(pipes.out[1], STDOUT_FILENO);
    if (pipes.err[1] >= 0)
        dup2(pipes.err[1], STDERR_FILENO);
    // Default dispositions: an ignored SIGPIPE or SIGINT would otherwise survive exec.
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (options.stdinFromDevNull) {
        const int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull >= 0)
            dup2(devNull, STDIN_FILENO);
    }
    if (!options.cpuSet.empty())
        sched_setaffinity(0, sizeof cpus, &cpus);
    execve(exec.program(), exec.argv(), exec.envp());
    const int why = errno;
    (void)!::write(pipes.report[1], &why, sizeof why);
    _exit(127);
}

// Waits on the report pipe and closes it: the errno of a failed exec, or nothing once exec succeeded.
std::optional<int> readExecError(int reportFd)
{
    int why = 0;
    ssize_t n;
    while ((n = ::read(reportFd, &why, sizeof why)) < 0 && errno == EINTR) {
    }
    ::close(reportFd);
    if (n == static_cast<ssize_t>(sizeof why))
        return why;
    return std::nullopt;
}

} // namespace

ChildProcess ChildProcess::start(const std::vector<std::string>& argv, const ProcessOptions& options)
{
    if (argv.empty())
        throw RuntimeError("cannot start a process without a program");
    // Everything the child needs is prepared before fork: after it only async-signal-safe calls are made.
    const ExecArrays exec(argv, options.environment, options.unsetEnvironment);
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    for (int c : options.cpuSet)
        CPU_SET(c, &cpus);
    const OutputFiles files = openOutputFiles(options);
    StartPipes pipes;
    try {
        pipes = openPipes(options);
    } catch (...) {
        files.closeAll();
        throw;
    }

    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        const int why = errno;
        pipes.closeAll();
        files.closeAll();
        throw RuntimeError(std::string("fork failed: ") + std::strerror(why));
    }
    if (pid == 0)
        execInChild(exec, options, cpus, parent, pipes, files);
    files.closeAll();
    if (options.group == ProcessGroup::Own)
        ::setpgid(pid, pid); // also from the parent, so signal() reaches the group even before the child ran
    ::close(pipes.report[1]);
    for (int fd : {pipes.out[1], pipes.err[1]})
        if (fd >= 0)
            ::close(fd);
    const std::optional<int> execError = readExecError(pipes.report[0]);
    ChildProcess child;
    child.m_pid = pid;
    child.m_ownGroup = options.group != ProcessGroup::Inherit;
    child.m_stdoutFd = pipes.out[0];
    child.m_stderrFd = pipes.err[0];
    if (options.group != ProcessGroup::NewSession) {
        child.m_remembered = child.m_ownGroup ? -pid : pid;
        rememberChildForImmediateStop(child.m_remembered);
    }
    if (execError) {
        child.wait();
        throw RuntimeError("cannot execute " + argv.front() + ": " + std::strerror(*execError));
    }
    return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept
{
    if (this != &other) {
        closeStdout();
        closeStderr();
        m_pid = std::exchange(other.m_pid, -1);
        m_exit = std::exchange(other.m_exit, std::nullopt);
        m_ownGroup = other.m_ownGroup;
        forget();
        m_remembered = std::exchange(other.m_remembered, 0);
        m_stdoutFd = std::exchange(other.m_stdoutFd, -1);
        m_stderrFd = std::exchange(other.m_stderrFd, -1);
    }
    return *this;
}

ChildProcess::~ChildProcess()
{
    closeStdout();
    closeStderr();
    forget();
}

void ChildProcess::forget()
{
    if (m_remembered != 0)
        forgetChildForImmediateStop(std::exchange(m_remembered, 0));
}

void ChildProcess::closeStdout()
{
    if (m_stdoutFd >= 0)
        ::close(std::exchange(m_stdoutFd, -1));
}

void ChildProcess::closeStderr()
{
    if (m_stderrFd >= 0)
        ::close(std::exchange(m_stderrFd, -1));
}

ProcessExit ChildProcess::wait()
{
    if (m_exit)
        return *m_exit;
    int status = 0;
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_exit = fromStatus(status);
    forget();
    return *m_exit;
}

std::optional<ProcessExit> ChildProcess::poll()
{
    if (m_exit)
        return m_exit;
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
        m_exit = fromStatus(status);
        forget();
    }
    return m_exit;
}

void ChildProcess::signal(int signalNumber) const
{
    if (!m_exit && m_pid > 0)
        ::kill(m_ownGroup ? -m_pid : m_pid, signalNumber);
}

std::string hostName()
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

bool processAlive(std::int64_t pid)
{
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

std::string fileTail(const std::string& path, std::size_t maxBytes)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return {};
    const std::streamoff size = in.tellg();
    const std::streamoff start = size > static_cast<std::streamoff>(maxBytes) ? size - static_cast<std::streamoff>(maxBytes) : 0;
    in.seekg(start);
    std::string text(static_cast<std::size_t>(size - start), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    return text;
}

} // namespace pitwall
