#include "ui/configure/runoptions.h"

#include "ui/configure/internal/runpages.h"
#include "ui/configure/internal/runpicker.h"

#include <QComboBox>
#include <QFormLayout>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace pitwall::ui {

QStringList toQt(const std::vector<std::string>& words)
{
    QStringList out;
    for (const std::string& w : words)
        out << QString::fromStdString(w);
    return out;
}

std::vector<std::string> fromQt(const QStringList& words)
{
    std::vector<std::string> out;
    for (const QString& w : words)
        out.push_back(w.toStdString());
    return out;
}

RunOptions::RunOptions(const Schema* schema, QWidget* parent) : QWidget(parent)
{
    setObjectName("runOptions");
    m_kind = new QComboBox(this);
    m_kind->setObjectName("whatToRun");
    m_stack = new QStackedWidget(this);
    auto* train = new TrainPage(this);
    m_search = new SearchPage(schema, this);
    m_variants = new VariantsPage(this);
    auto* partitions = new PartitionsPage(this);
    m_driving = new DrivingPage(this);
    m_pages = {train, m_search, m_variants, partitions, m_driving, new LoaderPage(this)};
    for (RunPage* page : m_pages) {
        m_kind->addItem(page->label(), static_cast<int>(page->kind()));
        m_stack->addWidget(page);
    }
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_stack->setCurrentIndex(index);
        for (RunPage* page : m_pages)
            page->clearProblems();
        page()->selected();
        Q_EMIT kindChanged();
    });

    auto* top = new QFormLayout;
    top->addRow(tr("What to run"), m_kind);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_stack);
    layout->addStretch(1);
}

RunPage* RunOptions::page() const
{
    return m_pages[static_cast<std::size_t>(std::max(0, m_kind->currentIndex()))];
}

RunKind RunOptions::kind() const
{
    return page()->kind();
}

void RunOptions::setKind(RunKind kind)
{
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(kind)));
}

bool RunOptions::checkedByCli() const
{
    return page()->checkedByCli();
}

void RunOptions::setModel(const QString& model)
{
    m_search->setModel(model);
}

void RunOptions::setPartition(const QString& mode, int logicalDevices)
{
    m_search->setPartition(mode, logicalDevices);
}

QString RunOptions::spaceFile() const
{
    return m_search->spaceFile();
}

void RunOptions::setVariantsFile(const QString& path)
{
    m_variants->setFile(path);
    setKind(RunKind::Variants);
}

void RunOptions::setDatabase(const QString& location)
{
    m_driving->runPicker()->setDatabase(location);
}

RunPicker* RunOptions::runPicker() const
{
    return m_driving->runPicker();
}

QStringList RunOptions::check(const QString& spaceProblems)
{
    for (RunPage* page : m_pages)
        page->clearProblems();
    return page()->check({spaceProblems});
}

QStringList RunOptions::words(const RunContext& context) const
{
    return toQt(page()->words(context));
}

bool RunOptions::loadWords(const QStringList& words, QStringList& configFiles, QStringList& overrides, QString& error)
{
    const auto found =
        std::find_if(m_pages.begin(), m_pages.end(), [&](const RunPage* page) { return page->isCommandOf(words); });
    if (found == m_pages.end()) {
        error = tr("'%1' is not a command the Configure view starts").arg(words.join(QLatin1Char(' ')));
        return false;
    }
    try {
        (*found)->setFromWords(fromQt(words), configFiles, overrides);
    } catch (const InputError& e) {
        error = QString::fromStdString(e.what());
        return false;
    }
    setKind((*found)->kind());
    return true;
}

QString RunOptions::problemAt(const QString& fieldName) const
{
    for (const RunPage* page : m_pages)
        if (const QString problem = page->problemAt(fieldName); !problem.isEmpty())
            return problem;
    return {};
}

QStringList RunOptions::showProblems(const std::vector<JobProblem>& problems)
{
    return page()->showProblems(problems);
}

} // namespace pitwall::ui
