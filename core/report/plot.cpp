#include "core/report/plot.h"

#include "core/util/numformat.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace pitwall {

namespace {

// 5x7 glyphs, one byte per row, bit 4 = leftmost column.
const std::map<char, std::array<std::uint8_t, 7>>& font()
{
    static const std::map<char, std::array<std::uint8_t, 7>> glyphs{
        {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
        {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
        {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
        {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
        {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
        {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}}, {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}},
        {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}}, {'D', {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}},
        {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}}, {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}},
        {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}}, {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
        {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}}, {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}},
        {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}}, {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
        {'M', {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}}, {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
        {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}}, {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}},
        {'Q', {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}}, {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}},
        {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}}, {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
        {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}}, {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}},
        {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}}, {'X', {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}},
        {'Y', {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04}}, {'Z', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}},
        {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}},
        {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
        {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}}, {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
        {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}}, {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}},
        {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}}, {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}},
        {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    };
    return glyphs;
}

constexpr int kScale = 2;            // font pixels per glyph pixel
constexpr int kAdvance = 6 * kScale; // glyph width + 1 column gap
constexpr int kTextHeight = 7 * kScale;
struct Color {
    std::uint8_t r, g, b;
};
constexpr Color kBlack{30, 30, 30}, kGrid{225, 225, 225}, kAxisText{80, 80, 80};
constexpr Color kPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                              {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127}};

class Canvas {
public:
    explicit Canvas(RgbImage& image) : m_image(image) {}
    void pixel(int x, int y, Color c)
    {
        if (x < 0 || y < 0 || x >= m_image.width || y >= m_image.height)
            return;
        std::uint8_t* p = &m_image.pixels[(static_cast<std::size_t>(y) * m_image.width + x) * 3];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
    }
    void rect(int x0, int y0, int x1, int y1, Color c)
    {
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x)
                pixel(x, y, c);
    }
    // A line `thickness` pixels wide (Bresenham, square brush).
    void line(int x0, int y0, int x1, int y1, Color c, int thickness)
    {
        const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
        const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        int err = dx + dy;
        const int lo = -(thickness - 1) / 2, hi = thickness / 2;
        for (;;) {
            rect(x0 + lo, y0 + lo, x0 + hi, y0 + hi, c);
            if (x0 == x1 && y0 == y1)
                break;
            const int e2 = 2 * err;
            if (e2 >= dy) {
                err += dy;
                x0 += sx;
            }
            if (e2 <= dx) {
                err += dx;
                y0 += sy;
            }
        }
    }
    void text(int x, int y, const std::string& s, Color c)
    {
        for (char ch : s) {
            const auto it = font().find(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
            if (it != font().end())
                for (int row = 0; row < 7; ++row)
                    for (int col = 0; col < 5; ++col)
                        if (it->second[row] & (0x10 >> col))
                            rect(x + col * kScale, y + row * kScale, x + col * kScale + kScale - 1,
                                 y + row * kScale + kScale - 1, c);
            x += kAdvance;
        }
    }

private:
    RgbImage& m_image;
};

int textWidth(const std::string& s)
{
    return static_cast<int>(s.size()) * kAdvance;
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `count` ticks up to `top`.
double niceStep(double top, int count)
{
    const double raw = top / count;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * power >= raw)
            return m * power;
    return 10 * power;
}

std::string tickText(double v)
{
    if (std::abs(v) >= 1000 || v == std::floor(v))
        return formatFixedPoint(v, 0);
    return formatGeneral(v, 3);
}

bool drawable(double y)
{
    return std::isfinite(y) && y >= 0;
}

