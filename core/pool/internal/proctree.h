#pragma once
// The processes below a process, found by walking /proc (Linux): to stop everything a trial started, children
// that left its process group (setsid, a double fork) included, and to tell a trial whose processes are stopped
// (SIGSTOP, a terminal's Ctrl-Z) from one that is working.
//
// A worker is made its descendants' subreaper (PR_SET_CHILD_SUBREAPER), so that the orphans of a trial command
// that exited are re-parented to the worker instead of init and stay findable here until the worker stops them.
//
// Threads: any thread; nothing here keeps state.

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace pitwall::sched_internal {

struct ProcessInfo {
    pid_t pid = 0;
    pid_t parent = 0;
    char state = '?'; // /proc/PID/stat's: R running, S sleeping, T stopped, Z zombie, ...
    std::string name; // the command name (comm), at most 15 characters
};

// Every process whose chain of parents leads to `root` (root itself not included), zombies included, parents
// before their children. Empty when root has none or /proc cannot be read.
std::vector<ProcessInfo> descendants(pid_t root);

// The first process of root's tree (root included) in a job-control stop (state T; a debugger's stop, t, does not
// count), if any.
std::optional<ProcessInfo> stoppedProcess(pid_t root);

// "pid 123 (sleep)".
std::string describeProcess(const ProcessInfo& process);

// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER). False when the kernel
// refused (then orphans go to init, and stopOwnDescendants finds only those still below a live child).
bool becomeSubreaper();

// Stops every descendant of this process: SIGTERM (and SIGCONT, so a stopped one acts on it), then SIGKILL for
// those still there after `graceSeconds`, until none is left; reaps the ones that are (or became) this process's
// children. Call it when this process starts no children on other threads. Returns the ones it found alive.
std::vector<ProcessInfo> stopOwnDescendants(double graceSeconds);

// Kills `root` and everything below it with SIGKILL: root is stopped first (SIGSTOP) so that it starts nothing
// new, then its descendants are killed until none is left alive, then root. Root is not reaped (its parent does).
void killTree(pid_t root);

// Sends `signalNumber` to root and every descendant.
void signalTree(pid_t root, int signalNumber);

} // namespace pitwall::sched_internal
