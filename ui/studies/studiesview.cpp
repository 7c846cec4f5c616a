#include "ui/studies/studiesview.h"

#include "ui/exporting.h"

#include <QHeaderView>

namespace pitwall::ui {

namespace {
QString kindOf(const StudyRecord& study)
{
    if (study.systemAttrs.contains("pitwall:kind") && study.systemAttrs["pitwall:kind"].is_string())
        return QString::fromStdString(study.systemAttrs["pitwall:kind"].get<std::string>());
    if (study.systemAttrs.contains("pitwall:sampler"))
        return QStringLiteral("hpo");
    return QStringLiteral("–");
}

QString stateOf(const StudySummary& s)
{
    if (s.running > 0)
        return QObject::tr("running");
    if (s.waiting > 0)
        return QObject::tr("waiting");
    if (s.total() == 0)
        return QObject::tr("empty");
    return QObject::tr("finished");
}
} // namespace

StudiesView::StudiesView(QWidget* parent) : QTreeWidget(parent)
{
    setObjectName("studiesView");
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setHeaderLabels(
        {tr("Study"), tr("Kind"), tr("State"), tr("Best"), tr("Done"), tr("Run"), tr("Pruned"), tr("Failed")});
    header()->setStretchLastSection(false);
    for (int c = 0; c < columnCount(); ++c)
        header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    addCsvExportMenu(this);
    connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
        const QString name = selectedStudy();
        if (!name.isEmpty())
            Q_EMIT studySelected(name);
    });
}

QString StudiesView::selectedStudy() const
{
    const auto items = selectedItems();
    return items.isEmpty() ? QString() : items.first()->text(kName);
}

bool StudiesView::selectStudy(const QString& name)
{
    for (int i = 0; i < topLevelItemCount(); ++i)
        if (topLevelItem(i)->text(kName) == name) {
            setCurrentItem(topLevelItem(i));
            topLevelItem(i)->setSelected(true);
            return true;
        }
    return false;
}

void StudiesView::setFilter(const QString& text)
{
    m_filter = text.trimmed();
    for (int i = 0; i < topLevelItemCount(); ++i)
        topLevelItem(i)->setHidden(!m_filter.isEmpty() &&
                                   !topLevelItem(i)->text(kName).contains(m_filter, Qt::CaseInsensitive));
}

int StudiesView::visibleCount() const
{
    int n = 0;
    for (int i = 0; i < topLevelItemCount(); ++i)
        n += topLevelItem(i)->isHidden() ? 0 : 1;
    return n;
}

void StudiesView::showSnapshot(const StoreSnapshot& snapshot)
{
    const QString keep = selectedStudy().isEmpty() ? snapshot.focusStudy : selectedStudy();
    const QSignalBlocker blocker(this);
    clear();
    for (const StudySummary& s : snapshot.studies) {
        auto* item = new QTreeWidgetItem(this);
        item->setText(kName, QString::fromStdString(s.study.name));
        item->setText(kKind, kindOf(s.study));
        item->setText(kState, stateOf(s));
        item->setText(kBest, s.bestValue ? QString::number(*s.bestValue, 'g', 6) : QStringLiteral("–"));
        item->setText(kComplete, QString::number(s.complete));
        item->setText(kRunning, QString::number(s.running));
        item->setText(kPruned, QString::number(s.pruned));
        item->setText(kFailed, QString::number(s.failed));
        const QString direction = s.study.directions.empty() || s.study.directions[0] == StudyDirection::Minimize
                                      ? tr("minimize")
                                      : tr("maximize");
        item->setToolTip(kName,
                         tr("%1 trials, %2%3")
                             .arg(s.total())
                             .arg(direction)
                             .arg(s.bestTrialNumber ? tr(", best trial #%1").arg(*s.bestTrialNumber) : QString()));
        for (int c = kBest; c < columnCount(); ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (item->text(kName) == keep) {
            item->setSelected(true);
            setCurrentItem(item);
        }
    }
    setFilter(m_filter);
}

} // namespace pitwall::ui
