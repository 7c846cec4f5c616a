#pragma once
// A small RAII layer over the SQLite C API for the SQLite backend: a connection with a cache of prepared
// statements, statements with typed binds and columns, and transactions that wait and retry while other
// processes hold the write lock (SQLITE_BUSY / SQLITE_LOCKED) instead of failing with "database is locked".
//
// Threads: a Connection and its statements belong to one thread at a time.

#include "core/util/error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

struct sqlite3;
struct sqlite3_stmt;

namespace pitwall::store_internal {

// Any SQLite failure; code() is the extended result code.
class SqliteError : public RuntimeError {
public:
    // `reason`: what failed, without the file or what was being done (sqliteFailureText); `message` when empty.
    SqliteError(int code, const std::string& message, std::string reason = {})
        : RuntimeError(message), m_code(code), m_reason(reason.empty() ? message : std::move(reason))
    {
    }
    int code() const { return m_code; }
    int primaryCode() const { return m_code & 0xff; }
    const std::string& reason() const { return m_reason; }

private:
    int m_code;
    std::string m_reason;
};

// SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock. The transaction is rolled back and retried.
class BusyError : public SqliteError {
public:
    using SqliteError::SqliteError;
};

// SQLITE_CORRUPT (a damaged page) becomes InputError "PATH: the results database is damaged: ...; restore it
// from a copy": bad input the user can act on, never written into. Other errors return.
void throwIfDamaged(const std::string& path, const SqliteError& error);

// Device and inode of a file: which file a path named when it was looked at (see core/store/storefile.h).
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    bool operator==(const FileIdentity&) const = default;
};
// The file at `path` now (stat, following links); nullopt when nothing is there.
std::optional<FileIdentity> fileIdentityAt(const std::string& path);
// The name under which this process keeps the file of a path: the path made absolute and lexically normal.
std::string heldFileKey(const std::string& path);
// The file this process must find at the path of `key`: the one one of its write connections holds, else the one
// the process that started it named in kStoreFileVariable; nullopt when neither. Thread-safe.
std::optional<FileIdentity> expectedFile(const std::string& key);

// ReadOnlyImmutable opens the file as `file:PATH?immutable=1`: no locks and no -shm file, so it reads a
// database in a folder where the -shm cannot be created; only correct while nobody writes the file and its
// -wal holds no commits.
enum class ConnectionMode { ReadOnly, ReadOnlyImmutable, ReadWriteCreate };

class Statement {
public:
    Statement() = default;
    Statement(sqlite3_stmt* statement, bool owned) : m_statement(statement), m_owned(owned) {}
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    // Finalizes an owned statement; resets a cached one (and clears its bindings) for the next use.
    ~Statement();

    // Binds are 1-based like SQLite's. NaN binds as NULL (SQLite has no NaN).
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bindNull(int index);
    template <typename T> Statement& bind(int index, const std::optional<T>& value)
    {
        return value ? bind(index, *value) : bindNull(index);
    }

    // Advances; true while there is a row. Throws BusyError or SqliteError.
    bool step();
    // Steps to the end and resets, for statements without results.
    void run();
    // Resets so that the statement can run again with new binds (bindings are kept until rebound).
    void reset();

    bool isNull(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const; // NULL reads as NaN
    std::string text(int column) const;
    // The text without a copy: valid until the next step, reset or column call on this statement.
    std::string_view view(int column) const;
    std::optional<std::int64_t> optionalInt64(int column) const;
    std::optional<double> optionalReal(int column) const;
    std::optional<std::string> optionalText(int column) const;

private:
    void release() noexcept;

    sqlite3_stmt* m_statement = nullptr;
    bool m_owned = false;
};

class Connection {
public:
    // Opens (and with ReadWriteCreate creates) the file. Throws SqliteError. A ReadWriteCreate connection holds
    // the file it opened (core/store/storefile.h): StoreFileChangedError when another connection of this process
    // (or the process that started it) holds another file at this path, and nothing is created in place of a
    // deleted file.
    Connection(std::string path, ConnectionMode mode);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db; }

    // A statement prepared for this call only.
    Statement prepare(std::string_view sql);
    // A statement prepared once per connection and reused (reset when the returned handle goes away).
    // Do not hold two handles of the same SQL text at once.
    Statement cached(const std::string& sql);
    // Runs one or more statements without results (no retry; use inside a transaction or retrying()).
    void exec(const std::string& sql);

