#pragma once
// How long work (a search, a benchmark, an evaluation) reports to whoever shows it: counted progress of the
// current phase, the end of a phase, whole lines and warnings. A terminal draws "label [####----] done/total
// detail" (app/cli/progress.h); a job record or a window takes the plain ProgressSink (fraction, message).
// Every callback is optional and called on the working thread; none may throw.

#include "core/util/cancel.h"

#include <cstdint>
#include <functional>
#include <string>

namespace pitwall {

// `done` of `total` units of the phase `label` (total 0: not known yet).
struct ProgressReport {
    std::string label;  // "trials", "synthesising frames"
    double done = 0;
    double total = 0;
    std::string detail; // free text after the counts, may be empty

    // Where this phase lies in the whole work, as fractions of it (ProgressReporter::within sets them): a job's bar
    // moves from spanFrom to spanTo while this phase goes from 0 to total.
    double spanFrom = 0, spanTo = 1;

    // done / total clamped to 0..1 (0 while total is 0).
    double fraction() const;
    // The whole work's fraction: spanFrom + (spanTo - spanFrom) * fraction().
    double overallFraction() const;
    // The label, two spaces and the detail (just the label when there is no detail).
    std::string message() const;
};

class ProgressReporter {
public:
    ProgressReporter() = default;
    // Reports progress only, as (fraction, message) — what a job record or a window's bar takes.
    ProgressReporter(ProgressSink sink); // NOLINT(google-explicit-constructor): a sink is a reporter

    std::function<void(const ProgressReport&)> onProgress;
    std::function<void()> onPhaseDone;                    // the counted phase ended (a terminal ends its line)
    std::function<void(const std::string&)> onMessage;    // a whole line for the user
    std::function<void(const std::string&)> onWarning;    // a problem that does not stop the work

    void progress(const ProgressReport& report) const;
    void phaseDone() const;
    void message(const std::string& text) const;
    void warning(const std::string& text) const;
    // For operations that take a (done, total) callback: reports `label` and ends the phase at done == total.
    // The callback holds a copy of this reporter.
    std::function<void(std::int64_t done, std::int64_t total)> counter(const std::string& label) const;
    // A reporter for a part of the work that spans `from`..`to` of this reporter's whole (0 <= from <= to <= 1):
    // its reports reach this one with their spans mapped into that part; everything else goes through unchanged.
    // Parts nest.
    ProgressReporter within(double from, double to) const;
};

} // namespace pitwall
