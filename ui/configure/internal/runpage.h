#pragma once
// One kind of job in What to run (RunOptions): the kind's options as the fields of a form page, and its typed job
// spec (core/jobs) both ways. words() fills the spec from the fields and returns its toArgs(); setFromWords() loads a
// command line of the kind through the spec's fromArgs(). Each field is registered under the spec's field names, so
// a problem of the CLI's check (`field`) or of the spec's own parsing lands under the field it belongs to. Adding a
// kind is adding one page (runpages.h) and listing it in RunOptions. GUI thread only.

#include "core/jobs/jobproblems.h"
#include "ui/configure/runoptions.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace pitwall::ui {

enum class PathKind { File, Folder };

// What a page's own checks need besides its fields.
struct RunCheckContext {
    QString spaceProblems; // the Search space tab's problems ("" when none): a search that uses its rows fails on them
};

// What the kind is, as the spec declares it.
struct RunKindInfo {
    RunKind kind;
    QString label;                            // "Hyperparameter search"
    const char* command;                      // the spec's kCommand ("bench variants")
    const JobFields& fields;                  // the spec's fields()
    enum class CliCheck { No, Yes } cliCheck; // whether Start runs the command with --check first
};

class RunPage : public QWidget {
    Q_OBJECT
public:
    RunPage(const RunKindInfo& info, QWidget* parent);

    RunKind kind() const { return m_info.kind; }
    QString label() const { return m_info.label; }
    // Whether `words` are a command line of this kind (they start with its command).
    bool isCommandOf(const QStringList& words) const;
    bool checkedByCli() const { return m_info.cliCheck == RunKindInfo::CliCheck::Yes; }
    const JobFields& fields() const { return m_info.fields; }

    // The spec filled from the fields, as its toArgs() (without "pitwall" and --detach); InputError naming the option
    // for a field the spec refuses.
    virtual std::vector<std::string> words(const RunContext& context) const = 0;
    // The fields from a command line of this kind (the spec's fromArgs); its config files and dotted overrides go to
    // `configFiles` and `overrides` (for the form). InputError for words the spec or this page refuses.
    virtual void setFromWords(const std::vector<std::string>& words, QStringList& configFiles,
                              QStringList& overrides) = 0;
    // The kind was chosen in What to run.
    virtual void selected() {}

    // Marks and returns the problems of the fields: the page's own checks, then (when those pass) what the spec
    // refuses of the fields' values, each under its field.
    QStringList check(const RunCheckContext& context);
    // Shows each problem under the field its `field` names (several at one field one under the other); a problem of
    // no field of this page is not shown. Returns the object names of the fields that got one.
    QStringList showProblems(const std::vector<JobProblem>& problems);
    void showProblem(QWidget* field, const QString& message);
    void clearProblems();
    // The problem shown at a field of this page (by object name), "" when none.
    QString problemAt(const QString& fieldName) const;
    // The widget of a spec's field, null when the page has none.
    QWidget* fieldWidget(const std::string& field) const;

protected:
    // The page's own checks (files exist, values the database knows): each problem through fail().
    virtual void checkFields(const RunCheckContext& context);
    void fail(QWidget* field, const QString& problem);
    // fail() unless `edit` names an existing file or folder.
    void needPath(QLineEdit* edit, PathKind kind, const QString& what);
    // A field with its problem label under it, a row of the page's form, shown for the spec's `specFields`.
    void addField(const QString& label, QWidget* field, const QString& tip, std::vector<std::string> specFields);
    // A row without a problem of its own (a picker, a note); one across the page when `label` is empty.
    void addRow(const QString& label, QWidget* widget);

private:
    RunKindInfo m_info;
    std::map<QWidget*, QLabel*> m_problemLabels;
    std::map<std::string, QWidget*> m_fieldWidgets;
    QStringList m_found; // check()'s problems so far
};

// Widgets and values the pages share.
QSpinBox* spinBox(QWidget* parent, const char* name, int min, int max, int value, const QString& special = {});
QComboBox* comboBox(QWidget* parent, const char* name, const QStringList& items);
QLineEdit* lineEdit(QWidget* parent, const char* name, const QString& placeholder);
// A line edit with a "…" button that picks a file or folder into it; returns the edit.
QLineEdit* withBrowse(QLineEdit* edit, PathKind kind, const QString& filter = {});
// Positive integers separated by commas ("8,16,32"); empty on a bad list.
std::vector<int> positiveList(const QString& text);
// A field's text, nullopt when empty.
std::optional<std::string> given(const QString& text);
// A spin box's value, nullopt at its special "config's" / "none" value (the minimum).
std::optional<int> givenNumber(const QSpinBox* box);
// A path as the command gets it: absolute.
std::string absolutePath(const QString& path);

template <typename T> QString joinedNumbers(const std::vector<T>& values)
{
    QStringList texts;
    for (T v : values)
        texts << QString::number(v);
    return texts.join(QLatin1Char(','));
}

} // namespace pitwall::ui
