#include "core/store/export.h"

#include "core/store/store.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <ostream>
#include <set>

namespace pitwall {

namespace {

// A typed JSON cell as CSV text: null is empty, ±inf (jsonNumber's "inf"/"-inf") is its text.
std::string csvText(const Json& value)
{
    if (value.is_null())
        return {};
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_number_float())
        return formatDouble(value.get<double>());
    return value.dump();
}

} // namespace

void exportStudyTrials(Store& store, const std::string& studyName, ExportFormat format, std::ostream& out)
{
    const StudyRecord study = store.requireStudy(studyName);
    const auto trials = store.trials(study.id);

    std::set<std::string> paramNames, attrKeys;
    for (const auto& trial : trials) {
        for (const auto& param : trial.params)
            paramNames.insert(param.name);
        for (auto it = trial.userAttrs.begin(); it != trial.userAttrs.end(); ++it)
            attrKeys.insert(it.key());
    }
    const std::size_t objectives = std::max<std::size_t>(1, study.directions.size());
    std::vector<std::string> header{"number", "state"};
    if (objectives == 1)
        header.push_back("value");
    else
        for (std::size_t i = 0; i < objectives; ++i)
            header.push_back("values_" + std::to_string(i));
    for (const char* column : {"datetime_start", "datetime_complete", "duration_s"})
        header.push_back(column);
    for (const auto& name : paramNames)
        header.push_back("params_" + name);
    for (const auto& key : attrKeys)
        header.push_back("user_attrs_" + key);

    // Each row as typed JSON cells in header order.
    Json rows = Json::array();
    if (format == ExportFormat::Csv)
        out << csvRow(header);
    for (const auto& trial : trials) {
        std::vector<Json> cells;
        auto addCell = [&](Json cell) { cells.push_back(std::move(cell)); };
        addCell(trial.number);
        addCell(std::string(trialStateName(trial.state)));
        for (std::size_t i = 0; i < objectives; ++i)
            addCell(i < trial.values.size() ? jsonNumber(trial.values[i]) : Json(nullptr));
        addCell(trial.startTime ? Json(formatTimestamp(*trial.startTime)) : Json(nullptr));
        addCell(trial.completeTime ? Json(formatTimestamp(*trial.completeTime)) : Json(nullptr));
        addCell(trial.startTime && trial.completeTime ? Json(*trial.completeTime - *trial.startTime) : Json(nullptr));
        for (const auto& name : paramNames) {
            Json cell = nullptr;
            for (const auto& param : trial.params)
                if (param.name == name)
                    cell = param.value();
            addCell(std::move(cell));
        }
        for (const auto& key : attrKeys)
            addCell(trial.userAttrs.contains(key) ? trial.userAttrs[key] : Json(nullptr));

        if (format == ExportFormat::Csv) {
            std::vector<std::string> text;
            for (const Json& cell : cells)
                text.push_back(csvText(cell));
            out << csvRow(text);
        } else {
            Json row = Json::object();
            for (std::size_t i = 0; i < cells.size(); ++i)
                row[header[i]] = cells[i];
            rows.push_back(std::move(row));
        }
    }
    if (format == ExportFormat::Json)
        out << rows.dump(2) << '\n';
}

void exportRunMetrics(Store& store, std::int64_t runId, ExportFormat format, std::ostream& out)
{
    if (runId <= 0 || !store.run(runId))
        throw InputError("no run with id " + std::to_string(runId) +
                         (store.location().empty() ? std::string() : " in " + store.location()));
    constexpr std::size_t kPageRows = 50000;
    if (format == ExportFormat::Csv)
        out << csvRow({"run", "stage", "step", "key", "value", "wall_time"});
    else
        out << "[";
    bool first = true;
    std::int64_t cursor = 0;
    for (;;) {
        const auto page = store.metricsSince(runId, cursor, kPageRows);
        for (const auto& row : page) {
            const auto& sample = row.sample;
            if (format == ExportFormat::Csv) {
                out << csvRow({std::to_string(sample.runId), sample.stage, std::to_string(sample.step), sample.key,
                               formatDouble(sample.value), formatDouble(sample.wallTime)});
            } else {
                const Json object{{"run", sample.runId},
                                  {"stage", sample.stage},
                                  {"step", sample.step},
                                  {"key", sample.key},
                                  {"value", jsonNumber(sample.value)},
                                  {"wall_time", jsonNumber(sample.wallTime)}};
                out << (first ? "\n  " : ",\n  ") << object.dump();
            }
            first = false;
        }
        if (page.size() < kPageRows)
            break;
        cursor = page.back().cursor;
    }
    if (format == ExportFormat::Json)
        out << (first ? "]\n" : "\n]\n");
}

} // namespace pitwall
