#pragma once
// Man pages (roff, man(7)) from the text `--help` prints: a command's summary, usage, description and options
// (core/util/cmdline.h), so `man pitwall-study-tell` and `pitwall study tell --help` always say the same. The
// build writes one page per command with `pitwall internal-write-man-pages DIR` (cmake/PitwallInstall.cmake).

#include "core/util/cmdline.h"

#include <string>
#include <vector>

namespace pitwall::cmdline {

struct ManPageInfo {
    std::string program; // "pitwall"
    std::string version; // "0.1.0"
    std::string date;    // "2026-12-05": the page's date (the build's source date)
};

// The date a page carries: $SOURCE_DATE_EPOCH's (reproducible builds) when set, else today's, as YYYY-MM-DD (UTC).
std::string manPageDate();

// "pitwall-study-tell": the page's name for the command at `path` ("study tell"); the program's own for "".
std::string manPageName(const std::string& program, const std::string& path);

// The page of one command: NAME, SYNOPSIS, DESCRIPTION (the description's paragraphs, its indented lines kept as
// examples), OPTIONS (each with its value name and help, then --help), EXIT STATUS, ENVIRONMENT and SEE ALSO.
std::string commandManPage(const ManPageInfo& info, const Command& command);

// The program's overview page: its tagline, every command (hidden ones left out) with its summary and page, `notes`
// (ProgramInfo::notes) as a paragraph, then the same closing sections.
std::string overviewManPage(const ManPageInfo& info, const std::string& tagline, const std::string& notes,
                            const std::vector<Command>& commands);

// `text` safe as roff text: backslashes as \e, hyphens as \-, and a leading '.' or '\'' guarded with \&.
std::string roffEscape(const std::string& text);

} // namespace pitwall::cmdline
