#pragma once
// Axis scales that a reader can read at any chart size: ticks on 1-2-5 steps, as many as the axis has room for,
// labels that never need eliding (compact: 1.2k, 3.4e-4, 0.05), and never a negative range for data that is not.
// Pure: any thread (the Study view fits its history's ranges off the GUI thread, ui/study/internal/studyframe.cpp).

#include <QSizeF>
#include <QString>

namespace pitwall::ui {

struct AxisScale {
    double lo = 0, hi = 1, step = 0.2;
    bool operator==(const AxisScale&) const = default;
};

// A 1, 2 or 5 times a power of ten step that covers lo..hi in at most `maxIntervals` intervals (at least 1; 2 for a
// range across zero), and
// the range rounded out to it. Data that is all >= 0 gets lo >= 0; all <= 0, hi <= 0. lo == hi gets a range
// around the value.
// minStep: the smallest step (1 for whole numbers such as steps and trial numbers; 0: any).
AxisScale niceScale(double lo, double hi, int maxIntervals, double minStep = 0);

// The scale with the most intervals (at most maxIntervals) whose labels (axisLabel, about `charWidth` pixels a
// character, with a gap) fit side by side along `pixels`: for a horizontal axis, whose labels Qt Charts would
// elide when they are wider than the space between ticks.
AxisScale fittingScale(double lo, double hi, double pixels, double charWidth, int maxIntervals, double minStep = 0);

// `value` as an axis label for ticks `step` apart: as few digits as tell neighbouring ticks apart, a value within
// 1e-12 of zero (or a millionth of a step) as "0", thousands and millions as k, M, G from 10,000 up
// (12k, 2.5M), magnitudes below 0.001 in short scientific notation (3.4e-4).
QString axisLabel(double value, double step);

// A step for a time axis in seconds that splits `span` into about `ticks` intervals, on steps a clock reads well:
// 0.1, 0.2, 0.5 s, then 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, then days.
double niceTimeStep(double span, int ticks);
// `seconds` as a time-axis label for ticks `step` apart, distinct for distinct ticks: "0.4 s" below a one-second
// step, else m:ss (h:mm:ss from an hour).
QString timeLabel(double seconds, double step);

// A time axis: seconds since a start, labelled by timeLabel (1:15), or Unix seconds, labelled by clockLabel with the
// local time of day (14:05:30).
enum class TimeAxis { Elapsed, Clock };
// The scale of a time axis over lo..hi seconds along `pixels`: a niceTimeStep that leaves each label about 9
// characters (of `charWidth` pixels; 0: 5 intervals), the range rounded out to the step's multiples (for the
// clock, multiples in local time, so that hour ticks fall on whole hours wherever the zone is).
AxisScale timeScale(double lo, double hi, double pixels, double charWidth, TimeAxis kind);
// Where the multiples of `step` start on a clock axis: ticks are origin + k * step (minus the zone's offset from UTC
// at `near`, so that local times are whole multiples). 0 for elapsed time.
double timeOrigin(double near, double step, TimeAxis kind);
// Unix seconds as the local time of day for ticks `step` apart: 14:05:30 below a one-minute step, 14:05 below a
// day, else the date (6 Dec); tenths of a second below a one-second step (14:05:30.4).
QString clockLabel(double unixSeconds, double step);

// How many intervals fit on the axes of a plot area of `plot` pixels, with labels of about `labelHeight` pixels
// (the font's line height): one tick per 1.8 lines vertically, one per 7 characters (plus a gap) horizontally;
// at least 1, at most 8 vertically and 10 horizontally. An empty size (not laid out yet) gets 5 and 5.
struct TickBudget {
    int x = 5, y = 5;
    double xPixels = 0, charWidth = 0; // the plot's width and a label character's (0: not laid out)
    bool operator==(const TickBudget&) const = default;
};
TickBudget tickBudget(QSizeF plot, double labelHeight);

} // namespace pitwall::ui
