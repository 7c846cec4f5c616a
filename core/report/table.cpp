#include "core/report/table.h"

#include "core/util/numformat.h"
#include "core/util/printable.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace pitwall {

namespace {
// Display width of UTF-8 text (counts code points, which is right for the characters tables use).
std::size_t displayWidth(const std::string& text)
{
    std::size_t width = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80)
            ++width;
    return width;
}

std::string pad(const std::string& text, std::size_t width)
{
    return text + std::string(width - std::min(width, displayWidth(text)), ' ');
}
} // namespace

std::string MeanStd::toString(int decimals) const
{
    if (count == 0)
        return "–";
    // A spread only where there is one: a single value is printed alone, not "± 0.000".
    if (count < 2)
        return formatFixedPoint(mean, decimals);
    return formatFixedPoint(mean, decimals) + " ± " + formatFixedPoint(std, decimals);
}

MeanStd meanStd(const std::vector<double>& values)
{
    MeanStd out;
    out.count = static_cast<int>(values.size());
    if (values.empty())
        return out;
    double sum = 0;
    for (double v : values)
        sum += v;
    out.mean = sum / values.size();
    if (values.size() > 1) {
        double squares = 0;
        for (double v : values)
            squares += (v - out.mean) * (v - out.mean);
        out.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
    }
    return out;
}

std::string formatFixed(std::optional<double> value, int decimals)
{
    if (!value || std::isnan(*value))
        return "–";
    return formatFixedPoint(*value, decimals);
}

void Table::addRow(std::vector<std::string> cells)
{
    if (cells.size() != m_header.size())
        throw std::invalid_argument("table row has " + std::to_string(cells.size()) + " cells for " +
                                    std::to_string(m_header.size()) + " columns");
    m_rows.push_back(std::move(cells));
}

std::string Table::toText() const
{
    std::vector<std::size_t> widths;
    for (const std::string& h : m_header)
        widths.push_back(displayWidth(h));
    // Names come from outside (a study called "a\nb" must not break the table): printed escaped.
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : m_rows) {
        rows.emplace_back();
        for (const std::string& cell : row)
            rows.back().push_back(printable(cell));
    }
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < cells.size(); ++c)
            out += (c ? "  " : "") + pad(cells[c], widths[c]);
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        out += "\n";
    };
    line(m_header);
    std::vector<std::string> rule;
    for (std::size_t w : widths)
        rule.push_back(std::string(w, '-'));
    line(rule);
    for (const auto& row : rows)
        line(row);
    return out;
}

std::string Table::toMarkdown() const
{
    auto line = [](const std::vector<std::string>& cells) {
        std::string out = "|";
        for (const std::string& c : cells) {
            std::string cell = printable(c);
            for (std::size_t bar = 0; (bar = cell.find('|', bar)) != std::string::npos; bar += 2)
                cell.insert(bar, 1, '\\');
            out += " " + cell + " |";
        }
        return out + "\n";
    };
    std::string out = line(m_header);
    out += "|";
    for (std::size_t c = 0; c < m_header.size(); ++c)
        out += c == 0 ? " --- |" : " ---: |";
    out += "\n";
    for (const auto& row : m_rows)
        out += line(row);
    return out;
}

std::string Table::toCsv() const
{
    std::string out = csvRow(m_header);
    for (const auto& row : m_rows)
        out += csvRow(row);
    return out;
}

nlohmann::json Table::toJson() const
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : m_rows) {
        nlohmann::json object = nlohmann::json::object();
        for (std::size_t c = 0; c < row.size(); ++c)
            object[m_header[c]] = row[c];
        out.push_back(object);
    }
    return out;
}

} // namespace pitwall
