#include "core/store/internal/sqlite.h"

#include "core/store/storefile.h"
#include "core/util/timefmt.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace pitwall::store_internal {

namespace {

bool sameWord(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::vector<std::string_view> sqlWords(std::string_view sql)
{
    std::vector<std::string_view> words;
    std::size_t i = 0;
    const auto wordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while (i < sql.size()) {
        while (i < sql.size() && !wordChar(sql[i]))
            ++i;
        const std::size_t start = i;
        while (i < sql.size() && wordChar(sql[i]))
            ++i;
        if (i > start)
            words.push_back(sql.substr(start, i - start));
    }
    return words;
}

// What the rows of a table are, in words, by the start of its name.
std::string tableWords(std::string_view table)
{
    static const std::pair<const char*, const char*> kTables[] = {{"pitwall_job_links", "job links"},
                                                                  {"pitwall_job_ids", "the job id counter"},
                                                                  {"pitwall_jobs", "job records"},
                                                                  {"pitwall_metric", "metrics"},
                                                                  {"pitwall_events", "run events"},
                                                                  {"pitwall_artifacts", "artifact records"},
                                                                  {"pitwall_benchmarks", "benchmark results"},
                                                                  {"pitwall_runs", "runs"},
                                                                  {"pitwall_schema_version", "the schema version"},
                                                                  {"stud", "studies"},
                                                                  {"trial", "trials"},
                                                                  {"version_info", "Optuna's version rows"},
                                                                  {"alembic_version", "Optuna's version rows"},
                                                                  {"sqlite_master", "the file's list of tables"}};
    for (const auto& [prefix, words] : kTables)
        if (table.substr(0, std::string_view(prefix).size()) == prefix)
            return words;
    return "the table " + std::string(table);
}

} // namespace

std::string describeStatement(std::string_view sql)
{
    const auto words = sqlWords(sql);
    if (words.empty())
        return "using the results database";
    std::string table;
    for (std::size_t i = 0; i + 1 < words.size() && table.empty(); ++i)
        for (const char* keyword : {"INTO", "UPDATE", "FROM", "TABLE"})
            if (sameWord(words[i], keyword) && !sameWord(words[i + 1], "IF"))
                table = tableWords(words[i + 1]);
    const std::string_view first = words.front();
    const auto on = [&](const char* verb) { return std::string(verb) + (table.empty() ? "" : " " + table); };
    if (sameWord(first, "INSERT") || sameWord(first, "REPLACE"))
        return on("adding");
    if (sameWord(first, "UPDATE"))
        return on("changing");
    if (sameWord(first, "DELETE"))
        return on("removing");
    if (sameWord(first, "SELECT") || sameWord(first, "WITH"))
        return on("reading");
    if (sameWord(first, "CREATE") || sameWord(first, "ALTER") || sameWord(first, "DROP"))
        return "updating the tables of the results database";
    if (sameWord(first, "BEGIN"))
        return words.size() > 1 && !sameWord(words[1], "DEFERRED") && !sameWord(words[1], "TRANSACTION")
                   ? "starting to write to the results database"
                   : "starting to read the results database";
    if (sameWord(first, "COMMIT"))
        return "committing a transaction";
    if (sameWord(first, "PRAGMA"))
        return "setting up the results database (PRAGMA " + std::string(words.size() > 1 ? words[1] : "") + ")";
    return "using the results database";
}

std::string sqliteFailureText(int code, const std::string& sqliteMessage)
{
    const std::string said = "SQLite: " + sqliteMessage;
    switch (code & 0xff) {
    case SQLITE_READONLY:
        return "the results database cannot be written here: its file, its folder or its mount is read-only (" + said +
               ")";
    case SQLITE_FULL:
        return "the disk holding the results database is full (" + said + ")";
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return "permission denied (" + said + ")";
    case SQLITE_CANTOPEN:
        return "the file, or the -wal or -shm file SQLite keeps beside it, cannot be opened or created (is its folder "
               "read-only?) (" +
               said + ")";
    case SQLITE_IOERR:
        return "the file could not be read or written (" + said + ")";
    default:
        return sqliteMessage;
    }
}

void throwSqliteError(sqlite3* db, int code, const std::string& context)
{
    const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
    const std::string reason = sqliteFailureText(code, db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
    const std::string message =
        (file && *file ? std::string(file) + ": " : std::string()) + context + " failed: " + reason;
    const int primary = code & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        throw BusyError(code, message, reason);
    throw SqliteError(code, message, reason);
}

namespace {

[[noreturn]] void throwDamaged(const std::string& path, const std::string& what)
{
    throw InputError(path + ": the results database is damaged: " + what +
                     "; restore it from a copy (pitwall db info shows what can still be read)");
}

} // namespace

void throwIfDamaged(const std::string& path, const SqliteError& error)
{
    if (error.primaryCode() == SQLITE_CORRUPT)
        throwDamaged(path, error.what());
}

void checkNotDamaged(Connection& db)
{
    std::error_code error;
    const auto bytes = std::filesystem::file_size(db.path(), error);
    if (error || bytes == 0 || bytes > static_cast<std::uintmax_t>(kQuickCheckMaxBytes))
        return;
    std::vector<std::string> problems;
    try {
        auto check = db.prepare("PRAGMA quick_check(5)");
        while (check.step())
            problems.push_back(check.text(0));
    } catch (const BusyError&) {
        throw;
    } catch (const SqliteError& e) {
        throwIfDamaged(db.path(), e);
        throw;
    }
    if (problems.size() == 1 && problems.front() == "ok")
        return;
    std::string text = "PRAGMA quick_check found ";
    for (std::size_t i = 0; i < problems.size(); ++i)
        text += (i ? "; " : "") + problems[i];
    throwDamaged(db.path(), text);
}

// --- Files held by write connections -------------------------------------------------------------

std::optional<FileIdentity> fileIdentityAt(const std::string& path)
{
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0)
        return std::nullopt;
    return FileIdentity{static_cast<std::uint64_t>(status.st_dev), static_cast<std::uint64_t>(status.st_ino)};
}

std::string heldFileKey(const std::string& path)
{
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return (error ? std::filesystem::path(path) : absolute).lexically_normal().string();
}

namespace {

struct HeldFile {
    FileIdentity file;
    int connections = 0;
};

// The files this process's write connections hold, by heldFileKey(), and the one its parent named.
struct HeldFiles {
    std::mutex mutex;
    std::map<std::string, HeldFile> held;
    std::optional<std::pair<std::string, FileIdentity>> inherited;

