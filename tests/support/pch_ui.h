// The precompiled header shared by the window's Qt Test executables (pitwall_add_test with Pitwall::Ui,
// cmake/PitwallHelpers.cmake): Qt Test, Qt Widgets and Qt Charts headers, parsed once per build. Each test still
// includes what it uses.
#pragma once

#include "tests/support/pch_core.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTreeWidget>
