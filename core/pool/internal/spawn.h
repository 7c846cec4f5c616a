#pragma once
// Starting an external trial command: no shell, its own process group (so that a terminal's Ctrl-C reaches
// the worker, which decides, and signals reach the command's children too), stdout and stderr to pipes the
// worker reads (stdout lines cut at a length limit; stderr written to the trial's bounded log, triallog.h), and
// SIGKILL when the worker dies (PR_SET_PDEATHSIG), so no command outlives a killed worker.

#include "core/pool/internal/triallog.h"
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
    // `log` receives the command's stderr (in readLines) and must outlive the process object.
    static CommandProcess start(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& environment, TrialLog& log);
    CommandProcess(CommandProcess&& other) noexcept;
    CommandProcess& operator=(CommandProcess&&) = delete;
    ~CommandProcess(); // closes the pipe; kills and reaps a command still running

    pid_t pid() const { return m_pid; }
    // Lines written on stdout since the last call, each cut at kMaxOutputLineBytes; what came on stderr meanwhile
    // goes to the log. Waits up to `timeoutMs` for output. At the end of stdout its last partial line is returned.
    std::vector<OutputLine> readLines(int timeoutMs);
    bool outputClosed() const { return m_fd < 0 && m_errFd < 0; }
    std::optional<CommandExit> poll();
    // Signals the whole process group.
    void signal(int signalNumber) const;

private:
    CommandProcess() = default;
    ChildProcess m_child;
    TrialLog* m_log = nullptr;
    pid_t m_pid = -1;
    int m_fd = -1, m_errFd = -1;
    LineSplitter m_lines;
    std::optional<CommandExit> m_exit;
};

} // namespace pitwall::sched_internal
