#include "ui/configure/internal/searchspaceeditor.h"

#include "core/hpo/searchspace.h"
#include "ui/exporting.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pitwall::ui {

namespace {
enum Column { kName, kType, kMin, kMax, kStep, kValues, kColumns };
}

SearchSpaceEditor::SearchSpaceEditor(const Schema* schema, QWidget* parent) : QWidget(parent), m_schema(schema)
{
    setObjectName("searchSpaceEditor");
    m_table = new QTableWidget(0, kColumns, this);
    m_table->setObjectName("searchSpace");
    m_table->setHorizontalHeaderLabels(
        {tr("Parameter"), tr("Type"), tr("Min"), tr("Max"), tr("Step"), tr("Values / fixed value")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setVisible(false);
    addCsvExportMenu(m_table);
    connect(m_table, &QTableWidget::itemChanged, this, [this] {
        if (!m_filling) {
            recheck();
            Q_EMIT changed();
        }
    });

    auto* add = new QPushButton(tr("&Add"), this);
    auto* remove = new QPushButton(tr("&Remove"), this);
    auto* load = new QPushButton(tr("&Load…"), this);
    auto* save = new QPushButton(tr("Sa&ve…"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        addRow(SpaceRow{QStringLiteral("param%1").arg(m_table->rowCount() + 1),
                        QStringLiteral("uniform"),
                        QStringLiteral("0.0"),
                        QStringLiteral("1.0"),
                        {},
                        {},
                        {}});
        recheck();
        Q_EMIT changed();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row >= 0)
            m_table->removeRow(row);
        recheck();
        Q_EMIT changed();
    });
    connect(load, &QPushButton::clicked, this, &SearchSpaceEditor::chooseAndLoad);
    connect(save, &QPushButton::clicked, this, &SearchSpaceEditor::chooseAndSave);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    buttons->addWidget(load);
    buttons->addWidget(save);

    m_fileLabel = new QLabel(tr("Unsaved search space"), this);
    m_problems = new QLabel(this);
    m_problems->setObjectName("searchSpaceProblems");
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_fileLabel);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_problems);
    layout->addLayout(buttons);
}

void SearchSpaceEditor::setModel(const QString& owner)
{
    m_model = owner;
    recheck();
}

void SearchSpaceEditor::addRow(const SpaceRow& row)
{
    const bool filling = m_filling;
    m_filling = true;
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    m_table->setItem(r, kName, new QTableWidgetItem(row.name));
    auto* type = new QComboBox(m_table);
    type->addItems(spaceTypes());
    if (!spaceTypes().contains(row.type))
        type->addItem(row.type);
    type->setCurrentText(row.type);
    auto* item = new QTableWidgetItem(row.type); // the text behind the combo (for CSV export and rows())
    m_table->setItem(r, kType, item);
    connect(type, &QComboBox::currentTextChanged, this, [this, type](const QString& text) {
        for (int i = 0; i < m_table->rowCount(); ++i)
            if (m_table->cellWidget(i, kType) == type)
                m_table->item(i, kType)->setText(text);
    });
    m_table->setCellWidget(r, kType, type);
    m_table->setItem(r, kMin, new QTableWidgetItem(row.min));
    m_table->setItem(r, kMax, new QTableWidgetItem(row.max));
    m_table->setItem(r, kStep, new QTableWidgetItem(row.step));
    m_table->setItem(r, kValues, new QTableWidgetItem(row.values));
    QStringList extra; // fields the table has no column for, written back as read
    for (const auto& [key, value] : row.extra)
        extra << key + QLatin1Char('\x1f') + value;
    m_table->item(r, kName)->setData(Qt::UserRole, extra);
    m_filling = filling;
}

void SearchSpaceEditor::setRows(const std::vector<SpaceRow>& rows)
{
    m_filling = true;
    m_table->setRowCount(0);
    for (const SpaceRow& row : rows)
        addRow(row);
    m_filling = false;
    m_table->resizeColumnsToContents();
    recheck();
    Q_EMIT changed();
}

