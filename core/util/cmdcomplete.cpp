#include "core/util/cmdcomplete.h"

#include "core/util/strings.h"

#include <algorithm>
#include <set>

namespace pitwall::cmdline {

namespace {

std::vector<std::string> withPrefix(std::set<std::string> candidates, const std::string& prefix)
{
    std::vector<std::string> out;
    for (const std::string& c : candidates)
        if (startsWith(c, prefix))
            out.push_back(c);
    return out;
}

const OptionSpec* findOption(const Command& command, const std::string& name)
{
    for (const OptionSpec& o : command.options)
        if (o.name == name)
            return &o;
    return nullptr;
}

// The next words of command paths that begin with `typed` (the whole words before the cursor).
std::set<std::string> nextPathWords(const std::vector<Command>& commands, const std::vector<std::string>& typed)
{
    std::set<std::string> out;
    for (const Command& c : commands) {
        if (c.hidden)
            continue;
        const std::vector<std::string> path = split(c.path, ' ');
        if (path.size() > typed.size() && std::equal(typed.begin(), typed.end(), path.begin()))
            out.insert(path[typed.size()]);
    }
    return out;
}

const Command* commandAt(const std::vector<Command>& commands, const std::vector<std::string>& words,
                         std::size_t limit, std::size_t& used)
{
    const Command* found = nullptr;
    used = 0;
    for (const Command& c : commands) {
        if (c.hidden)
            continue;
        const std::vector<std::string> path = split(c.path, ' ');
        if (path.size() <= limit && path.size() > used && std::equal(path.begin(), path.end(), words.begin())) {
            found = &c;
            used = path.size();
        }
    }
    return found;
}

} // namespace

std::vector<std::string> completeWords(const std::vector<Command>& commands, const std::vector<std::string>& words,
                                       std::size_t current, const ValueSource& values)
{
    current = std::min(current, words.size());
    const std::string prefix = current < words.size() ? words[current] : "";
    std::size_t used = 0;
    const Command* command = commandAt(commands, words, current, used);
    if (!command) {
        const std::vector<std::string> typed(words.begin(), words.begin() + static_cast<long>(current));
        return withPrefix(nextPathWords(commands, typed), prefix);
    }
    // Words after the path, before the cursor: the options given and whether the cursor is on an option's value.
    CompletionContext context;
    context.command = command;
    context.prefix = prefix;
    const OptionSpec* pending = nullptr;
    for (std::size_t i = used; i < current; ++i) {
        const std::string& word = words[i];
        if (pending) {
            context.args.options[pending->name].push_back(word);
            pending = nullptr;
        } else if (startsWith(word, "--") && word.size() > 2) {
            const std::size_t eq = word.find('=');
            const std::string name = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const OptionSpec* option = findOption(*command, name);
            if (option && !option->valueName.empty() && eq == std::string::npos)
                pending = option;
            else if (option)
                context.args.options[name].push_back(eq == std::string::npos ? "" : word.substr(eq + 1));
        } else {
            context.args.positionals.push_back(word);
        }
    }
    auto fromSource = [&]() -> std::vector<std::string> {
        if (!values)
            return {};
        const std::vector<std::string> given = values(context);
        return withPrefix(std::set<std::string>(given.begin(), given.end()), prefix);
    };
    if (pending) {
        context.option = pending;
        return fromSource();
    }
    if (startsWith(prefix, "-")) {
        std::set<std::string> options{"--help"};
        for (const OptionSpec& o : command->options)
            if (o.repeatable || !context.args.flag(o.name))
                options.insert("--" + o.name);
        return withPrefix(options, prefix);
    }
    return fromSource();
}

} // namespace pitwall::cmdline
