#pragma once
// A command line made of subcommands ("db info", "study tell"), each with options, positional arguments and help:
// the generic machinery of the `pitwall` CLI, free of any command of its own. A program describes itself
// (ProgramInfo), adds its commands, and hands argv to CommandTree::run, which parses, prints help and errors,
// runs the command and returns the exit status.
// Exit status (core/util/exitcodes.h): 0 success, 1 the work failed, 2 bad input or usage (the message says what
// to change), 130 cancelled.
// Everything here runs on the calling thread; output goes to stdout and errors to stderr.

#include "core/util/exitcodes.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pitwall::cmdline {

// The exit statuses under their command-line names too (cmdline::kExitOk): defined in core/util/exitcodes.h.
using pitwall::kExitBadInput;
using pitwall::kExitCancelled;
using pitwall::kExitFailure;
using pitwall::kExitOk;

struct OptionSpec {
    std::string name;      // "db" for --db
    std::string valueName; // "FILE"; empty for a flag
    std::string help;
    bool repeatable = false;
};

// `first`, then `more`: a command's own options followed by a group declared next to the code that reads them
// (e.g. studyOptionSpecs in core/hpo/studyargs.h).
std::vector<OptionSpec> withOptions(std::vector<OptionSpec> first, const std::vector<OptionSpec>& more);

// `text` as an integer within [minimum, maximum]; nullopt when it is not one (Args::integerIn's check, for commands
// that word the error their own way).
std::optional<std::int64_t> integerWithin(const std::string& text, std::int64_t minimum, std::int64_t maximum);

// A command's parsed words.
struct Args {
    std::map<std::string, std::vector<std::string>> options; // name -> values ("" for flags)
    std::vector<std::string> positionals;

    bool flag(const std::string& name) const { return options.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback) const;
    // --NAME's value; InputError "--NAME is required: WHAT" when it is absent or empty.
    std::string required(const std::string& name, const std::string& what) const;
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

// A command's words after its path, parsed against `options` as CommandTree::run parses them (positionals, "--"
// ends the options, --NAME=VALUE); InputError naming the option for one that is not declared, lacks its value, takes
// none or is given twice. For a front end that edits a command line (core/jobs) rather than runs it.
Args parseArgs(const std::vector<OptionSpec>& options, const std::vector<std::string>& words);

struct Command {
    std::string path;        // "db info"
    std::string summary = {};     // one line for the command list
    std::string usage = {};       // "[--db FILE] [--json]" (after the path)
    std::string description = {}; // paragraphs shown by --help
    std::vector<OptionSpec> options = {};
    std::function<int(const Args&)> run = {};
    bool hidden = false; // internal commands (started by the program itself) are left out of the overview
    // Non-empty for long work that the program runs through its JobHooks ("train", "hpo", ...).
    std::string jobKind = {};
    // Set for a job command that can check its input without starting: `--check` then runs this instead of
    // `run` (no job, nothing written; exit 0 when it would start, 2 with the problem otherwise).
    std::function<int(const Args&)> check = {};
};

// A command's text for people: the overview's line, the usage after "Usage: NAME PATH", the --help paragraphs.
struct CommandText {
    std::string summary;
    std::string usage;
    std::string description;
};

// The command texts of a reference document in Markdown (docs/commands.md): one section per command, headed
// "## NAME PATH" (NAME the program's, e.g. "## pitwall db info"), holding its summary (the first paragraph, one
// line), then a ```text block with its usage line ("NAME PATH USAGE", continuation lines kept as they are), then
// optionally a second ```text block with its description. Text before the first section is the document's own.
// InputError naming the line for a section without its summary or usage, a usage that does not start with the
// heading's command, a block that is not closed, or a command documented twice.
std::map<std::string, CommandText> parseCommandReference(const std::string& markdown, const std::string& program,
                                                         const std::string& sourceName);

// What the overview, --version and the error messages say about the program.
struct ProgramInfo {
    std::string name;      // "pitwall": the first word of every usage line and message
    std::string version;   // printed by --version after the name
    std::string tagline;   // the overview's first line, after "NAME — "
    std::string notes;     // lines printed after the command list
    std::string notLoaded; // the error for a command that is listed but whose code is not loaded
    // Fills the empty summary, usage and description of a command added later from its section, by path
    // (parseCommandReference); a command's own text wins.
    std::map<std::string, CommandText> reference = {};
};

// How job commands (Command::jobKind non-empty) are prepared and run; both may be empty (no jobs).
struct JobHooks {
    std::function<void(Command&)> addOptions; // called once when a command becomes a job
    // Runs a job command in place of Command::run; `words` are argv after the program name.
    std::function<int(const Command&, const Args&, const std::vector<std::string>& words)> run;
};

class CommandTree {
public:
    explicit CommandTree(ProgramInfo program = {}, JobHooks jobs = {});
    void add(Command command);
    // A command known by path and summary only (its code is not loaded): listed in the overview.
    void addListed(const std::string& path, const std::string& summary);
    // Whether some command's first word is `word` ("db" for "db info").
    bool knows(const std::string& word) const;
    // Makes the command at `path` a job of `kind` (see Command::jobKind). An unknown path is a programming error
    // (std::logic_error).
    void setJobKind(const std::string& path, const std::string& kind);
    const std::vector<Command>& commands() const { return m_commands; }
    const ProgramInfo& program() const { return m_program; }
    // Parses argv and runs the command; prints errors and help itself. Returns the exit status.
    int run(int argc, char** argv) const;

private:
    void printOverview() const;
    void printGroup(const std::string& prefix) const;
    void printHelp(const Command& command) const;
    // Prints why `words` name no command (or a group's list); returns the exit status.
    int unknownCommand(const std::vector<std::string>& words) const;
    // The exit status of `command`: errors it throws are printed (InputError: 2, others: 1).
    int runCommand(const Command& command, const Args& args, const std::vector<std::string>& words) const;
    // The option at words[i] (and its value) into `args`; the exit status when it is bad, else nullopt.
    std::optional<int> takeOption(const Command& command, const std::vector<std::string>& words, std::size_t& i,
                                  Args& args) const;
    ProgramInfo m_program;
    JobHooks m_jobs;
    std::vector<Command> m_commands;
};

} // namespace pitwall::cmdline
