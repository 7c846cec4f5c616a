#pragma once
// What the build and the shell ask of a command line besides commands (app/cli/main.cpp serves them for `pitwall`): the man pages (`pitwall internal-write-man-pages
// DIR`, run by the build) and completion (`pitwall internal-complete INDEX WORD...`, run by the bash completion
// script resources/completion/pitwall).

#include "core/util/cmdline.h"

#include <string>

namespace pitwall {

// Writes DIR/pitwall.1 and one DIR/pitwall-PATH.1 per visible command (the build compresses them); returns the
// exit status. The pages' date is $SOURCE_DATE_EPOCH's when set, else today's.
int writeManPages(const cmdline::CommandTree& cli, const std::string& folder);

// Prints the candidates for words[index] of a `pitwall` command line (words: argv after "pitwall"), one per line:
// command words, options, study names (from the command's --db, read only), config keys as "key=" and their
// sections as "section.", and an option's choices. Prints nothing where the shell should complete file names.
// Always exit 0: completion never reports errors.
int printCompletions(const cmdline::CommandTree& cli, int index, const std::vector<std::string>& words);

} // namespace pitwall
