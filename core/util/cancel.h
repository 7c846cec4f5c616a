#pragma once
// One way to stop long work, for every command and the window's jobs: a cancel token that long operations
// check cooperatively, the process's own token driven by SIGINT/SIGTERM, and a progress sink.
//
// The policy everywhere: the first SIGINT or SIGTERM is graceful (the current step or trial ends or is
// cancelled, everything finished is kept, the job ends `cancelled`); a second one stops at once, children
// included.

#include <atomic>
#include <functional>
#include <string>

namespace pitwall {

class CancelToken {
public:
    bool requested() const { return m_flag.load(std::memory_order_relaxed); }
    void request() { m_flag.store(true); }

private:
    std::atomic<bool> m_flag{false};
};

// What a second signal means.
enum class InterruptPolicy {
    Command, // a second SIGINT or SIGTERM ends the process at once (exit 130), children with it
    Worker,  // a process supervised by a worker pool: SIGTERM is always graceful (the pool may send it after
             // the terminal's Ctrl-C reached both), only a second SIGINT ends it at once
};

// The token that this process's interrupt handlers set.
CancelToken& processCancelToken();

// Installs the SIGINT/SIGTERM handlers once; later calls change only the policy. On the immediate stop the
// process kills its own process group when it leads one (a detached job, a shell's job), so that workers go
// too; otherwise it exits and its children stop through their parent-death signal.
void installInterruptHandlers(InterruptPolicy policy = InterruptPolicy::Command);

// The children that the immediate stop (a second signal) kills with SIGKILL before the process exits, so that
// they go at once whether or not this process leads a group (a worker's own trial command, a search's
// workers started by a script). ChildProcess::start registers every child it starts outside a new session,
// and forgets it once reaped or no longer owned. `target` is a pid, or -pgid for a child's own group.
// Async-signal-safe; at most 256 are remembered at once (more are left to their parent-death signal).
void rememberChildForImmediateStop(int target);
void forgetChildForImmediateStop(int target);

// Progress of long work: fraction of the current phase (0..1) and a one-line message. Called on the
// working thread; must be cheap (sinks rate-limit their own output).
using ProgressSink = std::function<void(double fraction, const std::string& message)>;

} // namespace pitwall
