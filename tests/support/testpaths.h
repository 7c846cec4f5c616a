// The paths of tests/support/testenv.h as QStrings, for the Qt Test executables.
#pragma once

#include "tests/support/testenv.h"

#include <QString>

namespace pitwall::test {

// A file of the checkout: `relative` starts with '/' ("/configs/transfuser/smoke.yaml"), or is empty for the root.
inline QString sourcePath(const QString& relative = {})
{
    return QString::fromStdString(environmentPath("PITWALL_SOURCE_DIR")) + relative;
}

// A file of the build folder (the top of the build tree: bin/, lib/, tests/).
inline QString binaryPath(const QString& relative = {})
{
    return QString::fromStdString(environmentPath("PITWALL_BINARY_DIR")) + relative;
}

// The `pitwall` executable of the build under test.
inline QString cliPath() { return QString::fromStdString(environmentPath("PITWALL_CLI")); }

// The `pitwall-gui` executable (set for the tests that start the window as a process).
inline QString guiPath() { return QString::fromStdString(environmentPath("PITWALL_GUI")); }

// Any other path CTest set for this test (a helper executable, a folder of test plugins).
inline QString pathFromEnvironment(const char* name) { return QString::fromStdString(environmentPath(name)); }

} // namespace pitwall::test
