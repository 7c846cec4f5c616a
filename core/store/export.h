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
// CSV: cells quoted by csvCell (core/util/strings.h: RFC 4180, formulas guarded), empty cells for missing
// values, inf and -inf as text. JSON: an array of objects with the same keys, values typed, numbers as
// jsonNumber writes them (records.h: ±inf as the strings "inf"/"-inf", null where missing or NaN).
// Throws InputError for an unknown study.
void exportStudyTrials(Store& store, const std::string& studyName, ExportFormat format, std::ostream& out);

// Every metric row of one run, oldest first: run, stage, step, key, value, wall_time (Unix seconds); JSON
// numbers as jsonNumber writes them.
// Streams in pages, so memory does not grow with the run. Throws InputError for an unknown run.
void exportRunMetrics(Store& store, std::int64_t runId, ExportFormat format, std::ostream& out);

} // namespace pitwall
