#pragma once
// Export of what the views show: any table model to CSV (core's csvRow: RFC 4180, formulas guarded), any
// widget (charts included) to PNG, charts to SVG and PDF (vector: they scale without blur) and their data to
// CSV, and the right-click menus that offer it. GUI thread only.

#include <QString>
#include <QStringList>

class QAbstractItemModel;
class QAbstractItemView;
class QWidget;

namespace pitwall::ui {

// Visible columns and rows with their header texts. Returns "" or what went wrong.
QString writeCsv(const QAbstractItemModel& model, const QString& path);
QString tableToCsv(const QAbstractItemModel& model);
// One CSV record (with its line end) of the cells: quoted and formula-guarded.
QString csvRecord(const QStringList& cells);
// Renders the widget at its current size. Returns "" or what went wrong.
QString writePng(QWidget& widget, const QString& path);
// Renders the widget as vector graphics at its current size (a QGraphicsView, such as a chart, renders its
// scene: lines, text and markers stay vectors). Returns "" or what went wrong.
QString writeSvg(QWidget& widget, const QString& path);
QString writePdf(QWidget& widget, const QString& path);
// Writes text (UTF-8) through a temporary file renamed over `path`. Returns "" or what went wrong.
QString writeText(const QString& text, const QString& path);

// Adds "Export as CSV…" to a table's context menu (the view's name is the file name proposed).
void addCsvExportMenu(QAbstractItemView* view);
// Adds "Save as PNG, SVG or PDF…" to any widget's context menu (exportInteractively).
void addPngExportMenu(QWidget* widget);

// Asks for a file and exports: item views as CSV; other widgets as PNG, SVG or PDF by the file's suffix (the
// dialog offers each), charts with a "dataCsv" (ChartView) also their data as CSV. Errors go to a message box.
void exportInteractively(QWidget* target);

} // namespace pitwall::ui
