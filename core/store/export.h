#pragma once
// Tables out of the store for spreadsheets and scripts.

#include <cstdint>
#include <iosfwd>
#include <string>

namespace pitwall {

class Store;

enum class ExportFormat { Csv, Json };

// One row per trial of the study, by number. Columns, named like Optuna's trials_dataframe():
// number, state, value (or values_0, values_1, ... for several objectives), datetime_start, datetime_complete
// (Optuna's text form, UTC), duration_s, then params_<name> and user_attrs_<key>, each sorted by name.
// CSV: RFC 4180 quoting, empty cells for missing values. JSON: an array of objects with the same keys,
// values typed (null where missing or not finite). Throws InputError for an unknown study.
void exportStudyTrials(Store& store, const std::string& studyName, ExportFormat format, std::ostream& out);

// Every metric row of one run, oldest first: run, stage, step, key, value, wall_time (Unix seconds).
// Streams in pages, so memory does not grow with the run. Throws InputError for an unknown run.
void exportRunMetrics(Store& store, std::int64_t runId, ExportFormat format, std::ostream& out);

// Quotes one CSV cell when it needs it (comma, quote, line break, leading or trailing space).
std::string csvCell(const std::string& text);

} // namespace pitwall
