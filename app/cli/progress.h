#pragma once
// A terminal progress line: redrawn in place on a terminal, one line per update otherwise (logs, CI).

#include <cstdio>
#include <string>

namespace pitwall::cli {

class ProgressLine {
public:
    explicit ProgressLine(std::FILE* out = stderr);
    // Draws "label [#####-----] done/total suffix".
    void update(const std::string& label, double done, double total, const std::string& suffix);
    // Ends the current line (keeps it on screen).
    void finish();
    // Prints a whole line above the progress line.
    void message(const std::string& text);

private:
    std::FILE* m_out;
    bool m_tty;
    bool m_open = false;
};

} // namespace pitwall::cli
