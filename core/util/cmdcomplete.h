#pragma once
// Shell completion over a command tree (core/util/cmdline.h): what may come at the cursor of a partly typed
// command line. `pitwall internal-complete` answers the bash completion script (resources/completion/pitwall) with
// it; the values that need the program's knowledge (study names, config keys, an option's choices) come from the
// caller's ValueSource.

#include "core/util/cmdline.h"

#include <functional>
#include <string>
#include <vector>

namespace pitwall::cmdline {

// Where the cursor is, for a ValueSource: the command (nullptr while its path is being typed), the option whose
// value is typed (nullptr for a positional), the words parsed so far and the typed prefix.
struct CompletionContext {
    const Command* command = nullptr;
    const OptionSpec* option = nullptr;
    Args args;
    std::string prefix;
};

// Candidates for a value or a positional; empty means "let the shell complete file names".
using ValueSource = std::function<std::vector<std::string>(const CompletionContext&)>;

// The candidates at words[current] (words are argv after the program's name; current may be words.size() for a new
// word): the next word of a command path, a command's options (for a word starting with '-'), or what `values`
// gives for an option's value or a positional. Only candidates starting with the typed prefix, sorted, without
// duplicates; hidden commands are never offered.
std::vector<std::string> completeWords(const std::vector<Command>& commands, const std::vector<std::string>& words,
                                       std::size_t current, const ValueSource& values);

} // namespace pitwall::cmdline