    HeldFiles()
    {
        // "DEVICE:INODE:ABSOLUTE_PATH"; anything else is ignored (no file is then expected).
        const char* text = std::getenv(kStoreFileVariable);
        if (!text)
            return;
        const std::string value = text;
        const auto first = value.find(':');
        const auto second = first == std::string::npos ? first : value.find(':', first + 1);
        if (second == std::string::npos || second + 1 >= value.size())
            return;
        try {
            const FileIdentity file{std::stoull(value.substr(0, first)),
                                    std::stoull(value.substr(first + 1, second - first - 1))};
            inherited.emplace(heldFileKey(value.substr(second + 1)), file);
        } catch (const std::exception&) {
        }
    }
};

HeldFiles& heldFiles()
{
    static HeldFiles files;
    return files;
}

void holdFile(const std::string& key, const FileIdentity& file)
{
    HeldFiles& files = heldFiles();
    std::lock_guard lock(files.mutex);
    HeldFile& held = files.held[key];
    held.file = file;
    ++held.connections;
}

void releaseFile(const std::string& key)
{
    HeldFiles& files = heldFiles();
    std::lock_guard lock(files.mutex);
    const auto it = files.held.find(key);
    if (it != files.held.end() && --it->second.connections <= 0)
        files.held.erase(it);
}

std::string describe(const FileIdentity& file)
{
    return "device " + std::to_string(file.device) + ", inode " + std::to_string(file.inode);
}

// StoreFileChangedError for `path`, which named `opened` and names `now` (nullopt: nothing) instead.
[[noreturn]] void throwFileChanged(const std::string& path, const FileIdentity& opened,
                                   const std::optional<FileIdentity>& now)
{
    if (!now)
        throw StoreFileChangedError(path + ": the results database was deleted while Pitwall had it open; Pitwall "
                                           "stopped writing (and created nothing in its place)");
    throw StoreFileChangedError(path + ": the results database was replaced by another file while Pitwall had it " +
                                "open (" + describe(opened) + " was opened, " + describe(*now) +
                                " is there now); Pitwall stopped writing, so that no row in the new file refers to "
                                "the studies, trials or runs of the old one");
}

} // namespace

std::optional<FileIdentity> expectedFile(const std::string& key)
{
    HeldFiles& files = heldFiles();
    std::lock_guard lock(files.mutex);
    if (const auto it = files.held.find(key); it != files.held.end())
        return it->second.file;
    if (files.inherited && files.inherited->first == key)
        return files.inherited->second;
    return std::nullopt;
}

// --- Statement --------------------------------------------------------------------------------------

Statement::Statement(Statement&& other) noexcept
    : m_statement(std::exchange(other.m_statement, nullptr)), m_owned(other.m_owned)
{
}

Statement& Statement::operator=(Statement&& other) noexcept
{
    if (this != &other) {
        release();
        m_statement = std::exchange(other.m_statement, nullptr);
        m_owned = other.m_owned;
    }
    return *this;
}

Statement::~Statement()
{
    release();
}

void Statement::release() noexcept
{
    if (!m_statement)
        return;
    if (m_owned) {
        sqlite3_finalize(m_statement);
    } else {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
    m_statement = nullptr;
}

namespace {
void checkBind(sqlite3_stmt* statement, int code)
{
    if (code != SQLITE_OK)
        throwSqliteError(sqlite3_db_handle(statement), code,
                         describeStatement(sqlite3_sql(statement) ? sqlite3_sql(statement) : "") +
                             " (binding a value)");
}
} // namespace

Statement& Statement::bind(int index, std::int64_t value)
{
    checkBind(m_statement, sqlite3_bind_int64(m_statement, index, value));
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    if (std::isnan(value))
        return bindNull(index);
    checkBind(m_statement, sqlite3_bind_double(m_statement, index, value));
    return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
    checkBind(m_statement,
              sqlite3_bind_text(m_statement, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
    return *this;
}

Statement& Statement::bindNull(int index)
{
    checkBind(m_statement, sqlite3_bind_null(m_statement, index));
    return *this;
}

bool Statement::step()
{
    const int code = sqlite3_step(m_statement);
    if (code == SQLITE_ROW)
        return true;
    if (code == SQLITE_DONE)
        return false;
    sqlite3* db = sqlite3_db_handle(m_statement);
    const std::string sql = sqlite3_sql(m_statement) ? sqlite3_sql(m_statement) : "";
    sqlite3_reset(m_statement);
    throwSqliteError(db, code, describeStatement(sql));
}

void Statement::run()
{
    while (step()) {
    }
    sqlite3_reset(m_statement);
}

void Statement::reset()
{
    sqlite3_reset(m_statement);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const
{
    return sqlite3_column_int64(m_statement, column);
}

double Statement::real(int column) const
{
    return isNull(column) ? std::nan("") : sqlite3_column_double(m_statement, column);
}

std::string Statement::text(int column) const
{
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
    return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)))
                : std::string();
}

std::string_view Statement::view(int column) const
{
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
    return data ? std::string_view(data, static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)))
                : std::string_view();
}

