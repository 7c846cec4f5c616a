#include "ui/exporting.h"

#include "core/util/strings.h"

#include <QAbstractItemView>
#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTemporaryFile>
#include <QMessageBox>
#include <QPixmap>
#include <QSaveFile>
#include <QTableView>
#include <QTreeView>

namespace pitwall::ui {

QString csvRecord(const QStringList& cells)
{
    std::vector<std::string> texts;
    for (const QString& cell : cells)
        texts.push_back(cell.toStdString());
    return QString::fromStdString(csvRow(texts));
}

namespace {
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
        header << model.headerData(c, Qt::Horizontal).toString().replace(QLatin1Char('\n'), QLatin1Char(' '));
    QString out = csvRecord(header);
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data(Qt::DisplayRole).toString();
        out += csvRecord(cells);
    }
    return out;
}

QString writeText(const QString& text, const QString& path)
{
    QSaveFile file(path); // written beside, then renamed over: a full disk leaves the old file and says so
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    file.write(text.toUtf8());
    if (!file.commit())
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString writeCsv(const QAbstractItemModel& model, const QString& path)
{
    return writeText(tableToCsv(model), path);
}

namespace {
// Paints the widget on a vector device: a graphics view's scene through QGraphicsView::render (vectors), any
// other widget through QWidget::render.
void renderVector(QWidget& widget, QPainter& painter)
{
    if (auto* view = qobject_cast<QGraphicsView*>(&widget))
        view->render(&painter, QRectF(0, 0, widget.width(), widget.height()), widget.rect());
    else
        widget.render(&painter);
}

// A file written beside `path` by `write` and renamed over it when `write` succeeded.
template <typename Write>
QString writeBeside(const QString& path, Write write)
{
    QTemporaryFile temp(QFileInfo(path).absoluteFilePath() + QStringLiteral(".XXXXXX"));
    if (!temp.open())
        return QObject::tr("cannot write %1: %2").arg(path, temp.errorString());
    temp.close();
    if (!write(temp.fileName()))
        return QObject::tr("cannot write %1").arg(path);
    QFile::remove(path);
    if (!temp.rename(path))
        return QObject::tr("cannot write %1: %2").arg(path, temp.errorString());
    temp.setAutoRemove(false);
    return {};
}
} // namespace

QString writeSvg(QWidget& widget, const QString& path)
{
    return writeBeside(path, [&widget](const QString& file) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(widget.size());
        svg.setViewBox(QRect(QPoint(0, 0), widget.size()));
        svg.setTitle(widget.objectName());
        svg.setDescription(QStringLiteral("Pitwall chart"));
        QPainter painter;
        if (!painter.begin(&svg))
            return false;
        renderVector(widget, painter);
        return painter.end();
    });
}

QString writePdf(QWidget& widget, const QString& path)
{
    return writeBeside(path, [&widget](const QString& file) {
        QPdfWriter pdf(file);
        pdf.setTitle(widget.objectName());
        pdf.setCreator(QStringLiteral("Pitwall"));
        // One page the widget's size (at 96 dpi), no margins.
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(widget.width(), widget.height()) * 72.0 / 96.0, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf))
            return false;
        renderVector(widget, painter);
        return painter.end();
    });
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
        // The format by the chosen filter, or by the suffix typed.
        const bool hasData = target->metaObject()->indexOfMethod("dataCsv()") >= 0;
        QStringList filters{QObject::tr("PNG image (*.png)"), QObject::tr("SVG drawing (*.svg)"),
                            QObject::tr("PDF document (*.pdf)")};
        if (hasData)
            filters << QObject::tr("Chart data as CSV (*.csv)");
        QString filter = filters.first();
        const QString path = QFileDialog::getSaveFileName(target, QObject::tr("Export chart"), proposedName(target, ".png"),
                                                          filters.join(QStringLiteral(";;")), &filter);
        if (path.isEmpty())
            return;
        QString suffix = QFileInfo(path).suffix().toLower();
        if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") && suffix != QLatin1String("pdf") &&
            suffix != QLatin1String("csv"))
            suffix = filter.section(QStringLiteral("*."), 1).left(3);
        if (suffix == QLatin1String("svg"))
            error = writeSvg(*target, path);
        else if (suffix == QLatin1String("pdf"))
            error = writePdf(*target, path);
        else if (suffix == QLatin1String("csv") && hasData) {
            QString csv;
            QMetaObject::invokeMethod(target, "dataCsv", Qt::DirectConnection, Q_RETURN_ARG(QString, csv));
            error = writeText(csv, path);
        } else
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
    auto* action = new QAction(QObject::tr("Save as PNG, SVG or PDF…"), widget);
    QObject::connect(action, &QAction::triggered, widget, [widget] { exportInteractively(widget); });
    widget->addAction(action);
    widget->setProperty("pitwallExport", true);
}

} // namespace pitwall::ui
