#pragma once
// AutoSpeed's search-space YAML as the editor holds it: one row per parameter, every number kept as the text
// that was written so that load → save gives the same parsed content (comments are not kept).
//
//   box: {type: uniform, min: 5.0, max: 10.0}      # uniform | loguniform | int (+ optional step)
//   optimizer: {type: categorical, values: [sgd, adamw]}
//   batch_size: 32                                 # a fixed value

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <vector>

namespace pitwall::ui {

struct SpaceRow {
    QString name;
    QString type; // uniform, loguniform, int, categorical, fixed
    QString min, max, step;
    QString values; // categorical: a YAML flow list "[sgd, adamw]"; fixed: the value as YAML flow text
    QList<QPair<QString, QString>> extra; // other fields of the mapping (e.g. log: true), written back as read
};

const QStringList& spaceTypes();

// Parses a search-space document. Returns false with `error` (line:column) when it is not a mapping of
// parameters. Unknown types are kept (checkSpaceRow reports them).
bool parseSpaceYaml(const QString& text, std::vector<SpaceRow>& rows, QString& error);
QString spaceToYaml(const std::vector<SpaceRow>& rows);
// "" or what is wrong with a row: missing name, unknown type, min/max not numbers, min > max, a
// categorical without values, an int bound that is not an integer.
QString checkSpaceRow(const SpaceRow& row);

} // namespace pitwall::ui