std::vector<SpaceRow> SearchSpaceEditor::rows() const
{
    std::vector<SpaceRow> out;
    auto text = [this](int r, int c) { return m_table->item(r, c) ? m_table->item(r, c)->text() : QString(); };
    for (int r = 0; r < m_table->rowCount(); ++r) {
        SpaceRow row{text(r, kName).trimmed(),
                     text(r, kType),
                     text(r, kMin),
                     text(r, kMax),
                     text(r, kStep),
                     text(r, kValues),
                     {}};
        if (m_table->item(r, kName))
            for (const QString& pair : m_table->item(r, kName)->data(Qt::UserRole).toStringList())
                row.extra.append({pair.section(QLatin1Char('\x1f'), 0, 0), pair.section(QLatin1Char('\x1f'), 1)});
        out.push_back(row);
    }
    return out;
}

QString SearchSpaceEditor::toYaml() const
{
    return spaceToYaml(rows());
}

QString SearchSpaceEditor::setYaml(const QString& text)
{
    std::vector<SpaceRow> parsed;
    QString error;
    if (!parseSpaceYaml(text, parsed, error))
        return error;
    setRows(parsed);
    return {};
}

QString SearchSpaceEditor::load(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return tr("cannot read %1: %2").arg(path, file.errorString());
    const QString error = setYaml(QString::fromUtf8(file.readAll()));
    if (!error.isEmpty())
        return path + QLatin1Char(':') + error;
    m_path = path;
    m_fileLabel->setText(QFileInfo(path).absoluteFilePath());
    return {};
}

QString SearchSpaceEditor::save(const QString& path)
{
    QSaveFile file(path); // written beside, then renamed over: a full disk leaves the old file and says so
    if (!file.open(QIODevice::WriteOnly))
        return tr("cannot write %1: %2").arg(path, file.errorString());
    file.write(toYaml().toUtf8());
    if (!file.commit())
        return tr("cannot write %1: %2").arg(path, file.errorString());
    m_path = path;
    m_fileLabel->setText(QFileInfo(path).absoluteFilePath());
    return {};
}

QString SearchSpaceEditor::problems() const
{
    return m_problems->text();
}

void SearchSpaceEditor::recheck()
{
    QStringList problems;
    const bool filling = m_filling;
    m_filling = true;
    const auto all = rows();
    for (int r = 0; r < static_cast<int>(all.size()); ++r) {
        const QString problem = checkSpaceRow(all[static_cast<std::size_t>(r)]);
        for (int c = 0; c < kColumns; ++c)
            if (QTableWidgetItem* item = m_table->item(r, c)) {
                item->setToolTip(problem);
                item->setForeground(problem.isEmpty() ? QBrush() : QBrush(QColor(0xd0, 0x40, 0x40)));
            }
        if (!problem.isEmpty())
            problems << tr("%1: %2").arg(all[static_cast<std::size_t>(r)].name, problem);
    }
    if (problems.isEmpty() && m_schema && !all.empty()) {
        try {
            const auto space = SearchSpace::parse(toYaml().toStdString(), "search space", *m_schema,
                                                  ownerSections(*m_schema, m_model.toStdString()));
            int searched = 0;
            for (const SpaceParam& p : space.params())
                searched += p.searched() ? 1 : 0;
            m_problems->setStyleSheet(QString());
            const int fixed = static_cast<int>(space.params().size()) - searched;
            m_problems->setText(tr("Parameters: %1 searched, %2 fixed; names resolve in %3's keys.")
                                    .arg(searched)
                                    .arg(fixed)
                                    .arg(m_model));
            m_filling = filling;
            m_hasProblems = false;
            return;
        } catch (const std::exception& e) {
            problems << QString::fromStdString(e.what());
        }
    }
    m_problems->setStyleSheet(problems.isEmpty() ? QString() : QStringLiteral("color: #d04040;"));
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_hasProblems = !problems.isEmpty();
    m_filling = filling;
}

void SearchSpaceEditor::chooseAndLoad()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load search space"), m_path, tr("YAML (*.yaml *.yml)"));
    if (path.isEmpty())
        return;
    const QString error = load(path);
    if (!error.isEmpty()) {
        m_problems->setStyleSheet(QStringLiteral("color: #d04040;"));
        m_problems->setText(error);
    }
}

void SearchSpaceEditor::chooseAndSave()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save search space"), m_path, tr("YAML (*.yaml *.yml)"));
    if (path.isEmpty())
        return;
    const QString error = save(path);
    if (!error.isEmpty()) {
        m_problems->setStyleSheet(QStringLiteral("color: #d04040;"));
        m_problems->setText(error);
    }
}

} // namespace pitwall::ui
