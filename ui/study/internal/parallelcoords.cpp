#include "ui/study/internal/parallelcoords.h"

#include "ui/exporting.h"
#include "ui/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pitwall::ui {

namespace {
constexpr double kMarginLeft = 48, kMarginRight = 56, kMarginTop = 50, kMarginBottom = 22;
constexpr double kAxisGrabPx = 14;

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}

QString tickText(double value)
{
    return QString::number(value, 'g', 3);
}

QRectF plotRectOf(QSizeF size)
{
    return QRectF(kMarginLeft, kMarginTop, std::max(1.0, size.width() - kMarginLeft - kMarginRight),
                  std::max(1.0, size.height() - kMarginTop - kMarginBottom));
}

double axisXIn(const QRectF& r, int axis, std::size_t count)
{
    return count < 2 ? r.center().x() : r.left() + r.width() * axis / (static_cast<double>(count) - 1);
}

double normalisedOn(const ParallelCoordinates::Axis& a, double value)
{
    if (std::isnan(value))
        return value;
    double lo = a.low, hi = a.high, v = value;
    if (a.log && lo > 0 && v > 0) {
        lo = std::log(lo), hi = std::log(hi), v = std::log(v);
    }
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

bool rowInBrushes(const std::vector<double>& row, const ParallelCoordinates::Brushes& brushes)
{
    for (std::size_t a = 0; a < brushes.size() && a < row.size(); ++a) {
        if (!brushes[a])
            continue;
        const double v = row[a];
        if (std::isnan(v) || v < brushes[a]->first || v > brushes[a]->second)
            return false;
    }
    return true;
}

bool anyBrushIn(const ParallelCoordinates::Brushes& brushes)
{
    return std::any_of(brushes.begin(), brushes.end(), [](const auto& b) { return b.has_value(); });
}
} // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent)
{
    setObjectName("parallelCoordinates");
    setMinimumSize(240, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    addPngExportMenu(this);
}

void ParallelCoordinates::setData(std::vector<Axis> axes, std::vector<std::vector<double>> rows,
                                  std::vector<int> labels, bool lowIsGood)
{
    const bool sameAxes =
        axes.size() == m_axes.size() && std::equal(axes.begin(), axes.end(), m_axes.begin(),
                                                   [](const Axis& a, const Axis& b) { return a.name == b.name; });
    m_axes = std::move(axes);
    m_rows = std::move(rows);
    m_labels = std::move(labels);
    m_lowIsGood = lowIsGood;
    if (!sameAxes)
        m_brushes.assign(m_axes.size(), std::nullopt);
    m_layer = QImage();
    m_dirty = true;
    update();
}

void ParallelCoordinates::setData(std::vector<Axis> axes, std::vector<std::vector<double>> rows,
                                  std::vector<int> labels, bool lowIsGood, QImage layer, const LayerStyle& style,
                                  const Brushes& layerBrushes)
{
    setData(std::move(axes), std::move(rows), std::move(labels), lowIsGood);
    m_layer = std::move(layer);
    m_layerStyle = style;
    m_layerBrushes = layerBrushes;
}

QStringList ParallelCoordinates::axisNames() const
{
    QStringList names;
    for (const Axis& a : m_axes)
        names << a.name;
    return names;
}

ParallelCoordinates::LayerStyle ParallelCoordinates::layerStyle() const
{
    const QPalette pal = palette();
    const qreal dpr = devicePixelRatioF();
    return {size() * dpr,
            dpr,
            plotRect(),
            pal.color(QPalette::Base).rgb(),
            stateColor("BEST", pal).rgb(),
            seriesColor(1, pal).rgb(),
            pal.color(QPalette::Text).rgb()};
}

void ParallelCoordinates::setBrush(int axis, double low, double high)
{
    if (axis < 0 || axis >= axisCount())
        return;
    m_brushes[static_cast<std::size_t>(axis)] = std::make_pair(std::min(low, high), std::max(low, high));
    m_dirty = true;
    update();
    Q_EMIT selectionChanged();
}

void ParallelCoordinates::clearBrush(int axis)
{
    if (axis < 0 || axis >= axisCount() || !m_brushes[static_cast<std::size_t>(axis)])
        return;
    m_brushes[static_cast<std::size_t>(axis)].reset();
    m_dirty = true;
    update();
    Q_EMIT selectionChanged();
}

std::optional<std::pair<double, double>> ParallelCoordinates::brush(int axis) const
{
    return axis >= 0 && axis < axisCount() ? m_brushes[static_cast<std::size_t>(axis)] : std::nullopt;
}

bool ParallelCoordinates::inBrushes(std::size_t row) const
{
    return rowInBrushes(m_rows[row], m_brushes);
}

QList<int> ParallelCoordinates::selected() const
{
    QList<int> out;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (inBrushes(i))
            out << m_labels[i];
    return out;
}

QRectF ParallelCoordinates::plotRect() const
{
    return plotRectOf(QSizeF(size()));
}

double ParallelCoordinates::axisX(int axis) const
{
    return axisXIn(plotRect(), axis, m_axes.size());
}

double ParallelCoordinates::normalised(int axis, double value) const
{
    return normalisedOn(m_axes[static_cast<std::size_t>(axis)], value);
}

double ParallelCoordinates::valueAt(int axis, double t) const
{
    const Axis& a = m_axes[static_cast<std::size_t>(axis)];
    t = std::clamp(t, 0.0, 1.0);
    if (a.log && a.low > 0)
        return std::exp(std::log(a.low) + t * (std::log(a.high) - std::log(a.low)));
    return a.low + t * (a.high - a.low);
}

void ParallelCoordinates::renderLines()
{
    const bool dense = !m_axes.empty() && m_rows.size() > kDenseFrom;
    startCache(dense);
    QPainter p(&m_cache);
    p.setRenderHint(QPainter::Antialiasing, true);

    if (m_axes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No parameters to show."));
        return;
    }
    if (!dense)
        paintLines(p);
    // Axes, names, ticks and brushes over the lines.
    p.setRenderHint(QPainter::Antialiasing, true);
    paintAxes(p);
    m_dirty = false;
}

void ParallelCoordinates::startCache(bool dense)
{
    if (dense) {
        // The lines layer as made off the GUI thread when it still fits; rasterised here otherwise.
        const LayerStyle style = layerStyle();
        if (m_layer.isNull() || !(m_layerStyle == style) || m_layerBrushes != m_brushes) {
            m_layer = renderDenseLayer(m_axes, m_rows, m_brushes, m_lowIsGood, style);
            m_layerStyle = style;
            m_layerBrushes = m_brushes;
        }
        m_cache = m_layer; // shared until the axes are painted over it
    } else {
        const qreal dpr = devicePixelRatioF();
        m_cache = QImage(size() * dpr, QImage::Format_ARGB32_Premultiplied);
        m_cache.setDevicePixelRatio(dpr);
        m_cache.fill(palette().color(QPalette::Base));
    }
}

void ParallelCoordinates::paintLines(QPainter& p)
{
    const QPalette pal = palette();
    const QRectF r = plotRect();
    const int last = axisCount() - 1;
    const QColor good = stateColor("BEST", pal), bad = seriesColor(1, pal);
    const bool anyBrush = anyBrushIn(m_brushes);
    QColor faded = pal.color(QPalette::Text);
    faded.setAlphaF(0.12);
    QPolygonF line;
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const bool in = !anyBrush || inBrushes(i);
            if ((pass == 0) == in)
                continue; // faded lines first, selected lines on top
            line.clear();
            for (int a = 0; a <= last; ++a) {
                const double t = normalised(a, m_rows[i][static_cast<std::size_t>(a)]);
                if (!std::isnan(t))
                    line << QPointF(axisX(a), r.bottom() - t * r.height());
            }
            if (in) {
                double c = normalised(last, m_rows[i][static_cast<std::size_t>(last)]);
                c = std::isnan(c) ? 0.5 : c;
                QColor color = mix(good, bad, m_lowIsGood ? c : 1 - c);
                color.setAlphaF(0.8);
                p.setPen(QPen(color, 0)); // cosmetic 1-pixel pens: 15× faster than a stroked 1.2 px line
            } else {
                p.setPen(QPen(faded, 0));
            }
            p.drawPolyline(line);
        }
    }
}

