#pragma once
// What a search reports when it ends (`pitwall hpo`, and `hpo --check` before it starts), as JSON and as text:
// for the CLI and the window alike.

#include "core/report/table.h"
#include "core/search/search.h"

#include <optional>
#include <string>
#include <vector>

namespace pitwall {

// {"number", "state", "params", "value" (null when none), "fail_reason" (when set), "interrupted",
// "intermediate_values" (their count)}
Json searchTrialJson(const TrialRecord& trial);

// The search's outcome at `storeLocation` as one document: study, db, target, workers, partition, backend, seconds,
// cancelled, error, warnings, objective, counts, best, best_params, final (the final comparison's table, null
// when none), final_notes and trials.
Json searchResultJson(const std::string& storeLocation, const SearchResult& result,
                      const std::optional<Table>& finalResults, const std::vector<std::string>& finalNotes,
                      bool cancelled);

// A blank line, the counts and time, each real failure's first line, the best trial with its parameters and where
// the best parameters were written.
std::string searchSummaryText(const std::string& storeLocation, const SearchResult& result);

// The final comparison after the search: "held-out validation after N epoch(s) (studies 'S/final-default',
// 'S/final-optimised'):", the table as text, then "note: ..." per note.
std::string finalComparisonText(int epochs, const std::string& studyName, const Table& table,
                                const std::vector<std::string>& notes);

// {"ok": true, "study", "trials", "partition", "backend", "devices", "warnings"}
Json searchCheckJson(const SearchCheck& check);
// "ok: study 'S' would run N trial(s) on W BACKEND worker(s) (PARTITION: devices)"; warnings are not part of it.
std::string searchCheckText(const SearchCheck& check);

} // namespace pitwall
