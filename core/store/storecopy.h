#pragma once
// Copying results between stores of any backends (SQLite to PostgreSQL and back): one study with its trials and the
// runs of those trials, or everything a store holds. Losslessly: trials keep their numbers, states, times, values,
// parameters, intermediate values (and vectors) and attributes; studies their directions and attributes; runs their
// records, metric rows (in order), events, artifacts and times; benchmark results theirs. Ids are the target's own.

#include "core/store/store.h"
#include "core/util/progress.h"

#include <optional>
#include <string>

namespace pitwall {

struct CopyReport {
    int studies = 0;
    std::int64_t trials = 0;
    std::int64_t runs = 0;
    std::int64_t metricRows = 0;
    std::int64_t events = 0;
    std::int64_t artifacts = 0;
    std::int64_t benchmarks = 0;
};

// Copies `study` (with the runs of its trials), or with std::nullopt every study, every run and every benchmark
// result, from `from` to `to`. Checked before anything is written: InputError for an unknown study, and for a study
// name the target already has (nothing is merged into an existing study). Each study's trials are written in one
// transaction; a failure later (a lost server) leaves what was copied before it and says what that was.
// `progress` counts trials and metric rows.
CopyReport copyStore(Store& from, Store& to, const std::optional<std::string>& study,
                     const ProgressReporter& progress = {});

} // namespace pitwall
