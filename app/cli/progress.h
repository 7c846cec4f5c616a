#pragma once
// A terminal progress line: redrawn in place on a terminal (at most 10 times a second), and one line per
// 10 % otherwise (logs, CI), so long work shows progress without flooding a log.

#include "core/util/progress.h"

#include <cstdio>
#include <string>

namespace pitwall::cli {

class ProgressLine {
public:
    explicit ProgressLine(std::FILE* out = stderr);
    // Draws "label [#####-----] done/total suffix"; `overall` (the whole work's fraction, ProgressReport::
    // overallFraction) goes to the job record.
    void update(const std::string& label, double done, double total, const std::string& suffix, double overall);
    // Ends the current line (keeps it on screen).
    void finish();
    // Prints a whole line above the progress line.
    void message(const std::string& text);
    // A reporter drawing on this line (which must outlive it): progress -> update, phase done -> finish,
    // messages as lines and warnings as "warning: TEXT" lines.
    ProgressReporter reporter();

private:
    std::FILE* m_out;
    bool m_tty;
    bool m_open = false;
    std::string m_lastLabel;
    int m_lastDecile = -1;      // non-terminal output: one line per 10 %
    double m_lastDrawSeconds = 0; // terminal output: at most 10 redraws per second
};

} // namespace pitwall::cli
