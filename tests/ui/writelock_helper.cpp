// pitwall_ui_write_lock DB MILLISECONDS: another process that holds the database's write lock, as a worker
// committing a large batch would: BEGIN IMMEDIATE (in WAL mode, the lock every writer takes), then it sleeps
// MILLISECONDS and commits. Prints "locked" (flushed) once it holds the lock and "released" after the commit;
// exits 1 when it cannot take the lock. Used by tst_busystore: the window must keep answering meanwhile.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s DB MILLISECONDS\n", argv[0]);
        return 2;
    }
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "%s: cannot open: %s\n", argv[1], db ? sqlite3_errmsg(db) : "out of memory");
        return 1;
    }
    sqlite3_busy_timeout(db, 10000);
    char* error = nullptr;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, &error) != SQLITE_OK) {
        std::fprintf(stderr, "%s: BEGIN IMMEDIATE: %s\n", argv[1], error ? error : "?");
        sqlite3_free(error);
        sqlite3_close(db);
        return 1;
    }
    std::printf("locked\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[2])));
    const int committed = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    std::printf("released\n");
    std::fflush(stdout);
    return committed == SQLITE_OK ? 0 : 1;
}
