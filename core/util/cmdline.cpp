#include "core/util/cmdline.h"

#include "core/util/error.h"
#include "core/util/paths.h"
#include "core/util/printable.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace pitwall::cmdline {

namespace {
const std::vector<std::string> kNoValues;

std::string optionText(const OptionSpec& o)
{
    return "--" + o.name + (o.valueName.empty() ? "" : " " + o.valueName);
}
} // namespace

std::vector<OptionSpec> withOptions(std::vector<OptionSpec> first, const std::vector<OptionSpec>& more)
{
    first.insert(first.end(), more.begin(), more.end());
    return first;
}

namespace {

// A ```text block starting at lines[i] (the fence): its lines, with i moved past the closing fence.
std::vector<std::string> fencedBlock(const std::vector<std::string>& lines, std::size_t& i, const std::string& source)
{
    const int opened = static_cast<int>(i) + 1;
    std::vector<std::string> block;
    for (++i; i < lines.size(); ++i) {
        if (lines[i] == "```") {
            ++i;
            return block;
        }
        block.push_back(lines[i]);
    }
    throw InputError(SourceLocation{source, opened}, "the ```text block is not closed");
}

void skipBlankLines(const std::vector<std::string>& lines, std::size_t& i)
{
    while (i < lines.size() && trim(lines[i]).empty())
        ++i;
}

} // namespace

std::map<std::string, CommandText> parseCommandReference(const std::string& markdown, const std::string& program,
                                                         const std::string& sourceName)
{
    const std::vector<std::string> lines = split(markdown, '\n');
    const std::string heading = "## " + program + " ";
    std::map<std::string, CommandText> reference;
    std::size_t i = 0;
    while (i < lines.size() && !startsWith(lines[i], heading))
        ++i;
    while (i < lines.size()) {
        const SourceLocation where{sourceName, static_cast<int>(i) + 1};
        const std::string path = trim(lines[i].substr(heading.size()));
        if (reference.count(path))
            throw InputError(where, "'" + program + " " + path + "' is documented twice");
        CommandText& text = reference[path];
        skipBlankLines(lines, ++i);
        for (; i < lines.size() && !trim(lines[i]).empty() && !startsWith(lines[i], "```"); ++i)
            text.summary += (text.summary.empty() ? "" : " ") + trim(lines[i]);
        skipBlankLines(lines, i);
        if (text.summary.empty() || i >= lines.size() || lines[i] != "```text")
            throw InputError(where, "the section of '" + program + " " + path +
                                        "' needs its summary line, then its usage in a ```text block");
        const std::vector<std::string> usage = fencedBlock(lines, i, sourceName);
        const std::string command = program + " " + path;
        if (usage.empty() || (usage[0] != command && !startsWith(usage[0], command + " ")))
            throw InputError(where, "the usage of '" + command + "' must start with '" + command + "'");
        text.usage = trim(usage[0].substr(command.size()));
        for (std::size_t u = 1; u < usage.size(); ++u)
            text.usage += "\n" + usage[u];
        skipBlankLines(lines, i);
        if (i < lines.size() && lines[i] == "```text")
            text.description = join(fencedBlock(lines, i, sourceName), "\n");
        while (i < lines.size() && !startsWith(lines[i], heading))
            ++i;
    }
    return reference;
}

std::optional<std::int64_t> integerWithin(const std::string& text, std::int64_t minimum, std::int64_t maximum)
{
    const auto parsed = parseInteger(text);
    if (!parsed || *parsed < minimum || *parsed > maximum)
        return std::nullopt;
    return *parsed;
}

std::optional<std::string> Args::value(const std::string& name) const
{
    auto it = options.find(name);
    if (it == options.end() || it->second.empty())
        return std::nullopt;
    return it->second.back();
}

std::string Args::value(const std::string& name, const std::string& fallback) const
{
    return value(name).value_or(fallback);
}

std::string Args::required(const std::string& name, const std::string& what) const
{
    const auto text = value(name);
    if (!text || text->empty())
        throw InputError::forOption(name, "--" + name + " is required: " + what);
    return *text;
}

const std::vector<std::string>& Args::values(const std::string& name) const
{
    auto it = options.find(name);
    return it == options.end() ? kNoValues : it->second;
}

std::string Args::database() const
{
    return value("db").value_or(defaultDatabasePath());
}