std::optional<std::int64_t> Statement::optionalInt64(int column) const
{
    return isNull(column) ? std::nullopt : std::optional<std::int64_t>(int64(column));
}

std::optional<double> Statement::optionalReal(int column) const
{
    return isNull(column) ? std::nullopt : std::optional<double>(sqlite3_column_double(m_statement, column));
}

std::optional<std::string> Statement::optionalText(int column) const
{
    return isNull(column) ? std::nullopt : std::optional<std::string>(text(column));
}

// --- Connection -------------------------------------------------------------------------------------

namespace {
// `file:` URI of a path with its URI-special characters percent-encoded.
std::string fileUri(const std::string& path, const char* query)
{
    std::string uri = "file:";
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char escaped[4];
            std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
            uri += escaped;
        } else {
            uri += c;
        }
    }
    return uri + "?" + query;
}
} // namespace

Connection::Connection(std::string path, ConnectionMode mode) : m_path(std::move(path))
{
    const bool writes = mode == ConnectionMode::ReadWriteCreate;
    std::optional<FileIdentity> expected;
    if (writes) {
        m_fileKey = heldFileKey(m_path);
        expected = expectedFile(m_fileKey);
        if (const auto now = fileIdentityAt(m_path); expected && now != expected)
            throwFileChanged(m_path, *expected, now);
    }
    int flags = SQLITE_OPEN_NOMUTEX;
    // A file this process expects is never created: if it is gone, it was deleted under a connection.
    flags |= writes ? (SQLITE_OPEN_READWRITE | (expected ? 0 : SQLITE_OPEN_CREATE)) : SQLITE_OPEN_READONLY;
    std::string name = m_path;
    if (mode == ConnectionMode::ReadOnlyImmutable) {
        flags |= SQLITE_OPEN_URI;
        name = fileUri(m_path, "immutable=1");
    }
    const int code = sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr);
    if (code != SQLITE_OK) {
        const std::string message = m_path + ": opening the results database failed: " +
                                    sqliteFailureText(code, m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(code));
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        if (const auto now = fileIdentityAt(m_path); expected && now != expected)
            throwFileChanged(m_path, *expected, now);
        throw SqliteError(code, message);
    }
    sqlite3_extended_result_codes(m_db, 1);
    sqlite3_busy_timeout(m_db, kBusyTimeoutMs);
    // SQLite opens a file it may not write (a read-only file or mount) read-only without saying so: every write
    // would then fail later, in the middle of the work. Said here, at the open.
    if (writes && sqlite3_db_readonly(m_db, "main") == 1) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw SqliteError(SQLITE_READONLY,
                          m_path + ": opening the results database to write failed: " +
                              sqliteFailureText(SQLITE_READONLY, "the file was opened read-only"),
                          sqliteFailureText(SQLITE_READONLY, "the file was opened read-only"));
    }
    if (writes)
        holdOpenedFile(expected);
}

