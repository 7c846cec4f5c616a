#pragma once
// The page the window shows while no results database is open: what Pitwall is in a line, New database…,
// Open database…, Run the demo, and the recent databases (a click opens one). It only asks; MainWindow does
// (ui/mainwindow_start.cpp).

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace pitwall::ui {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);

    // The recent databases, newest first; those that no longer exist are listed greyed and cannot be opened.
    void setRecent(const QStringList& files);
    // A line above the buttons: why the page is shown (no pitwall.db here, a file that could not be opened).
    void setMessage(const QString& text, bool error);
    QString message() const;

Q_SIGNALS:
    void newRequested();
    void openRequested();
    void demoRequested();
    void recentChosen(const QString& file);

private:
    QLabel* m_message = nullptr;
    QListWidget* m_recent = nullptr;
    QLabel* m_recentTitle = nullptr;
};

} // namespace pitwall::ui