std::optional<std::int64_t> Args::integer(const std::string& name, std::int64_t minimum) const
{
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    const auto parsed = parseInteger(*text);
    if (!parsed || *parsed < minimum)
        throw InputError::forOption(name,
                                    "--" + name + " '" + *text + "' is not an integer >= " + std::to_string(minimum));
    return *parsed;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback, std::int64_t minimum) const
{
    return integer(name, minimum).value_or(fallback);
}

std::int64_t Args::integerIn(const std::string& name, std::int64_t fallback, std::int64_t minimum,
                             std::int64_t maximum) const
{
    const auto text = value(name);
    if (!text)
        return fallback;
    const auto parsed = integerWithin(*text, minimum, maximum);
    if (!parsed)
        throw InputError::forOption(name, "--" + name + " '" + *text + "': give an integer in " +
                                              std::to_string(minimum) + ".." + std::to_string(maximum));
    return *parsed;
}

double Args::numberIn(const std::string& name, double fallback, double minimum, double maximum) const
{
    const auto text = value(name);
    if (!text)
        return fallback;
    const auto parsed = parseDouble(*text);
    if (!parsed || !(*parsed >= minimum && *parsed <= maximum))
        throw InputError::forOption(name, "--" + name + " '" + *text + "': give a number in " + formatDouble(minimum) +
                                              ".." + formatDouble(maximum));
    return *parsed;
}

double Args::positive(const std::string& name, double fallback, const std::string& what) const
{
    const auto text = value(name);
    if (!text)
        return fallback;
    const auto parsed = parseDouble(*text);
    if (!parsed || !(*parsed > 0))
        throw InputError::forOption(name, "--" + name + " '" + *text + "' is not a positive " + what);
    return *parsed;
}

CommandTree::CommandTree(ProgramInfo program, JobHooks jobs) : m_program(std::move(program)), m_jobs(std::move(jobs))
{
}

void CommandTree::add(Command command)
{
    // A loaded command replaces its listed-only entry.
    std::erase_if(m_commands, [&](const Command& c) { return c.path == command.path && !c.run; });
    if (const auto text = m_program.reference.find(command.path); text != m_program.reference.end()) {
        for (auto [field, from] : {std::pair{&command.summary, &text->second.summary},
                                   {&command.usage, &text->second.usage},
                                   {&command.description, &text->second.description}})
            if (field->empty())
                *field = *from;
    }
    if (!command.jobKind.empty() && m_jobs.addOptions)
        m_jobs.addOptions(command);
    m_commands.push_back(std::move(command));
}

void CommandTree::addListed(const std::string& path, const std::string& summary)
{
    if (std::none_of(m_commands.begin(), m_commands.end(), [&](const Command& c) { return c.path == path; }))
        m_commands.push_back(Command{path, summary, "", "", {}, nullptr});
}

void CommandTree::setJobKind(const std::string& path, const std::string& kind)
{
    auto it =
        std::find_if(m_commands.begin(), m_commands.end(), [&](const Command& c) { return c.path == path && c.run; });
    if (it == m_commands.end())
        throw std::logic_error("no command '" + path + "' to make a job of");
    if (it->jobKind.empty() && m_jobs.addOptions)
        m_jobs.addOptions(*it);
    it->jobKind = kind;
}

bool CommandTree::knows(const std::string& word) const
{
    return std::any_of(m_commands.begin(), m_commands.end(),
                       [&](const Command& c) { return split(c.path, ' ')[0] == word; });
}

void CommandTree::printOverview() const
{
    const std::string& name = m_program.name;
    std::cout << name << " — " << m_program.tagline << "\n\n"
              << "Usage: " << name << " COMMAND [ARGS...]\n"
              << "       " << name << " COMMAND --help     (help of one command)\n\n"
              << "Commands:\n";
    std::size_t width = 0;
    for (const Command& c : m_commands)
        width = std::max(width, c.path.size());
    for (const Command& c : m_commands)
        if (!c.hidden)
            std::printf("  %-*s  %s\n", static_cast<int>(width), c.path.c_str(), c.summary.c_str());
    std::cout << "\n" << m_program.notes;
}

