#pragma once
// Report tables: a header and rows of cells, printed as aligned text, Markdown or CSV, or as JSON.
// Summary statistics over seeds (mean ± sample standard deviation).

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

struct MeanStd {
    double mean = 0.0;
    double std = 0.0; // sample standard deviation (n − 1); 0 for a single value
    int count = 0;
    // "93.6 ± 1.0" with `decimals` digits; "93.6" for a single value (no spread to show); "–" for none.
    std::string toString(int decimals = 2) const;
};
MeanStd meanStd(const std::vector<double>& values);

class Table {
public:
    explicit Table(std::vector<std::string> header) : m_header(std::move(header)) {}
    // A row must have one cell per column (throws std::invalid_argument otherwise).
    void addRow(std::vector<std::string> cells);
    const std::vector<std::string>& header() const { return m_header; }
    const std::vector<std::vector<std::string>>& rows() const { return m_rows; }

    std::string toText() const;     // aligned columns for a terminal
    std::string toMarkdown() const; // GitHub-style pipe table
    std::string toCsv() const;      // csvRow (core/util/strings.h) per line: RFC 4180, formulas guarded
    nlohmann::json toJson() const;  // [{"column": "cell", ...}, ...]

private:
    std::vector<std::string> m_header;
    std::vector<std::vector<std::string>> m_rows;
};

// Fixed-point text of a number ("12.35"), or "–" when absent.
std::string formatFixed(std::optional<double> value, int decimals = 2);

} // namespace pitwall
