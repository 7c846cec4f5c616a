// The precompiled header shared by the Qt Test executables that do not link the window (pitwall_add_test,
// cmake/PitwallHelpers.cmake): Qt Test and what most tests include, parsed once per build instead of once per test.
// Each test still includes what it uses.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
