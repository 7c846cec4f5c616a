#include "core/util/progress.h"

#include <algorithm>

namespace pitwall {

double ProgressReport::fraction() const
{
    return total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
}

double ProgressReport::overallFraction() const
{
    return std::clamp(spanFrom + (spanTo - spanFrom) * fraction(), 0.0, 1.0);
}

std::string ProgressReport::message() const
{
    return detail.empty() ? label : label + "  " + detail;
}

ProgressReporter::ProgressReporter(ProgressSink sink)
{
    if (sink)
        onProgress = [sink = std::move(sink)](const ProgressReport& r) { sink(r.overallFraction(), r.message()); };
}

void ProgressReporter::progress(const ProgressReport& report) const
{
    if (onProgress)
        onProgress(report);
}

void ProgressReporter::phaseDone() const
{
    if (onPhaseDone)
        onPhaseDone();
}

void ProgressReporter::message(const std::string& text) const
{
    if (onMessage)
        onMessage(text);
}

void ProgressReporter::warning(const std::string& text) const
{
    if (onWarning)
        onWarning(text);
}

std::function<void(std::int64_t, std::int64_t)> ProgressReporter::counter(const std::string& label) const
{
    return [self = *this, label](std::int64_t done, std::int64_t total) {
        self.progress({label, static_cast<double>(done), static_cast<double>(total), ""});
        if (done == total)
            self.phaseDone();
    };
}

ProgressReporter ProgressReporter::within(double from, double to) const
{
    ProgressReporter part = *this;
    from = std::clamp(from, 0.0, 1.0);
    to = std::clamp(to, from, 1.0);
    if (onProgress)
        part.onProgress = [parent = onProgress, from, to](const ProgressReport& r) {
            ProgressReport mapped = r;
            mapped.spanFrom = from + (to - from) * r.spanFrom;
            mapped.spanTo = from + (to - from) * r.spanTo;
            parent(mapped);
        };
    return part;
}

} // namespace pitwall
