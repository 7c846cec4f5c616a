#pragma once
// Export of what the views show: any table model to CSV (core's csvRow: RFC 4180, formulas guarded), any
// widget (charts included) to PNG, and the right-click menus that offer it. GUI thread only.

#include <QString>

class QAbstractItemModel;
class QAbstractItemView;
class QWidget;

namespace pitwall::ui {

// Visible columns and rows with their header texts. Returns "" or what went wrong.
QString writeCsv(const QAbstractItemModel& model, const QString& path);
QString tableToCsv(const QAbstractItemModel& model);
// Renders the widget at its current size. Returns "" or what went wrong.
QString writePng(QWidget& widget, const QString& path);

// Adds "Export as CSV…" to a table's context menu (the view's name is the file name proposed).
void addCsvExportMenu(QAbstractItemView* view);
// Adds "Save as PNG…" to any widget's context menu.
void addPngExportMenu(QWidget* widget);

// Asks for a file and exports (CSV for item views, PNG otherwise); errors go to a message box.
void exportInteractively(QWidget* target);

} // namespace pitwall::ui
