#include "ui/exporting.h"

#include "core/util/strings.h"

#include <QAbstractItemView>
#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QPixmap>
#include <QSaveFile>
#include <QTableView>
#include <QTreeView>

namespace pitwall::ui {

namespace {
// The cells as one CSV record, quoted and formula-guarded by core's csvRow.
QString csvRecord(const QStringList& cells)
{
    std::vector<std::string> texts;
    for (const QString& cell : cells)
        texts.push_back(cell.toStdString());
    return QString::fromStdString(csvRow(texts));
}

QString proposedName(const QWidget* widget, const char* suffix)
{
    QString name = widget->objectName();
    if (name.isEmpty())
        name = QStringLiteral("export");
    return name + QLatin1String(suffix);
}
} // namespace

QString tableToCsv(const QAbstractItemModel& model)
{
    QStringList header;
    for (int c = 0; c < model.columnCount(); ++c)
        header << model.headerData(c, Qt::Horizontal).toString();
    QString out = csvRecord(header);
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data(Qt::DisplayRole).toString();
        out += csvRecord(cells);
    }
    return out;
}

QString writeCsv(const QAbstractItemModel& model, const QString& path)
{
    QSaveFile file(path); // written beside, then renamed over: a full disk leaves the old file and says so
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    file.write(tableToCsv(model).toUtf8());
    if (!file.commit())
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString writePng(QWidget& widget, const QString& path)
{
    const QPixmap pixmap = widget.grab();
    if (pixmap.isNull())
        return QObject::tr("nothing to render");
    return pixmap.save(path, "PNG") ? QString() : QObject::tr("cannot write %1").arg(path);
}

void exportInteractively(QWidget* target)
{
    auto* view = qobject_cast<QAbstractItemView*>(target);
    QString error;
    if (view && view->model()) {
        const QString path = QFileDialog::getSaveFileName(target, QObject::tr("Export table as CSV"),
                                                          proposedName(target, ".csv"), QObject::tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        error = writeCsv(*view->model(), path);
    } else {
        const QString path = QFileDialog::getSaveFileName(target, QObject::tr("Save as PNG"),
                                                          proposedName(target, ".png"), QObject::tr("PNG (*.png)"));
        if (path.isEmpty())
            return;
        error = writePng(*target, path);
    }
    if (!error.isEmpty())
        QMessageBox::warning(target, QObject::tr("Export"), error);
}

void addCsvExportMenu(QAbstractItemView* view)
{
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* action = new QAction(QObject::tr("Export as CSV…"), view);
    QObject::connect(action, &QAction::triggered, view, [view] { exportInteractively(view); });
    view->addAction(action);
    view->setProperty("pitwallExport", true);
}

void addPngExportMenu(QWidget* widget)
{
    widget->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* action = new QAction(QObject::tr("Save as PNG…"), widget);
    QObject::connect(action, &QAction::triggered, widget, [widget] { exportInteractively(widget); });
    widget->addAction(action);
    widget->setProperty("pitwallExport", true);
}

} // namespace pitwall::ui
