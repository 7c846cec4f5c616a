// The precompiled header of pitwall_ui (cmake/PitwallHelpers.cmake, pitwall_pch): the Qt Widgets and Qt Charts
// headers most views include and the standard library, parsed once per build. Nothing of Pitwall's own is here;
// every source still includes what it uses (PITWALL_PCH=OFF builds the same code without it).
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSplitter>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QWidget>
