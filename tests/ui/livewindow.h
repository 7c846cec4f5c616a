#pragma once
// The main window showing the Live view over the results database `db`, as the live tests open it.

#include "ui/mainwindow.h"

#include <QtTest>

namespace livetest {

// Shows `window` on the Live view of `db` and waits until the view is ready (a test failure if it never is).
inline void showLiveView(pitwall::ui::MainWindow& window, const QString& db)
{
    window.resize(1200, 760);
    window.showView(pitwall::ui::View::Live);
    window.show();
    window.openDatabase(db);
    QTRY_VERIFY(window.viewReady(pitwall::ui::View::Live));
}

} // namespace livetest
