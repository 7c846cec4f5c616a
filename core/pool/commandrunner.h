#pragma once
// A trial run by an external command (any language, any framework), without a shell. The command's argv is
// the template expanded for the trial (commandline.h). Protocol on its stdout, one JSON object per line:
//
//   {"step": 3, "value": 0.41}      an intermediate value (e.g. after epoch 3); other numeric fields of the
//                                   line are stored as metric series of the trial's run
//   {"objective": 0.39, ...}        the final value; the other fields are stored as the trial's user attr
//                                   "metrics" (and numeric ones are what --objective KEY / --constraint name)
//   {"objectives": [0.39, 120]}     the final values of a study with several objectives, in its order
//   {"step": 3, "values": [0.5, 90]} an intermediate vector, one value per objective (its pruner judges it)
//
// Every other stdout line (text, malformed JSON) goes to the trial's log file, where stderr goes too; the log
// is recorded as an artifact of the trial's run (kind "log") and as the trial user attr "log_file". Output is
// bounded (internal/triallog.h): a stdout line keeps its first 1 MiB (the log says how long it was; it is never
// protocol), and trial.log keeps the first 1 MiB and the last 1-2 MiB of the output, with a line saying how much
// was left out between; both pipes are read by the worker, which writes the log.
//
// Outcome: COMPLETE with the objective when the command exits 0 after printing one; FAIL with the reason
// otherwise (exit status or signal with the log's tail, no objective line, malformed JSON seen); PRUNED when
// the pruner says so after an intermediate value: the command's process group gets SIGTERM, then SIGKILL
// after `termGraceSeconds`; FAIL interrupted ("cancelled") when the worker is cancelled (same signals).
//
// The command's environment adds PITWALL_STUDY, PITWALL_TRIAL, PITWALL_TRIAL_DIR and `environment`.

#include "core/pool/trialloop.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pitwall {

struct CommandRunnerOptions {
    std::vector<std::string> words; // splitCommandLine(template)
    std::string storeLocation;      // for the trial's run, metric series, events and artifacts
    std::string device;             // {device}
    int threads = 1;                // {threads}
    std::optional<int> epochs;      // {epochs}
    std::map<std::string, std::string> environment;
    // When set, {config} is the path this writes: the trial's resolved config as YAML in `trialDir`.
    std::function<std::string(const AskedTrial& asked, const std::string& trialDir)> writeConfig;
    double termGraceSeconds = 10.0;
};

// The placeholders a template may use with these options and this space's names.
std::set<std::string> knownPlaceholders(const SearchSpace& space, bool withConfig, bool withEpochs);

// One stdout line of a command, classified.
struct CommandOutputLine {
    enum class Kind { Text, Intermediate, Objective, OtherJson, BadJson };
    Kind kind = Kind::Text;
    std::int64_t step = 0;
    double value = 0.0;
    std::vector<double> values; // Objective: its "objectives" list, if it has one
    Json json;         // the parsed object (Intermediate, Objective, OtherJson)
    std::string error; // BadJson: the parser's message
};
// A line that starts with '{' must be a JSON object; "step" must be an integer >= 0, "value" / "objective"
// numbers and "objectives" a non-empty list of numbers, else it is BadJson with the reason.
CommandOutputLine classifyOutputLine(const std::string& line);

class CommandRunner : public TrialRunner {
public:
    explicit CommandRunner(CommandRunnerOptions options);
    TrialOutcome run(TrialContext& context) override;

private:
    CommandRunnerOptions m_options;
};

} // namespace pitwall