void Connection::holdOpenedFile(const std::optional<FileIdentity>& expected)
{
    // SQLite opened the file by its path; SQLITE_FCNTL_HAS_MOVED compares the inode of its descriptor with the
    // path's. Looked at before and after, so that a replacement in between is seen either way.
    const auto before = fileIdentityAt(m_path);
    int moved = 0;
    const int code = sqlite3_file_control(m_db, "main", SQLITE_FCNTL_HAS_MOVED, &moved);
    const auto after = fileIdentityAt(m_path);
    const bool same = code == SQLITE_OK && !moved && before && after == before && (!expected || after == expected);
    if (!same) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throwFileChanged(m_path, expected ? *expected : before.value_or(FileIdentity{}), after);
    }
    m_file = after;
    holdFile(m_fileKey, *m_file);
}

Connection::~Connection()
{
    for (auto& [sql, statement] : m_cache)
        sqlite3_finalize(statement);
    sqlite3_close_v2(m_db);
    if (m_file)
        releaseFile(m_fileKey);
}

void Connection::requireSameFile()
{
    if (!m_file)
        return;
    const auto now = fileIdentityAt(m_path);
    if (now == m_file)
        return;
    rollbackQuietly();
    sqlite3_wal_checkpoint_v2(m_db, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr); // best effort
    throwFileChanged(m_path, *m_file, now);
}