void ParallelCoordinates::paintAxes(QPainter& p)
{
    const QPalette pal = palette();
    const QRectF r = plotRect();
    const int last = axisCount() - 1;
    const QColor text = pal.color(QPalette::Text);
    const QFontMetrics fm(font());
    // Names share the space between axes; when it is tight they alternate between two lines, each name
    // taking the width of two gaps (many axes: shorter names, never overlapping).
    const double spacing = last > 0 ? axisX(1) - axisX(0) : 240;
    const bool staggered = spacing < 80;
    const int nameWidth = static_cast<int>(std::clamp((staggered ? 2 * spacing : spacing) - 6, 24.0, 110.0));
    const double nameHeight = staggered ? (kMarginTop - 16) / 2.0 : kMarginTop - 16;
    for (int a = 0; a <= last; ++a) {
        const Axis& axis = m_axes[static_cast<std::size_t>(a)];
        const double x = axisX(a);
        p.setPen(QPen(text, 1.2));
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
        const QString name = fm.elidedText(axis.name, Qt::ElideMiddle, nameWidth);
        const double nameTop = staggered && a % 2 ? 1 + nameHeight : 1;
        p.drawText(QRectF(x - 60, nameTop, 120, nameHeight), Qt::AlignCenter, name);
        if (axis.categories.isEmpty()) {
            p.drawText(QRectF(x - 60, r.bottom() + 2, 120, kMarginBottom), Qt::AlignHCenter | Qt::AlignTop,
                       tickText(axis.low));
            p.drawText(QRectF(x - 60, r.top() - 14, 120, 14), Qt::AlignHCenter | Qt::AlignBottom, tickText(axis.high));
        } else {
            for (int c = 0; c < axis.categories.size(); ++c) {
                const double t = normalised(a, c);
                p.drawText(QPointF(x + 4, r.bottom() - t * r.height() + fm.ascent() / 2.0),
                           fm.elidedText(axis.categories[c], Qt::ElideRight, 60));
            }
        }
        if (const auto& b = m_brushes[static_cast<std::size_t>(a)]) {
            const double t0 = normalised(a, b->first), t1 = normalised(a, b->second);
            QColor fill = pal.color(QPalette::Highlight);
            fill.setAlphaF(0.35);
            p.fillRect(QRectF(x - 6, r.bottom() - t1 * r.height(), 12, (t1 - t0) * r.height()), fill);
        }
    }
}

