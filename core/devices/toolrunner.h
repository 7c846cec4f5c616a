#pragma once
// Running vendor tools (nvidia-smi, amd-smi) with a timeout and capturing what they print. Discovery and
// partitioning go through the ToolRunner interface so that tests can answer with recorded outputs.
//
// Threads: run() blocks the calling thread for at most the timeout; any thread may call it.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct ToolResult {
    bool started = false;  // false: the tool is not on PATH or could not be executed
    bool timedOut = false; // killed after the timeout
    int exitCode = -1;     // valid when started and not timed out
    std::string out;
    std::string err;

    bool ok() const { return started && !timedOut && exitCode == 0; }
    // "exit status 3: <first line of stderr>", "timed out after 5 s", "not found on PATH"
    std::string failure() const;
};

class ToolRunner {
public:
    virtual ~ToolRunner() = default;
    // Whether `tool` can be run (on PATH, executable).
    virtual bool available(const std::string& tool) const = 0;
    // Runs argv[0] (looked up on PATH) with stdin from /dev/null; kills it after `timeout`.
    virtual ToolResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const = 0;
};

// The real one: fork/exec, both pipes drained while waiting.
const ToolRunner& systemToolRunner();

// The absolute path of an executable `name` on $PATH.
std::optional<std::string> findOnPath(const std::string& name);

// "sudo amd-smi set --gpu all" with arguments quoted for a shell where needed.
std::string commandText(const std::vector<std::string>& argv);

} // namespace pitwall