void CommandTree::printGroup(const std::string& prefix) const
{
    std::cout << "Usage: " << m_program.name << " " << prefix << " SUBCOMMAND [ARGS...]\n\nSubcommands:\n";
    for (const Command& c : m_commands)
        if (startsWith(c.path, prefix + " "))
            std::printf("  %-20s  %s\n", c.path.c_str(), c.summary.c_str());
}

void CommandTree::printHelp(const Command& c) const
{
    std::cout << "Usage: " << m_program.name << " " << c.path << (c.usage.empty() ? "" : " " + c.usage) << "\n\n"
              << c.summary << "\n";
    if (!c.description.empty())
        std::cout << "\n" << c.description << "\n";
    if (!c.options.empty()) {
        std::cout << "\nOptions:\n";
        for (const OptionSpec& o : c.options)
            std::printf("  %-22s  %s\n", optionText(o).c_str(), o.help.c_str());
    }
    std::printf("  %-22s  %s\n", "--help", "show this help");
}

namespace {

// The command whose path the leading words spell, the longest such; `used` gets its number of words.
const Command* findCommand(const std::vector<Command>& commands, const std::vector<std::string>& words,
                           std::size_t& used)
{
    const Command* command = nullptr;
    used = 0;
    for (const Command& c : commands) {
        const std::vector<std::string> path = split(c.path, ' ');
        if (path.size() <= words.size() && std::equal(path.begin(), path.end(), words.begin()) && path.size() > used) {
            command = &c;
            used = path.size();
        }
    }
    return command;
}

// Why the option at words[i] could not be taken ("" when it was: its value is in `args` and i is past it).
struct OptionProblem {
    std::string text;     // "unknown option '--x'; did you mean '--y'?", "option '--x' needs a value (N)", ...
    bool unknown = false; // the option is not declared (the caller adds the usage)
};

OptionProblem takeOptionWord(const std::vector<OptionSpec>& options, const std::vector<std::string>& words,
                             std::size_t& i, Args& args)
{
    std::string name = words[i].substr(2);
    std::optional<std::string> inlineValue;
    if (auto eq = name.find('='); eq != std::string::npos) {
        inlineValue = name.substr(eq + 1);
        name = name.substr(0, eq);
    }
    auto spec = std::find_if(options.begin(), options.end(), [&](const OptionSpec& o) { return o.name == name; });
    if (spec == options.end()) {
        std::vector<std::string> known;
        for (const OptionSpec& o : options)
            known.push_back(o.name);
        const auto near = nearestNames(name, known, 1);
        return {"unknown option '--" + name + "'" + (near.empty() ? "" : "; did you mean '--" + near[0] + "'?"), true};
    }
    std::string value;
    if (!spec->valueName.empty()) {
        if (inlineValue)
            value = *inlineValue;
        else if (i + 1 < words.size())
            value = words[++i];
        else
            return {"option '--" + name + "' needs a value (" + spec->valueName + ")"};
    } else if (inlineValue) {
        return {"option '--" + name + "' takes no value"};
    }
    if (args.options.count(name) && !spec->repeatable)
        return {"option '--" + name + "' given twice"};
    args.options[name].push_back(value);
    return {};
}

bool isHelp(const std::string& word)
{
    return word == "--help" || word == "-h";
}

// The words from `start` on into `args`: the positionals (and every word after "--") kept, each option word handed
// to `option`, which takes it (moving i past its value) or returns false to end the walk; `stop` (when set) ends it
// first at the word it returns true for. Returns whether the walk reached the end.
bool walkWords(const std::vector<std::string>& words, std::size_t start, Args& args,
               const std::function<bool(const std::string&)>& stop, const std::function<bool(std::size_t&)>& option)
{
    for (std::size_t i = start; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (stop && stop(word))
            return false;
        if (word == "--") {
            args.positionals.insert(args.positionals.end(), words.begin() + static_cast<long>(i) + 1, words.end());
            break;
        }
        if (!startsWith(word, "--") || word.size() == 2) {
            args.positionals.push_back(word);
            continue;
        }
        if (!option(i))
            return false;
    }
    return true;
}

} // namespace

Args parseArgs(const std::vector<OptionSpec>& options, const std::vector<std::string>& words)
{
    Args args;
    walkWords(words, 0, args, nullptr, [&](std::size_t& i) {
        const std::size_t at = i;
        if (const OptionProblem problem = takeOptionWord(options, words, i, args); !problem.text.empty()) {
            const std::string name = words[at].substr(2);
            throw InputError::forOption(name.substr(0, name.find('=')), problem.text);
        }
        return true;
    });
    return args;
}