namespace {

constexpr int kShades = 64; // colours of a dense layer's good-to-bad scale

// Counts `lines` segments from (x0, y0) to (x1, y1), in device pixels, into a w × h grid: in each pixel column they
// cross, every pixel between their heights there. `shades` (when given) adds `shade` (their shades' sum) at the
// same pixels.
void countSegment(double y0, double y1, int x0, int x1, int w, int h, std::uint32_t* counts, std::uint32_t* shades,
                  std::uint32_t lines, std::uint32_t shade)
{
    const double slope = (y1 - y0) / std::max(1, x1 - x0);
    double ya = y0;
    for (int x = std::max(0, x0); x < std::min(w, x1); ++x, ya += slope) {
        const double yb = ya + slope;
        const int top = std::clamp(static_cast<int>(std::min(ya, yb)), 0, h - 1);
        const int bottom = std::clamp(static_cast<int>(std::max(ya, yb)), top, h - 1);
        std::size_t at = static_cast<std::size_t>(top) * w + x;
        for (int y = top; y <= bottom; ++y, at += static_cast<std::size_t>(w)) {
            counts[at] += lines;
            if (shades)
                shades[at] += shade;
        }
    }
}

// The segments of every row between each pair of neighbouring axes, binned by the pixel rows they start and end on:
// rows that share both ends cover the same pixels, so each bin is rasterised once with its count (at 100,000 rows a
// few thousand bins per gap instead of 100,000 segments). Ends are taken at pixel centres.
class SegmentBins {
public:
    SegmentBins(int gaps, int h) : m_h(h)
    {
        m_bins.assign(static_cast<std::size_t>(gaps) * h * h, Bin{});
    }
    void add(int gap, int top, int bottom, bool in, std::uint32_t shade)
    {
        Bin& bin = m_bins[(static_cast<std::size_t>(gap) * m_h + top) * m_h + bottom];
        if (in) {
            ++bin.in;
            bin.shade += shade;
        } else {
            ++bin.faded;
        }
    }
    // Rasterises every bin of gap `gap`, from pixel column x0 to x1.
    void paint(int gap, int x0, int x1, int w, std::uint32_t* count, std::uint32_t* shade, std::uint32_t* faded) const
    {
        const std::size_t first = static_cast<std::size_t>(gap) * m_h * m_h;
        for (int y0 = 0; y0 < m_h; ++y0)
            for (int y1 = 0; y1 < m_h; ++y1) {
                const Bin& bin = m_bins[first + static_cast<std::size_t>(y0) * m_h + y1];
                if (bin.in)
                    countSegment(y0 + 0.5, y1 + 0.5, x0, x1, w, m_h, count, shade, bin.in, bin.shade);
                if (bin.faded)
                    countSegment(y0 + 0.5, y1 + 0.5, x0, x1, w, m_h, faded, nullptr, bin.faded, 0);
            }
    }

private:
    struct Bin {
        std::uint32_t in = 0, shade = 0, faded = 0;
    };
    int m_h;
    std::vector<Bin> m_bins;
};

// Paints the counts over the image: each pixel with lines inside the brushes gets their mean shade, else the
// text colour for faded lines, with an opacity that grows with the log of the count (from a look-up table).
void paintDensity(QImage& image, const std::vector<std::uint32_t>& count, const std::vector<std::uint32_t>& shade,
                  const std::vector<std::uint32_t>& faded, const ParallelCoordinates::LayerStyle& style)
{
    const int w = image.width(), h = image.height();
    const std::uint32_t maxCount = std::max<std::uint32_t>(1, *std::max_element(count.begin(), count.end()));
    const std::uint32_t maxFaded = std::max<std::uint32_t>(1, *std::max_element(faded.begin(), faded.end()));
    std::vector<int> alphaIn(maxCount + 1), alphaOut(maxFaded + 1);
    for (std::uint32_t n = 1; n <= maxCount; ++n)
        alphaIn[n] = static_cast<int>(256 * (0.3 + 0.7 * std::log1p(n) / std::log1p(maxCount)));
    for (std::uint32_t n = 1; n <= maxFaded; ++n)
        alphaOut[n] = static_cast<int>(256 * (0.05 + 0.2 * std::log1p(n) / std::log1p(maxFaded)));
    QRgb shades[kShades];
    for (int k = 0; k < kShades; ++k)
        shades[k] = mix(QColor::fromRgb(style.good), QColor::fromRgb(style.bad), k / double(kShades - 1)).rgb();
    const QRgb text = style.text;
    auto blend = [](QRgb under, QRgb over, int alpha) {
        return qRgb(qRed(under) + ((qRed(over) - qRed(under)) * alpha >> 8),
                    qGreen(under) + ((qGreen(over) - qGreen(under)) * alpha >> 8),
                    qBlue(under) + ((qBlue(over) - qBlue(under)) * alpha >> 8));
    };
    for (int y = 0; y < h; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const std::size_t row = static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x) {
            const std::size_t at = row + x;
            if (count[at] > 0)
                line[x] = blend(line[x], shades[shade[at] / count[at]], alphaIn[count[at]]);
            else if (faded[at] > 0)
                line[x] = blend(line[x], text, alphaOut[faded[at]]);
        }
    }
}

} // namespace

