// Linked into every Qt Test executable of a sanitizer build (pitwall_add_test, when the flags say
// -fsanitize=address): before LeakSanitizer's check at exit, wait until Qt Test's watchdog thread has really ended.
//
// Why: Qt Test runs each test's functions under a watchdog QThread ("QtTest Watchdog"). qRun waits for it to
// finish, but its operating-system thread may still be running its thread-local destructors when main returns; the
// QThreadData it frees there (152 bytes, allocated in QThreadPrivate's constructor) can then be reachable from no
// scanned thread, and LeakSanitizer reports it as a direct leak from libQt6Core. That happened once in CI on a
// loaded machine (tst_drive_closedloop, stop 40). A suppression would have to name libQt6Core, which every test
// function's stack contains, and so would hide Pitwall's own leaks too; waiting for the thread hides nothing.
//
// The object below is constructed before main and destroyed after it, before LeakSanitizer's exit check (which
// the sanitizer runtime registered earlier, so it runs later). The wait is bounded: after 10 s it gives up and the
// check runs anyway.
#if defined(__SANITIZE_ADDRESS__)

#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

bool watchdogThreadAlive()
{
    DIR* tasks = opendir("/proc/self/task");
    if (!tasks)
        return false;
    bool alive = false;
    while (dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] == '.')
            continue;
        const std::string path = std::string("/proc/self/task/") + entry->d_name + "/comm";
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char name[64] = {};
        const ssize_t n = read(fd, name, sizeof name - 1);
        close(fd);
        if (n > 0 && std::strncmp(name, "QtTest Watchdog", 15) == 0) {
            alive = true;
            break;
        }
    }
    closedir(tasks);
    return alive;
}

struct WaitForQtTestWatchdog {
    ~WaitForQtTestWatchdog()
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (watchdogThreadAlive() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
} waitForQtTestWatchdog;

} // namespace

#endif