void drawChart(Canvas& canvas, const LineChart& chart, int left, int width, int height)
{
    const int plotLeft = left + 80, plotRight = left + width - 20, plotTop = 50, plotBottom = height - 60;
    std::set<double> xs;
    double yMax = 0;
    for (const PlotSeries& s : chart.series)
        for (const auto& [x, y] : s.points) {
            if (!chart.log2X || x > 0)
                xs.insert(x);
            if (drawable(y))
                yMax = std::max(yMax, y);
        }
    canvas.text(left + (width - textWidth(chart.title)) / 2, 12, chart.title, kBlack);
    canvas.text(left + 10, plotTop - kTextHeight - 14, chart.yLabel, kAxisText);
    canvas.text(plotLeft + (plotRight - plotLeft - textWidth(chart.xLabel)) / 2, height - kTextHeight - 8, chart.xLabel,
                kAxisText);
    const double step = niceStep(yMax > 0 ? yMax * 1.05 : 1.0, 5);
    const double yTop = std::max(step, std::ceil((yMax > 0 ? yMax * 1.05 : 1.0) / step) * step);
    const auto yPixel = [&](double y) {
        return plotBottom - static_cast<int>(std::lround(y / yTop * (plotBottom - plotTop)));
    };
    for (double y = 0; y <= yTop + step / 2; y += step) {
        canvas.line(plotLeft, yPixel(y), plotRight, yPixel(y), kGrid, 1);
        const std::string label = tickText(y);
        canvas.text(plotLeft - 8 - textWidth(label), yPixel(y) - kTextHeight / 2, label, kAxisText);
    }
    const auto position = [&](double x) { return chart.log2X ? std::log2(x) : x; };
    const double xLo = xs.empty() ? 0 : position(*xs.begin()), xHi = xs.empty() ? 1 : position(*xs.rbegin());
    const double span = xHi > xLo ? xHi - xLo : 1.0;
    const int inset = 20;
    const auto xPixel = [&](double x) {
        return plotLeft + inset +
               static_cast<int>(std::lround((position(x) - xLo) / span * (plotRight - plotLeft - 2 * inset) *
                                            (xHi > xLo ? 1.0 : 0.5)));
    };
    for (double x : xs) {
        canvas.line(xPixel(x), plotTop, xPixel(x), plotBottom, kGrid, 1);
        const std::string label = tickText(x);
        canvas.text(xPixel(x) - textWidth(label) / 2, plotBottom + 10, label, kAxisText);
    }
    canvas.line(plotLeft, plotTop, plotLeft, plotBottom, kBlack, 2);
    canvas.line(plotLeft, plotBottom, plotRight, plotBottom, kBlack, 2);
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const PlotSeries& s = chart.series[i];
        const Color color = kPalette[i % std::size(kPalette)];
        const std::pair<double, double>* previous = nullptr;
        for (const auto& point : s.points) {
            if (!drawable(point.second) || (chart.log2X && point.first <= 0)) {
                previous = nullptr;
                continue;
            }
            const int x = xPixel(point.first), y = yPixel(point.second);
            if (previous)
                canvas.line(xPixel(previous->first), yPixel(previous->second), x, y, color, 3);
            canvas.rect(x - 4, y - 4, x + 4, y + 4, color);
            previous = &point;
        }
        const int legendY = plotTop + 8 + static_cast<int>(i) * (kTextHeight + 6);
        canvas.rect(plotLeft + 12, legendY + 2, plotLeft + 36, legendY + kTextHeight - 3, color);
        canvas.text(plotLeft + 44, legendY, s.name, kBlack);
    }
}

} // namespace

RgbImage renderLineCharts(const std::vector<LineChart>& charts, int panelWidth, int height)
{
    RgbImage image;
    image.width = std::max(200, panelWidth) * std::max<int>(1, static_cast<int>(charts.size()));
    image.height = std::max(150, height);
    image.pixels.assign(static_cast<std::size_t>(image.width) * image.height * 3, 255);
    Canvas canvas(image);
    for (std::size_t i = 0; i < charts.size(); ++i)
        drawChart(canvas, charts[i], static_cast<int>(i) * std::max(200, panelWidth), std::max(200, panelWidth),
                  image.height);
    return image;
}

} // namespace pitwall
