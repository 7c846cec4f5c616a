#pragma once
// Child processes without a shell: argv as given, extra environment, output to files, pipes or inherited, a
// process group or session of their own, a parent-death signal, CPU affinity. The one launcher of Pitwall:
// workers, data-parallel ranks, detached jobs, trial commands and vendor tools all start through it.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace pitwall {

// How a child relates to its parent's process group and session.
enum class ProcessGroup {
    Inherit,    // the parent's group: a terminal's Ctrl-C reaches both
    Own,        // a group of its own (signal() then reaches its children too)
    NewSession, // detached: a new session, so it outlives the terminal (a background job)
};

struct ProcessOptions {
    std::map<std::string, std::string> environment; // added to (or replacing in) the parent's environment
    std::vector<std::string> unsetEnvironment;       // removed from the child's environment
    // Files for the child's output, opened by start() (RuntimeError naming the file when it cannot be opened):
    // created 0600, never through a symbolic link (core/util/filewrite.h openLogFile). Empty: inherit (unless piped).
    std::string stdoutFile;
    std::string stderrFile;
    bool pipeStdout = false;                         // read it through ChildProcess::stdoutFd()
    bool pipeStderr = false;                         // read it through ChildProcess::stderrFd()
    bool appendOutput = false;                       // append to the files instead of truncating them
    bool stdinFromDevNull = false;
    std::vector<int> cpuSet;                         // empty: inherit the parent's affinity
    ProcessGroup group = ProcessGroup::Inherit;
    int parentDeathSignal = 0;                       // sent to the child when the parent dies (0: none)
};

struct ProcessExit {
    bool exited = false;  // false: killed by a signal
    int code = 0;         // exit status, or the signal number
    std::string describe() const; // "exit status 3", "killed by signal 9 (SIGKILL)"
};

// argv and the environment (the parent's, with `environment` added or replacing) as the null-terminated arrays
// execve takes. Built before fork, so that the child only makes async-signal-safe calls. Not copyable: the
// arrays point into the strings.
class ExecArrays {
public:
    ExecArrays(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
               const std::vector<std::string>& unset = {});
    ExecArrays(const ExecArrays&) = delete;
    ExecArrays& operator=(const ExecArrays&) = delete;
    const char* program() const { return m_argvPointers.front(); }
    char* const* argv() const { return m_argvPointers.data(); }
    char* const* envp() const { return m_envPointers.data(); }

private:
    std::vector<std::string> m_argv, m_env;
    std::vector<char*> m_argvPointers, m_envPointers;
};

class ChildProcess {
public:
    ChildProcess() = default;
    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&& other) noexcept;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    // Closes the pipes; a child still running is left running (call signal() and wait() to end it).
    ~ChildProcess();

    // Starts argv[0] (a path) with the arguments. Throws RuntimeError when it cannot start, also when the
    // program cannot be executed ("cannot execute PROGRAM: No such file or directory"), never a bare exit 127.
    static ChildProcess start(const std::vector<std::string>& argv, const ProcessOptions& options = {});

    pid_t pid() const { return m_pid; }
    // The read ends of piped output (-1 when not piped or closed). closeStdout/closeStderr close them early.
    int stdoutFd() const { return m_stdoutFd; }
    int stderrFd() const { return m_stderrFd; }
    void closeStdout();
    void closeStderr();
    // Blocks until the child ends.
    ProcessExit wait();
    // The exit if it has ended, without blocking.
    std::optional<ProcessExit> poll();
    // Signals the child, or its whole group when it has one of its own (ProcessGroup::Own or NewSession).
    void signal(int signalNumber) const;

private:
    void forget(); // leaves the immediate stop's list (see rememberChildForImmediateStop)
    pid_t m_pid = -1;
    bool m_ownGroup = false;
    int m_remembered = 0; // what the immediate stop kills: pid, -pgid, or 0
    int m_stdoutFd = -1;
    int m_stderrFd = -1;
    std::optional<ProcessExit> m_exit;
};

// This machine's host name (as gethostname gives it).
std::string hostName();
// Whether a process with this pid exists on this machine (a reused pid reads as alive).
bool processAlive(std::int64_t pid);

// The last `maxBytes` of a file (for error messages from a child's log).
std::string fileTail(const std::string& path, std::size_t maxBytes = 2000);

} // namespace pitwall
