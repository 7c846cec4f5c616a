#pragma once
// Line charts rasterised to an RGB image (for PNG reports such as FPS against batch size), with no drawing
// library: axes, grid, ticks, one coloured line with square markers per series, a legend and a title, in a
// built-in 5x7 pixel font drawn at 2x (ASCII letters, digits and common punctuation; lower case is drawn as
// upper case, other characters as blanks). Encode the pixels with any PNG writer.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pitwall {

struct RgbImage {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels; // RGB, row-major, 3 bytes per pixel
};

struct PlotSeries {
    std::string name;
    std::vector<std::pair<double, double>> points; // (x, y) in x order; a point with y < 0 or NaN (a failed run,
                                                   // reported as -1) breaks the line and is not drawn
};

struct LineChart {
    std::string title;
    std::string xLabel;
    std::string yLabel;
    bool log2X = false; // x positions by log2(x), ticks at the data's x values (x must be > 0)
    std::vector<PlotSeries> series;
};

// The charts side by side, each panelWidth x height pixels (at least 200 x 150). The y axis of each starts
// at 0 and ends above its largest value.
RgbImage renderLineCharts(const std::vector<LineChart>& charts, int panelWidth, int height);

} // namespace pitwall
