#pragma once
// A small RAII layer over libpq for the PostgreSQL backend: one connection (never a pool), parameterised queries
// in text format, and transactions that survive what a shared server does to its clients: a serialization failure
// or deadlock is retried, and a lost connection (a server restart, a reset) is reopened and the transaction run
// again, with a growing pause, until kGiveUpMs; then RuntimeError says what kept failing.
//
// Threads: a connection may serve several threads and store objects of a process (sharedPqConnection: one per
// database and process, so that a process holds one connection whatever it opens); each exec and each transaction
// has it to itself. A result belongs to the thread that got it.

#include "core/util/error.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct pg_conn;
struct pg_result;

namespace pitwall::store_internal {

// A failed libpq call. sqlState() is the server's SQLSTATE ("" when the connection failed before one was sent).
class PqError : public RuntimeError {
public:
    PqError(const std::string& message, std::string sqlState, bool connectionLost)
        : RuntimeError(message), m_sqlState(std::move(sqlState)), m_connectionLost(connectionLost)
    {
    }
    const std::string& sqlState() const { return m_sqlState; }
    bool connectionLost() const { return m_connectionLost; }
    // A serialization failure, a deadlock, or a lost connection: running the transaction again may succeed.
    bool retryable() const;

private:
    std::string m_sqlState;
    bool m_connectionLost;
};

// One parameter of a query, as text (PostgreSQL infers its type from where it is used); NULL when empty.
// NaN binds as NULL, like the SQLite backend (Optuna's tables keep NaN and infinities in the value_type column).
class PqParam {
public:
    PqParam(std::nullopt_t) {}
    PqParam(std::int64_t value) : m_text(std::to_string(value)) {}
    PqParam(int value) : m_text(std::to_string(value)) {}
    PqParam(double value);
    PqParam(std::string_view value) : m_text(std::string(value)) {}
    PqParam(const std::string& value) : m_text(value) {}
    PqParam(const char* value) : m_text(std::string(value)) {}
    template <typename T> PqParam(const std::optional<T>& value)
    {
        if (value)
            *this = PqParam(*value);
    }
    const std::optional<std::string>& text() const { return m_text; }

private:
    std::optional<std::string> m_text;
};

// The rows of one query, read by row and column (text format).
class PqResult {
public:
    PqResult() = default;
    explicit PqResult(pg_result* result) : m_result(result) {}
    PqResult(PqResult&& other) noexcept : m_result(std::exchange(other.m_result, nullptr)) {}
    PqResult& operator=(PqResult&& other) noexcept;
    PqResult(const PqResult&) = delete;
    PqResult& operator=(const PqResult&) = delete;
    ~PqResult();

    int rows() const;
    // Rows an INSERT, UPDATE or DELETE touched.
    std::int64_t affected() const;
    bool isNull(int row, int column) const;
    std::string_view view(int row, int column) const; // valid while the result lives
    std::string text(int row, int column) const { return std::string(view(row, column)); }
    std::int64_t int64(int row, int column) const;
    double real(int row, int column) const; // NULL reads as NaN
    std::optional<std::int64_t> optionalInt64(int row, int column) const;
    std::optional<double> optionalReal(int row, int column) const;
    std::optional<std::string> optionalText(int row, int column) const;

private:
    pg_result* m_result = nullptr;
};

class PqConnection {
public:
    // Connects with libpq's connection string or URI `conninfo` (its environment, PGPASSFILE and service files
    // apply). `display` names the database in messages (without a password). Throws PqError when the server cannot
    // be reached (after kConnectRetrySeconds of refused connections: it may be restarting; after kGiveUpMs of
    // "starting up", "not yet accepting connections" or "shutting down") or refuses the login, with libpq's reason.
    PqConnection(std::string conninfo, std::string display);
    ~PqConnection();
    PqConnection(const PqConnection&) = delete;
    PqConnection& operator=(const PqConnection&) = delete;

    const std::string& display() const { return m_display; }

    // Runs one statement. `what` says in words what Pitwall was doing, for messages. Throws PqError.
    PqResult exec(std::string_view sql, const std::vector<PqParam>& params = {}, std::string_view what = {});

    // COPY ... FROM STDIN with `rows` in COPY's text format (tab-separated columns, \N for NULL, one line per row).
    // Throws PqError.
    void copyIn(std::string_view sql, const std::string& rows, std::string_view what);

    // Runs body inside BEGIN ... COMMIT (READ COMMITTED); on a retryable PqError the transaction is rolled back, the
    // connection reopened when it was lost, and body runs again after a short, growing pause; after kGiveUpMs
    // RuntimeError names the database and the last failure. Other exceptions roll back and propagate. body must not
    // keep state across attempts. A connection lost during the COMMIT of a writing transaction leaves its outcome
    // unknown: the new connection asks the server (txid_status of the transaction's id) and body runs again only
    // when the transaction did not commit, so that no write is made twice.
    template <typename Body> auto transaction(Body&& body)
    {
        const std::lock_guard<std::recursive_mutex> alone(m_mutex);
        std::optional<std::conditional_t<std::is_void_v<decltype(body())>, int, decltype(body())>> result;
        runTransaction([&] {
            if constexpr (std::is_void_v<decltype(body())>) {
                body();
                result.emplace(0);
            } else {
                result.emplace(body());
            }
        });
        if constexpr (!std::is_void_v<decltype(body())>)
            return std::move(*result);
    }

    // For tests: the next COMMIT of a writing transaction goes through, and then the connection is closed as if its
    // answer had been lost on the way.
    void loseNextCommitAnswer() { m_loseCommitAnswer = true; }

    static constexpr int kGiveUpMs = 120000;
    // How long a new connection is tried while the server refuses connections or is starting or shutting down.
    static constexpr double kConnectRetrySeconds = 10.0;

private:
    class Attempt {
    public:
        virtual ~Attempt() = default;
        virtual void run() = 0;
    };
    template <typename F> void runTransaction(F&& body)
    {
        struct Holder final : Attempt {
            F& f;
            explicit Holder(F& body) : f(body) {}
            void run() override { f(); }
        } holder(body);
        runAttempts(holder);
    }
    void runAttempts(Attempt& attempt);
    // COMMIT; when the connection is lost on the way and the transaction `xid` had written, whether the server
    // committed it after all (asked on a new connection; "in progress" is asked again until it is decided).
    void commit(const std::optional<std::string>& xid, double start);
    void connect();
    void rollbackQuietly() noexcept;
    [[noreturn]] void throwFailure(pg_result* result, std::string_view what);

    std::string m_conninfo;
    std::string m_display;
    pg_conn* m_conn = nullptr;
    bool m_loseCommitAnswer = false;
    std::recursive_mutex m_mutex; // held by an exec or a whole transaction
};

// The connection of this process to the database `conninfo` names: one, however many stores and threads use it
// (kept while any of them holds it; a new one is opened after the last let go). Throws PqError as the constructor.
std::shared_ptr<PqConnection> sharedPqConnection(const std::string& conninfo, const std::string& display);

} // namespace pitwall::store_internal