// Many lines: QPainter's alpha-blended lines cost about 0.1 ms each, so the lines are rasterised here into
// per-pixel counts (one column span per pixel column of every segment; segments that start and end on the same
// pixel rows once, with their count: SegmentBins), and each pixel gets the mean colour of its lines with an opacity
// that grows with the log of their count: a density view that keeps the bundles visible, every line in it (an
// outlier too), and costs a few nanoseconds per pixel touched.
QImage ParallelCoordinates::renderDenseLayer(const std::vector<Axis>& axes,
                                             const std::vector<std::vector<double>>& rows, const Brushes& brushes,
                                             bool lowIsGood, const LayerStyle& style)
{
    QImage image(style.pixelSize, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(style.dpr);
    image.fill(style.base);
    if (axes.empty() || image.isNull())
        return image;
    const int w = image.width(), h = image.height();
    const qreal dpr = style.dpr;
    const bool anyBrush = anyBrushIn(brushes);
    // Per pixel: lines inside the brushes, the sum of their shades, lines outside. Buffers kept per thread
    // between renders: re-allocating megabytes per render costs page faults.
    thread_local std::vector<std::uint32_t> count, shade, faded;
    for (auto* buffer : {&count, &shade, &faded})
        buffer->assign(static_cast<std::size_t>(w) * h, 0);
    const QRectF r = style.plot;
    const int last = static_cast<int>(axes.size()) - 1;
    std::vector<int> xs(static_cast<std::size_t>(last) + 1);
    for (int a = 0; a <= last; ++a)
        xs[static_cast<std::size_t>(a)] = static_cast<int>(axisXIn(r, a, axes.size()) * dpr);
    SegmentBins bins(last, h);
    std::vector<int> pixelRows(static_cast<std::size_t>(last) + 1); // -1: no value on that axis
    for (const std::vector<double>& row : rows) {
        const bool in = !anyBrush || rowInBrushes(row, brushes);
        double c = normalisedOn(axes.back(), row[static_cast<std::size_t>(last)]);
        c = std::isnan(c) ? 0.5 : (lowIsGood ? c : 1 - c);
        const auto s = static_cast<std::uint32_t>(std::clamp(c, 0.0, 1.0) * (kShades - 1) + 0.5);
        for (int a = 0; a <= last; ++a) {
            const double y =
                (r.bottom() - normalisedOn(axes[static_cast<std::size_t>(a)], row[static_cast<std::size_t>(a)]) *
                                  r.height()) *
                dpr;
            pixelRows[static_cast<std::size_t>(a)] = std::isnan(y) ? -1 : std::clamp(static_cast<int>(y), 0, h - 1);
        }
        for (int a = 0; a < last; ++a) {
            const int y0 = pixelRows[static_cast<std::size_t>(a)], y1 = pixelRows[static_cast<std::size_t>(a) + 1];
            if (y0 >= 0 && y1 >= 0)
                bins.add(a, y0, y1, in, s);
        }
    }
    for (int a = 0; a < last; ++a)
        bins.paint(a, xs[static_cast<std::size_t>(a)], xs[static_cast<std::size_t>(a) + 1], w, count.data(),
                   shade.data(), faded.data());
    paintDensity(image, count, shade, faded, style);
    return image;
}

void ParallelCoordinates::paintEvent(QPaintEvent*)
{
    if (m_dirty || m_cache.size() != size() * devicePixelRatioF())
        renderLines();
    QPainter p(this);
    p.drawImage(0, 0, m_cache);
}

void ParallelCoordinates::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_dirty = true;
}

void ParallelCoordinates::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        m_dirty = true;
        update();
    }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent* event)
{
    m_dragAxis = -1;
    for (int a = 0; a < axisCount(); ++a)
        if (std::abs(event->position().x() - axisX(a)) <= kAxisGrabPx)
            m_dragAxis = a;
    if (m_dragAxis < 0)
        return;
    const QRectF r = plotRect();
    m_dragStart = (r.bottom() - event->position().y()) / r.height();
    m_dragMoved = false;
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragAxis < 0)
        return;
    const QRectF r = plotRect();
    const double t = (r.bottom() - event->position().y()) / r.height();
    if (std::abs(t - m_dragStart) * r.height() < 3)
        return;
    m_dragMoved = true;
    setBrush(m_dragAxis, valueAt(m_dragAxis, m_dragStart), valueAt(m_dragAxis, t));
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent*)
{
    if (m_dragAxis >= 0 && !m_dragMoved)
        clearBrush(m_dragAxis);
    m_dragAxis = -1;
}

} // namespace pitwall::ui