std::optional<int> CommandTree::takeOption(const Command& command, const std::vector<std::string>& words,
                                           std::size_t& i, Args& args) const
{
    const std::string where = m_program.name + " " + command.path;
    const OptionProblem problem = takeOptionWord(command.options, words, i, args);
    if (problem.text.empty())
        return std::nullopt;
    std::cerr << where << ": " << printable(problem.text, LineBreaks::Keep) << "\n";
    if (problem.unknown)
        std::cerr << "Usage: " << where << " " << command.usage << "\n";
    return kExitBadInput;
}

int CommandTree::runCommand(const Command& command, const Args& args, const std::vector<std::string>& words) const
{
    if (!command.run) {
        std::cerr << m_program.name << " " << command.path << ": " << m_program.notLoaded << "\n";
        return kExitFailure;
    }
    try {
        if (command.check && args.flag("check"))
            return command.check(args);
        if (!command.jobKind.empty() && m_jobs.run)
            return m_jobs.run(command, args, words);
        return command.run(args);
    } catch (const InputError& e) {
        for (const Diagnostic& d : e.diagnostics())
            std::cerr << "error: " << printable(d.toString(), LineBreaks::Keep) << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << m_program.name << " " << command.path << " failed: " << printable(e.what(), LineBreaks::Keep)
                  << "\n";
        return kExitFailure;
    }
}

int CommandTree::unknownCommand(const std::vector<std::string>& words) const
{
    const bool isGroup = std::any_of(m_commands.begin(), m_commands.end(),
                                     [&](const Command& c) { return startsWith(c.path, words[0] + " "); });
    if (isGroup) {
        if (words.size() > 1 && !isHelp(words[1]))
            std::cerr << m_program.name << ": unknown subcommand '" << words[0] << " " << printable(words[1])
                      << "'\n\n";
        printGroup(words[0]);
        return words.size() > 1 && isHelp(words[1]) ? kExitOk : kExitBadInput;
    }
    std::vector<std::string> names;
    for (const Command& c : m_commands)
        names.push_back(split(c.path, ' ')[0]);
    const auto near = nearestNames(words[0], names, 1);
    std::cerr << m_program.name << ": unknown command '" << printable(words[0]) << "'"
              << (near.empty() ? "" : "; did you mean '" + near[0] + "'?") << "\nRun '" << m_program.name
              << " --help' for the list.\n";
    return kExitBadInput;
}

namespace {

// `status`, or exit 1 with a message on stderr when standard output could not be written (a full disk).
int withOutputChecked(const std::string& program, const std::string& path, int status)
{
    std::cout.flush();
    errno = 0;
    const bool flushFailed = std::fflush(stdout) != 0;
    const int error = errno;
    if (!flushFailed && !std::ferror(stdout) && std::cout.good())
        return status;
    // `pitwall ... > FILE` on a full disk, or a detached job whose log cannot grow: the output is short, so the
    // command did not do what it said.
    std::cerr << program << " " << path << ": cannot write its output to standard output"
              << (flushFailed && error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
    return status == kExitOk ? kExitFailure : status;
}

} // namespace

int CommandTree::run(int argc, char** argv) const
{
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty() || isHelp(words[0]) || words[0] == "help") {
        printOverview();
        return words.empty() ? kExitBadInput : kExitOk;
    }
    if (words[0] == "--version") {
        std::cout << m_program.name << " " << m_program.version << "\n";
        return kExitOk;
    }
    std::size_t used = 0;
    const Command* command = findCommand(m_commands, words, used);
    if (!command)
        return unknownCommand(words);
    // The words after the command path: options and positionals; --help (before "--") shows the help instead.
    Args args;
    std::optional<int> status;
    const bool parsed = walkWords(
        words, used, args,
        [&](const std::string& word) {
            if (!isHelp(word))
                return false;
            printHelp(*command);
            status = kExitOk;
            return true;
        },
        [&](std::size_t& i) {
            status = takeOption(*command, words, i, args);
            return !status;
        });
    if (!parsed)
        return *status;
    return withOutputChecked(m_program.name, command->path, runCommand(*command, args, words));
}

} // namespace pitwall::cmdline
