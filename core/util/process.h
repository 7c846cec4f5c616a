#pragma once
// Child processes without a shell: argv as given, extra environment, output to files or inherited.
// Used to start one worker per logical device.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace pitwall {

struct ProcessOptions {
    std::map<std::string, std::string> environment; // added to (or replacing in) the parent's environment
    std::string stdoutFile;                          // empty: inherit
    std::string stderrFile;                          // empty: inherit
    std::vector<int> cpuSet;                         // empty: inherit the parent's affinity
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
    ExecArrays(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment);
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
    // Starts argv[0] (a path) with the arguments; throws RuntimeError when it cannot start.
    static ChildProcess start(const std::vector<std::string>& argv, const ProcessOptions& options = {});

    pid_t pid() const { return m_pid; }
    // Blocks until the child ends.
    ProcessExit wait();
    // The exit if it has ended, without blocking.
    std::optional<ProcessExit> poll();
    void signal(int signalNumber) const;

private:
    pid_t m_pid = -1;
    std::optional<ProcessExit> m_exit;
};

// The last `maxBytes` of a file (for error messages from a child's log).
std::string fileTail(const std::string& path, std::size_t maxBytes = 2000);

} // namespace pitwall
