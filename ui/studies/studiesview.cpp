#include "ui/studies/studiesview.h"
#include "ui/study/studymath.h"

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
        {tr("Study"), tr("Kind"), tr("State"), tr("Best"), tr("Done"), tr("Run"), tr("Pruned"), tr("Failed"),
         tr("Interrupted")});
    headerItem()->setToolTip(kFailed, tr("Trials that failed by their own fault (a crash, bad output)"));
    headerItem()->setToolTip(kInterrupted, tr("Trials stopped or lost (not their fault): not counted against a search's "
                                              "target, run again on resume"));
    header()->setStretchLastSection(false);
    for (int c = 0; c < columnCount(); ++c)
        header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(kName, QHeaderView::Interactive);
    setTextElideMode(Qt::ElideMiddle);
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
        const bool several = s.study.directions.size() > 1;
        if (several) // no single best: the size of the Pareto front
            item->setText(kBest, s.paretoSize ? tr("front %1").arg(*s.paretoSize) : QStringLiteral("–"));
        else
            item->setText(kBest, s.bestValue ? QString::number(*s.bestValue, 'g', 6) : QStringLiteral("–"));
        item->setText(kComplete, QString::number(s.complete));
        item->setText(kRunning, QString::number(s.running));
        item->setText(kPruned, QString::number(s.pruned));
        item->setText(kFailed, QString::number(s.failures()));
        item->setText(kInterrupted, QString::number(s.interrupted));
        const QString objectives =
            describeObjectives(s.study.directions, objectiveNames(s.study), several ? s.paretoSize : std::nullopt);
        item->setToolTip(kName, tr("%1\n%2 · %3 · %4 trials, %5%6")
                                    .arg(item->text(kName), item->text(kKind), item->text(kState))
                                    .arg(s.total())
                                    .arg(objectives)
                                    .arg(!several && s.bestTrialNumber ? tr(", best trial #%1").arg(*s.bestTrialNumber)
                                                                       : QString()));
        item->setToolTip(kBest, several ? tr("Trials on the Pareto front (%1)").arg(objectives)
                                        : tr("Best value (%1)").arg(objectives));
        for (int c = kBest; c < columnCount(); ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (item->text(kName) == keep) {
            item->setSelected(true);
            setCurrentItem(item);
        }
    }
    setFilter(m_filter);
    fitNameColumn();
}

void StudiesView::fitNameColumn()
{
    int longest = header()->fontMetrics().horizontalAdvance(headerItem()->text(kName)) + 24;
    for (int i = 0; i < topLevelItemCount(); ++i)
        longest = std::max(longest, fontMetrics().horizontalAdvance(topLevelItem(i)->text(kName)) + 16);
    const int shortest = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 12;
    const auto width = [this](int c) { return std::max(header()->sectionSizeHint(c), sizeHintForColumn(c)); };
    // A narrow side bar (1024 px screens) drops Kind, then State (both stay in the name's tooltip), before Best
    // and Done would leave the viewport.
    int others = width(kBest) + width(kComplete);
    const bool showState = viewport()->width() - others - width(kState) - 4 >= shortest;
    others += showState ? width(kState) : 0;
    const bool showKind = showState && viewport()->width() - others - width(kKind) - 4 >= shortest;
    others += showKind ? width(kKind) : 0;
    setColumnHidden(kState, !showState);
    setColumnHidden(kKind, !showKind);
    // A few pixels to spare: the other columns fit their contents again after this, by a pixel or two.
    const int room = viewport()->width() - others - 4;
    // Below 12 characters only when Best and Done would not fit otherwise (6 at the least).
    header()->resizeSection(kName, std::max(std::min(longest, room), std::min(shortest, std::max(room, shortest / 2))));
}

void StudiesView::resizeEvent(QResizeEvent* event)
{
    QTreeWidget::resizeEvent(event);
    fitNameColumn();
}

} // namespace pitwall::ui
