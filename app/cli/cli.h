#pragma once
// The `pitwall` command line: a tree of subcommands, each with options, positional arguments and help.
// Exit status: 0 success, 1 the work failed, 2 bad input or usage (the message says what to change).

#include <functional>
#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

struct OptionSpec {
    std::string name;       // "db" for --db
    std::string valueName;  // "FILE"; empty for a flag
    std::string help;
    bool repeatable = false;
};

struct Args {
    std::map<std::string, std::vector<std::string>> options; // name -> values ("" for flags)
    std::vector<std::string> positionals;

    bool flag(const std::string& name) const { return options.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback) const;
    const std::vector<std::string>& values(const std::string& name) const;
    // The results database: --db, else $PITWALL_DB, else ./pitwall.db.
    std::string database() const;
    // --NAME as an integer >= minimum, nullopt when absent; InputError naming the option otherwise.
    std::optional<std::int64_t> integer(const std::string& name, std::int64_t minimum) const;
    std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t minimum) const;
    // --NAME within [minimum, maximum] ("--NAME 'TEXT': give an integer in MIN..MAX"), `fallback` when absent.
    std::int64_t integerIn(const std::string& name, std::int64_t fallback, std::int64_t minimum,
                           std::int64_t maximum) const;
    double numberIn(const std::string& name, double fallback, double minimum, double maximum) const;
    // --NAME as a number > 0 ("... is not a positive <what>"), `fallback` when absent.
    double positive(const std::string& name, double fallback, const std::string& what = "number") const;
};

struct Command {
    std::string path;        // "db info"
    std::string summary;     // one line for the command list
    std::string usage;       // "[--db FILE] [--json]" (after the path)
    std::string description; // paragraphs shown by --help
    std::vector<OptionSpec> options;
    std::function<int(const Args&)> run;
    bool hidden = false;     // internal commands (started by Pitwall itself) are left out of the overview
    // Non-empty for long work that records itself as a job in the results store ("train", "hpo", ...): the
    // command then prints its job id on stderr and takes --detach (see app/cli/jobrunner.h).
    std::string jobKind = {};
    // Set for a job command that can check its input without starting: `--check` then runs this instead of
    // `run` (no job, nothing written; exit 0 when it would start, 2 with the problem otherwise).
    std::function<int(const Args&)> check = {};
};

// Options every command that touches results takes.
OptionSpec dbOption();
OptionSpec jsonOption();

class Cli {
public:
    void add(Command command);
    // A command known by name and summary only (its code is in the engine module, not loaded): listed in the
    // overview so that `pitwall --help` needs no LibTorch.
    void addListed(const std::string& path, const std::string& summary);
    // Whether some command's first word is `word` ("db" for "db info").
    bool knows(const std::string& word) const;
    // Makes the command at `path` a job of `kind` (see Command::jobKind). InputError-free: an unknown path is
    // a programming error (std::logic_error).
    void setJobKind(const std::string& path, const std::string& kind);
    const std::vector<Command>& commands() const { return m_commands; }
    // Parses argv and runs the command; prints errors and help itself. Returns the exit status.
    int run(int argc, char** argv);

private:
    void printOverview() const;
    void printGroup(const std::string& prefix) const;
    void printHelp(const Command& command) const;
    // Prints why `words` name no command (or a group's list); returns the exit status.
    int unknownCommand(const std::vector<std::string>& words) const;
    std::vector<Command> m_commands;
};

// Command groups, each in its own file.
void addConfigCommands(Cli& cli);
void addDbCommands(Cli& cli);
void addDeviceCommands(Cli& cli);
void addPluginCommands(Cli& cli);
void addStudyCommands(Cli& cli);
void addJobCommands(Cli& cli);
void addTrainCommands(Cli& cli); // needs the engine
void addBenchCommands(Cli& cli); // needs the engine
void addLoaderBenchCommands(Cli& cli); // needs the engine
void addEvalCommands(Cli& cli);  // needs the engine
void addDataCommands(Cli& cli);  // needs the engine
void addHpoCommands(Cli& cli);   // needs the engine (hpo, worker)
void addBenchPartitionsCommands(Cli& cli); // needs the engine
void addEngineInfoCommand(Cli& cli); // needs the engine

} // namespace pitwall::cli