    std::int64_t lastInsertId() const;
    int changes() const;
    // Write transactions committed through write() on this connection (reads do not count).
    std::int64_t commitCount() const { return m_commits; }
    // Throws StoreFileChangedError when the path no longer names the file this ReadWriteCreate connection opened
    // (one stat); does nothing for a read-only connection. Every write() checks it after taking the write lock.
    // Before it throws, an open transaction is rolled back and the -wal beside the path is checkpointed into the
    // file this connection opened and emptied: those are that file's commits, which a file now at the path
    // would otherwise read as its own pages.
    void requireSameFile();

    // Runs body inside BEGIN IMMEDIATE ... COMMIT, after requireSameFile(). On BusyError anywhere the transaction is
    // rolled back and body runs again after a short, growing pause; after kBusyGiveUpMs RuntimeError says the database
    // is busy. Any other exception rolls back and propagates. body must not keep state across attempts.
    template <typename Body> auto write(Body&& body)
    {
        return transaction("BEGIN IMMEDIATE", true, std::forward<Body>(body));
    }
    // Like write() with a deferred BEGIN: a consistent snapshot for several reads.
    template <typename Body> auto read(Body&& body) { return transaction("BEGIN", false, std::forward<Body>(body)); }
    // Runs body (no explicit transaction) and retries it on BusyError like write().
    template <typename Body> auto retrying(Body&& body)
    {
        RetryClock clock(m_path);
        for (;;) {
            try {
                return body();
            } catch (const BusyError& error) {
                clock.pause(error);
            }
        }
    }

    static constexpr int kBusyTimeoutMs = 5000;
    static constexpr int kBusyGiveUpMs = 120000;

private:
    class RetryClock {
    public:
        explicit RetryClock(const std::string& path);
        // Sleeps before the next attempt; throws RuntimeError once the give-up time has passed.
        void pause(const BusyError& error);

    private:
        const std::string& m_path;
        double m_startSeconds;
        int m_attempt = 0;
    };

    template <typename Body> auto transaction(const char* begin, bool writes, Body&& body)
    {
        RetryClock clock(m_path);
        for (;;) {
            try {
                exec(begin);
                try {
                    if (writes)
                        requireSameFile();
                    if constexpr (std::is_void_v<decltype(body())>) {
                        body();
                        commit(writes);
                        return;
                    } else {
                        auto result = body();
                        commit(writes);
                        return result;
                    }
                } catch (...) {
                    rollbackQuietly();
                    throw;
                }
            } catch (const BusyError& error) {
                clock.pause(error);
            } catch (const SqliteError& error) {
                if (writes)
                    throwIfDamaged(m_path, error);
                throw;
            }
        }
    }
    void commit(bool writes);
    void rollbackQuietly() noexcept;
    // Checks that the file just opened is the one at the path (and the expected one, if any) and holds it.
    void holdOpenedFile(const std::optional<FileIdentity>& expected);

    std::string m_path;
    sqlite3* m_db = nullptr;
    std::string m_fileKey;              // heldFileKey(m_path), for a ReadWriteCreate connection
    std::optional<FileIdentity> m_file; // the file it opened and holds; nullopt for a read-only connection
    std::unordered_map<std::string, sqlite3_stmt*> m_cache;
    std::int64_t m_commits = 0;
};

// What a statement does, in words, for messages ("adding job records", "reading studies"): users are told what
// Pitwall was doing, never shown its SQL.
std::string describeStatement(std::string_view sql);
// What an SQLite result code means for the user ("the results database cannot be written here: its file, its folder
// or its mount is read-only (SQLite: attempt to write a readonly database)"); SQLite's own message otherwise.
std::string sqliteFailureText(int code, const std::string& sqliteMessage);

// Throws BusyError / SqliteError for a failed SQLite call: "FILE: CONTEXT failed: REASON", with the file the
// connection has open and `context` what Pitwall was doing (describeStatement).
[[noreturn]] void throwSqliteError(sqlite3* db, int code, const std::string& context);

// A read-only connection that can read the file at `path`. A WAL database needs its -shm file, which SQLite
// creates beside it; where it cannot (a folder or mount that cannot be written), a file whose -wal holds no commits
// is read as immutable, and one with commits in its -wal cannot be read safely here: InputError says so.
std::unique_ptr<Connection> openReadableConnection(const std::string& path);

// Refuses a damaged file before anything writes to it: `PRAGMA quick_check` when the file is at most
// kQuickCheckMaxBytes (it reads every page, a few milliseconds per MiB; larger files are only refused when a
// write meets a damaged page, through throwIfDamaged). Throws InputError as throwIfDamaged.
void checkNotDamaged(Connection& db);
constexpr std::int64_t kQuickCheckMaxBytes = 8ll << 20;

} // namespace pitwall::store_internal
