#include "ui/studiesview.h"


#include <QHeaderView>

namespace pitwall::ui {

StudiesView::StudiesView(QWidget* parent) : QTreeWidget(parent)
{
    setObjectName("studiesView");
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setHeaderLabels({tr("Study"), tr("Best"), tr("Done"), tr("Run"), tr("Pruned"), tr("Failed")});
    header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < columnCount(); ++c)
        header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
        const QString name = selectedStudy();
        if (!name.isEmpty())
            Q_EMIT studySelected(name);
    });
}

QString StudiesView::selectedStudy() const
{
    const auto items = selectedItems();
    return items.isEmpty() ? QString() : items.first()->text(0);
}

void StudiesView::showSnapshot(const StoreSnapshot& snapshot)
{
    const QString keep = selectedStudy();
    const QSignalBlocker blocker(this);
    clear();
    for (const StudySummary& s : snapshot.studies) {
        auto* item = new QTreeWidgetItem(this);
        item->setText(0, QString::fromStdString(s.study.name));
        item->setText(1, s.bestValue ? QString::number(*s.bestValue, 'g', 6) : QStringLiteral("–"));
        item->setText(2, QString::number(s.complete));
        item->setText(3, QString::number(s.running));
        item->setText(4, QString::number(s.pruned));
        item->setText(5, QString::number(s.failed));
        const QString direction = s.study.directions.empty() || s.study.directions[0] == StudyDirection::Minimize
                                      ? tr("minimize")
                                      : tr("maximize");
        item->setToolTip(0, tr("%1 trials, %2").arg(s.total()).arg(direction));
        for (int c = 1; c < columnCount(); ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (item->text(0) == keep)
            item->setSelected(true);
    }
}

} // namespace pitwall::ui
