#include "app/cli/progress.h"

#include "core/jobrun/jobsession.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace pitwall::cli {

namespace {
constexpr int kBarWidth = 24;
}

ProgressLine::ProgressLine(std::FILE* out) : m_out(out), m_tty(isatty(fileno(out)) != 0) {}

void ProgressLine::update(const std::string& label, double done, double total, const std::string& suffix,
                          double overall)
{
    const double fraction = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
    reportJobProgress(overall, suffix.empty() ? label : label + "  " + suffix); // the job record, if any
    const bool newLabel = label != m_lastLabel;
    m_lastLabel = label;
    if (m_tty) {
        const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        if (!newLabel && done < total && now - m_lastDrawSeconds < 0.1)
            return;
        m_lastDrawSeconds = now;
    } else {
        const int decile = static_cast<int>(fraction * 10);
        if (!newLabel && decile == m_lastDecile)
            return;
        m_lastDecile = decile;
    }
    const int filled = static_cast<int>(fraction * kBarWidth + 0.5);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kBarWidth - filled), '-');
    std::fprintf(m_out, "%s%s [%s] %.0f/%.0f %s%s", m_tty ? "\r\033[K" : "", label.c_str(), bar.c_str(), done, total,
                 suffix.c_str(), m_tty ? "" : "\n");
    std::fflush(m_out);
    m_open = m_tty;
}

void ProgressLine::finish()
{
    if (m_open)
        std::fputc('\n', m_out);
    m_open = false;
    std::fflush(m_out);
}

void ProgressLine::message(const std::string& text)
{
    if (m_open)
        std::fputs("\r\033[K", m_out);
    std::fprintf(m_out, "%s\n", text.c_str());
    m_open = false;
    std::fflush(m_out);
}

ProgressReporter ProgressLine::reporter()
{
    ProgressReporter r;
    r.onProgress = [this](const ProgressReport& p) { update(p.label, p.done, p.total, p.detail, p.overallFraction()); };
    r.onPhaseDone = [this] { finish(); };
    r.onMessage = [this](const std::string& text) { message(text); };
    r.onWarning = [this](const std::string& text) { message("warning: " + text); };
    return r;
}

} // namespace pitwall::cli
