#pragma once
// The search-space editor: a table of parameters (name, type, min, max, step, values or fixed value) that
// loads and saves AutoSpeed's YAML format, flags bad rows inline, and checks the whole space against the
// config schema (SearchSpace::parse, bare names resolved in the chosen model's sections). GUI thread only.

#include "ui/configure/searchspace.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace pitwall {
class Schema;
}

namespace pitwall::ui {

class SearchSpaceEditor : public QWidget {
    Q_OBJECT
public:
    // `schema` (may be null) must outlive the editor.
    explicit SearchSpaceEditor(const Schema* schema, QWidget* parent = nullptr);

    // Returns "" or what went wrong (the table is left as it was on error).
    QString load(const QString& path);
    QString save(const QString& path);
    QString setYaml(const QString& text);
    QString toYaml() const;
    std::vector<SpaceRow> rows() const;
    QString path() const { return m_path; }
    QTableWidget* table() const { return m_table; }
    // Problems of the rows and of the schema check, one per line, or a summary of a good space
    // ("Parameters: 2 searched, 0 fixed; …"); hasProblems() tells which.
    QString problems() const;
    bool hasProblems() const { return m_hasProblems; }
    // The plugin whose sections bare names resolve in (e.g. "autospeed").
    void setModel(const QString& owner);

Q_SIGNALS:
    void changed();

private:
    void setRows(const std::vector<SpaceRow>& rows);
    void addRow(const SpaceRow& row);
    void recheck();
    void chooseAndLoad();
    void chooseAndSave();

    const Schema* m_schema;
    QString m_model = QStringLiteral("autospeed");
    QString m_path;
    QTableWidget* m_table = nullptr;
    QLabel* m_problems = nullptr;
    QLabel* m_fileLabel = nullptr;
    bool m_filling = false;
    bool m_hasProblems = false;
};

} // namespace pitwall::ui
