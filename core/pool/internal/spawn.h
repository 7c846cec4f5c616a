#pragma once
// Starting an external trial command: no shell, its own process group (so that a terminal's Ctrl-C reaches
// the worker, which decides, and signals reach the command's children too), stdout to a pipe the worker
// reads, stderr appended to the trial's log file, and SIGKILL when the worker dies (PR_SET_PDEATHSIG), so
// no command outlives a killed worker.

#include "core/util/process.h"

#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace pitwall::sched_internal {

struct CommandExit {
    bool exited = false; // false: killed by a signal
    int code = 0;        // exit status, or the signal number
};

class CommandProcess {
public:
    // argv[0] must be a path (see findExecutable). Throws RuntimeError when it cannot start; a program that
    // cannot be executed ends at once with exit status 127, and the log says why ("cannot execute P: errno text").
    static CommandProcess start(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& environment, const std::string& logFile);
    CommandProcess(CommandProcess&& other) noexcept;
    CommandProcess& operator=(CommandProcess&&) = delete;
    ~CommandProcess(); // closes the pipe; kills and reaps a command still running

    pid_t pid() const { return m_pid; }
    // Lines (without the newline) written on stdout since the last call; waits up to `timeoutMs` for output.
    // At the end of output the last partial line is returned too.
    std::vector<std::string> readLines(int timeoutMs);
    bool outputClosed() const { return m_fd < 0; }
    std::optional<CommandExit> poll();
    // Signals the whole process group.
    void signal(int signalNumber) const;

private:
    CommandProcess() = default;
    ChildProcess m_child;
    pid_t m_pid = -1;
    int m_fd = -1;
    std::string m_pending;
    std::optional<CommandExit> m_exit;
};

} // namespace pitwall::sched_internal
