#pragma once
// A form generated from the config schema: one group box per schema group, one editor per key chosen by
// type (check box for bool, spin box for int and float with the schema's range, combo box for choices, a
// line edit for strings and lists), the doc string and expectation as tooltip. Ranges and choices are
// enforced while typing (an out-of-range number is refused and flagged until corrected); a text field whose
// value fails the schema check shows the problem under it and leaves the config at its last good value.
//
// The form edits a ResolvedConfig (values set by the form get the origin "form"); several editors may show
// the same key (the speed panel reuses editor()) and stay in step. GUI thread only.

#include "core/config/config.h"

#include <QHash>
#include <QPointer>
#include <QWidget>

#include <map>

class QAbstractSpinBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace pitwall::ui {

class ConfigForm : public QWidget {
    Q_OBJECT
public:
    explicit ConfigForm(const Schema& schema, QWidget* parent = nullptr);

    const Schema& schema() const { return m_schema; }
    const ResolvedConfig& config() const { return m_config; }
    // Replaces every value (e.g. a config file was loaded) and updates the editors.
    void setConfig(const ResolvedConfig& config);
    // Sets one key from text as an override would; returns "" or the problem (also shown inline).
    QString setText(const QString& key, const QString& text);

    // A new editor for `key` bound to the form (for panels that show a key elsewhere).
    QWidget* createEditor(const QString& key, QWidget* parent);
    // The form's own editor of `key` (nullptr for an unknown key).
    QWidget* editor(const QString& key) const { return m_mainEditors.value(key); }
    // The inline problem of a key ("" when none).
    QString problem(const QString& key) const { return m_problems.value(key); }
    bool hasProblems() const { return !m_problems.isEmpty(); }
    QStringList groups() const { return m_groupOrder; }
    // Hides the rows whose key, label or doc do not contain `text`.
    void filter(const QString& text);

Q_SIGNALS:
    void changed();

private:
    void buildGroups();
    // The input widget of an editor for the key's type (see the top of this file), bound to the form.
    QWidget* createInput(const KeySpec& spec, const QString& key, QWidget* container);
    QWidget* createIntInput(const KeySpec& spec, QWidget* container);
    QWidget* createFloatInput(const KeySpec& spec, QWidget* container);
    // Flags typed text outside the spin box's range under the key ("Refused: expected ..."), until it is left.
    void connectRangeProblem(const KeySpec& spec, QAbstractSpinBox* spin);
    void setValue(const KeySpec& spec, const ConfigValue& value);
    void setProblem(const QString& key, const QString& problem);
    void syncEditors(const QString& key);
    void syncEditor(const KeySpec& spec, QWidget* editor);

    Schema m_schema;
    ResolvedConfig m_config;
    QStringList m_groupOrder;
    QHash<QString, QWidget*> m_mainEditors;
    QMultiHash<QString, QPointer<QWidget>> m_editors;
    QMultiHash<QString, QPointer<QLabel>> m_problemLabels;
    QHash<QString, QString> m_problems;
    struct Row {
        QFormLayout* layout = nullptr;
        QWidget* field = nullptr;
        QString haystack;
    };
    std::map<QString, Row> m_rows;
};

// A double spin box that shows and accepts any magnitude ("3e-06", "0.0003", "1e+05"): no fixed decimals,
// C-locale text, and a value outside [minimum, maximum] is Intermediate (refused on commit).
QDoubleSpinBox* createFloatSpinBox(QWidget* parent);

} // namespace pitwall::ui
