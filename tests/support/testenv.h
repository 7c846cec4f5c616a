// Where a test finds the checkout, the build folder and the executables it runs. CTest sets these in each test's
// environment (pitwall_add_test, cmake/PitwallHelpers.cmake: PITWALL_SOURCE_DIR, PITWALL_BINARY_DIR, PITWALL_CLI,
// and for some tests PITWALL_GUI or a helper executable's path). They are read at run time and never compiled in, so
// a clone of the repository in another folder compiles the very same test objects and gets them from ccache.
// Started by hand, a test executable needs them too: run it through `ctest -R NAME`, or export them; a missing one
// ends the test at once with exit status 2 and a message naming it. Plain C++ (the fuzz targets use it without Qt).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace pitwall::test {

// The value of the environment variable `name`, which CTest set for this test.
inline std::string environmentPath(const char* name)
{
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        std::fprintf(stderr,
                     "%s is not set: run this test through CTest (ctest -R <test> in the build folder), which sets it, "
                     "or export it\n",
                     name);
        std::exit(2);
    }
    return value;
}

// A file of the checkout: `relative` starts with '/' ("/configs/transfuser/smoke.yaml"), or is empty for the root.
inline std::string sourceFile(std::string_view relative = {})
{
    return environmentPath("PITWALL_SOURCE_DIR") + std::string(relative);
}

} // namespace pitwall::test
