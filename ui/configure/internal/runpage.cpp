#include "ui/configure/internal/runpage.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <utility>

namespace pitwall::ui {

RunPage::RunPage(const RunKindInfo& info, QWidget* parent) : QWidget(parent), m_info(info)
{
    new QFormLayout(this);
}

bool RunPage::isCommandOf(const QStringList& words) const
{
    const QStringList command = QString::fromLatin1(m_info.command).split(QLatin1Char(' '));
    return words.mid(0, command.size()) == command;
}

void RunPage::addField(const QString& label, QWidget* field, const QString& tip, std::vector<std::string> specFields)
{
    auto* name = new QLabel(label, this);
    name->setToolTip(tip);
    field->setToolTip(tip);
    auto* problem = new QLabel(this);
    problem->setObjectName(field->objectName() + QStringLiteral("Problem"));
    problem->setWordWrap(true);
    problem->setStyleSheet(QStringLiteral("color: #d04040;"));
    problem->hide();
    auto* box = new QWidget(this);
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(1);
    // A field that came wrapped (with a browse button) is its wrapper's first child.
    column->addWidget(field->parentWidget() != this && field->parentWidget() ? field->parentWidget() : field);
    column->addWidget(problem);
    qobject_cast<QFormLayout*>(layout())->addRow(name, box);
    m_problemLabels[field] = problem;
    for (std::string& specField : specFields)
        m_fieldWidgets[std::move(specField)] = field;
}

void RunPage::addRow(const QString& label, QWidget* widget)
{
    auto* form = qobject_cast<QFormLayout*>(layout());
    if (label.isEmpty())
        form->addRow(widget);
    else
        form->addRow(label, widget);
}

QWidget* RunPage::fieldWidget(const std::string& field) const
{
    const auto found = m_fieldWidgets.find(field);
    return found == m_fieldWidgets.end() ? nullptr : found->second;
}

void RunPage::showProblem(QWidget* field, const QString& message)
{
    field->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border: 1px solid #d04040;"));
    if (const auto label = m_problemLabels.find(field); label != m_problemLabels.end()) {
        label->second->setText(message);
        label->second->setVisible(!message.isEmpty());
    }
}

void RunPage::clearProblems()
{
    for (const auto& [field, label] : m_problemLabels)
        showProblem(field, {});
}

QString RunPage::problemAt(const QString& fieldName) const
{
    for (const auto& [field, label] : m_problemLabels)
        if (field->objectName() == fieldName)
            return label->isVisible() ? label->text() : QString();
    return {};
}

QStringList RunPage::showProblems(const std::vector<JobProblem>& problems)
{
    QStringList placed;
    std::map<QWidget*, QStringList> messages;
    for (const JobProblem& p : problems)
        if (QWidget* field = fieldWidget(p.field)) {
            messages[field] << QString::fromStdString(p.message);
            if (!placed.contains(field->objectName()))
                placed << field->objectName();
        }
    for (const auto& [field, texts] : messages)
        showProblem(field, texts.join(QLatin1Char('\n')));
    return placed;
}

QStringList RunPage::check(const RunCheckContext& context)
{
    clearProblems();
    m_found.clear();
    checkFields(context);
    // What the job's spec refuses of the fields' values (seeds, batch sizes, ...), at the field it names.
    if (m_found.isEmpty()) {
        try {
            words({});
        } catch (const InputError& e) {
            const std::vector<JobProblem> refused = jobProblems(e, fields(), {});
            for (const JobProblem& p : refused)
                m_found << QString::fromStdString(p.message);
            showProblems(refused);
        }
    }
    return std::exchange(m_found, {});
}

void RunPage::checkFields(const RunCheckContext&)
{
}

void RunPage::fail(QWidget* field, const QString& problem)
{
    showProblem(field, problem);
    m_found << problem;
}

void RunPage::needPath(QLineEdit* edit, PathKind kind, const QString& what)
{
    const QString path = edit->text().trimmed();
    const QFileInfo info(path);
    const bool folder = kind == PathKind::Folder;
    if (path.isEmpty())
        fail(edit, tr("give %1").arg(what));
    else if (!info.exists())
        fail(edit, tr("%1 does not exist").arg(path));
    else if (folder != info.isDir())
        fail(edit, folder ? tr("%1 is not a folder").arg(path) : tr("%1 is a folder, not a file").arg(path));
}

QSpinBox* spinBox(QWidget* parent, const char* name, int min, int max, int value, const QString& special)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(QLatin1String(name));
    box->setRange(min, max);
    box->setValue(value);
    if (!special.isEmpty())
        box->setSpecialValueText(special);
    return box;
}

QComboBox* comboBox(QWidget* parent, const char* name, const QStringList& items)
{
    auto* box = new QComboBox(parent);
    box->setObjectName(QLatin1String(name));
    box->addItems(items);
    return box;
}

QLineEdit* lineEdit(QWidget* parent, const char* name, const QString& placeholder)
{
    auto* edit = new QLineEdit(parent);
    edit->setObjectName(QLatin1String(name));
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    return edit;
}

QLineEdit* withBrowse(QLineEdit* edit, PathKind kind, const QString& filter)
{
    auto* box = new QWidget(edit->parentWidget());
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    edit->setParent(box);
    row->addWidget(edit, 1);
    auto* browse = new QPushButton(QStringLiteral("…"), box);
    browse->setObjectName(edit->objectName() + QStringLiteral("Browse"));
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, kind, filter] {
        const QString path = kind == PathKind::Folder
                                 ? QFileDialog::getExistingDirectory(edit, QString(), edit->text())
                                 : QFileDialog::getOpenFileName(edit, QString(), edit->text(), filter);
        if (!path.isEmpty())
            edit->setText(path);
    });
    row->addWidget(browse);
    return edit;
}

std::vector<int> positiveList(const QString& text)
{
    std::vector<int> out;
    for (const QString& part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok || value < 1)
            return {};
        out.push_back(value);
    }
    return out;
}

std::optional<std::string> given(const QString& text)
{
    const QString trimmed = text.trimmed();
    return trimmed.isEmpty() ? std::nullopt : std::optional<std::string>(trimmed.toStdString());
}

std::optional<int> givenNumber(const QSpinBox* box)
{
    return box->specialValueText().isEmpty() || box->value() != box->minimum() ? std::optional<int>(box->value())
                                                                               : std::nullopt;
}

std::string absolutePath(const QString& path)
{
    return QFileInfo(path.trimmed()).absoluteFilePath().toStdString();
}

} // namespace pitwall::ui