Statement Connection::prepare(std::string_view sql)
{
    sqlite3_stmt* statement = nullptr;
    const int code = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
    if (code != SQLITE_OK)
        throwSqliteError(m_db, code, describeStatement(sql));
    return Statement(statement, true);
}

Statement Connection::cached(const std::string& sql)
{
    auto it = m_cache.find(sql);
    if (it == m_cache.end()) {
        sqlite3_stmt* statement = nullptr;
        const int code = sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                            &statement, nullptr);
        if (code != SQLITE_OK)
            throwSqliteError(m_db, code, describeStatement(sql));
        it = m_cache.emplace(sql, statement).first;
    }
    return Statement(it->second, false);
}

void Connection::exec(const std::string& sql)
{
    char* error = nullptr;
    const int code = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error);
    if (code != SQLITE_OK) {
        const std::string message = error ? error : sqlite3_errstr(code);
        sqlite3_free(error);
        const int primary = code & 0xff;
        const std::string reason = sqliteFailureText(code, message);
        const std::string text = m_path + ": " + describeStatement(sql) + " failed: " + reason;
        if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
            throw BusyError(code, text, reason);
        throw SqliteError(code, text, reason);
    }
}

std::int64_t Connection::lastInsertId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

int Connection::changes() const
{
    return sqlite3_changes(m_db);
}

void Connection::commit(bool writes)
{
    exec("COMMIT");
    if (writes)
        ++m_commits;
}

void Connection::rollbackQuietly() noexcept
{
    if (!sqlite3_get_autocommit(m_db))
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

Connection::RetryClock::RetryClock(const std::string& path) : m_path(path), m_startSeconds(nowSeconds())
{
}

void Connection::RetryClock::pause(const BusyError& error)
{
    const double elapsedMs = (nowSeconds() - m_startSeconds) * 1000.0;
    if (elapsedMs > kBusyGiveUpMs)
        throw RuntimeError(m_path + ": the database stayed busy for " + std::to_string(kBusyGiveUpMs / 1000) + " s (" +
                           error.what() + ")");
    // Exponential backoff with jitter, so that waiting processes do not retry in lockstep.
    thread_local std::minstd_rand random(std::random_device{}());
    const int ceilingMs = std::min(100, 1 << std::min(m_attempt, 7));
    ++m_attempt;
    std::uniform_int_distribution<int> jitter(ceilingMs / 2, ceilingMs);
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter(random)));
}

std::unique_ptr<Connection> openReadableConnection(const std::string& path)
{
    auto connection = std::make_unique<Connection>(path, ConnectionMode::ReadOnly);
    try {
        connection->retrying([&] {
            auto tables = connection->prepare("SELECT COUNT(*) FROM sqlite_master");
            tables.step();
        });
        return connection;
    } catch (const SqliteError& error) {
        if (error.primaryCode() != SQLITE_READONLY && error.primaryCode() != SQLITE_CANTOPEN)
            throw;
    }
    connection.reset();
    std::error_code noWal;
    const auto walBytes = std::filesystem::file_size(path + "-wal", noWal);
    if (!noWal && walBytes > 0)
        throw InputError(path + ": cannot be read here: its folder is not writable, so SQLite cannot create the " +
                         "-shm file a WAL database needs, and its -wal file holds commits not yet in the database; " +
                         "open it once where the folder is writable (or copy the .db and -wal files elsewhere)");
    return std::make_unique<Connection>(path, ConnectionMode::ReadOnlyImmutable);
}

} // namespace pitwall::store_internal
