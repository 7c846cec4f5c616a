#include "core/store/internal/pq.h"

#include "core/util/strings.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace pitwall::store_internal {

namespace {

double secondsNow()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// A libpq message without its trailing line break, its tabs (libpq indents hints with one) as two spaces, so that
// the message prints as libpq meant it instead of with an escaped "\t".
std::string trimmed(const char* text)
{
    std::string out;
    for (const char* c = text ? text : ""; *c; ++c)
        out += *c == '\t' ? std::string("  ") : std::string(1, *c);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    return out;
}

// libpq prints server notices (NOTICE: relation exists, skipping) to stderr by default; Pitwall's output is its own.
void ignoreNotice(void*, const char*)
{
}

} // namespace

bool PqError::retryable() const
{
    // 40001 serialization_failure, 40P01 deadlock_detected, class 08 connection exceptions, 57P01..57P03 the server
    // shutting down or starting up.
    return m_connectionLost || m_sqlState == "40001" || m_sqlState == "40P01" || startsWith(m_sqlState, "08") ||
           m_sqlState == "57P01" || m_sqlState == "57P02" || m_sqlState == "57P03";
}

PqParam::PqParam(double value)
{
    if (std::isnan(value))
        return;
    if (std::isinf(value)) {
        m_text = value > 0 ? "Infinity" : "-Infinity";
        return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    m_text = buffer;
}

PqResult& PqResult::operator=(PqResult&& other) noexcept
{
    if (this != &other) {
        if (m_result)
            PQclear(m_result);
        m_result = std::exchange(other.m_result, nullptr);
    }
    return *this;
}

PqResult::~PqResult()
{
    if (m_result)
        PQclear(m_result);
}

int PqResult::rows() const
{
    return m_result ? PQntuples(m_result) : 0;
}

std::int64_t PqResult::affected() const
{
    const char* count = m_result ? PQcmdTuples(m_result) : "";
    return *count ? std::strtoll(count, nullptr, 10) : 0;
}

bool PqResult::isNull(int row, int column) const
{
    return PQgetisnull(m_result, row, column) != 0;
}

std::string_view PqResult::view(int row, int column) const
{
    return {PQgetvalue(m_result, row, column), static_cast<std::size_t>(PQgetlength(m_result, row, column))};
}

std::int64_t PqResult::int64(int row, int column) const
{
    return std::strtoll(PQgetvalue(m_result, row, column), nullptr, 10);
}

double PqResult::real(int row, int column) const
{
    if (isNull(row, column))
        return std::nan("");
    return std::strtod(PQgetvalue(m_result, row, column), nullptr); // also reads NaN, Infinity and -Infinity
}

std::optional<std::int64_t> PqResult::optionalInt64(int row, int column) const
{
    return isNull(row, column) ? std::nullopt : std::optional<std::int64_t>(int64(row, column));
}

std::optional<double> PqResult::optionalReal(int row, int column) const
{
    return isNull(row, column) ? std::nullopt : std::optional<double>(real(row, column));
}

std::optional<std::string> PqResult::optionalText(int row, int column) const
{
    return isNull(row, column) ? std::nullopt : std::optional<std::string>(text(row, column));
}

PqConnection::PqConnection(std::string conninfo, std::string display)
    : m_conninfo(std::move(conninfo)), m_display(std::move(display))
{
    // A server that refuses connections may be restarting: try again for a few seconds before saying so. A server
    // that answers that it is starting up, recovering or shutting down is restarting: try again as long as a
    // transaction would. A wrong password, user, database or host name fails at once.
    const double start = secondsNow();
    for (;;) {
        try {
            connect();
            return;
        } catch (const PqError& error) {
            const std::string text = error.what();
            const auto says = [&](const char* words) { return text.find(words) != std::string::npos; };
            const bool restarting = says("the database system is starting up") ||
                                    says("the database system is not yet accepting connections") ||
                                    says("the database system is in recovery mode") ||
                                    says("the database system is shutting down");
            const bool refused = says("Connection refused") || says("server closed the connection unexpectedly");
            const double waited = secondsNow() - start;
            if (!(restarting && waited * 1000 < kGiveUpMs) && !(refused && waited < kConnectRetrySeconds))
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    }
}

PqConnection::~PqConnection()
{
    if (m_conn)
        PQfinish(m_conn);
}

void PqConnection::connect()
{
    if (m_conn)
        PQfinish(m_conn);
    // The server lists the connection as "pitwall PID" (pg_stat_activity), unless the location names itself; keywords
    // after the expanded location would override it, so the name comes first.
    const std::string name = "pitwall " + std::to_string(::getpid());
    const char* keys[] = {"application_name", "dbname", nullptr};
    const char* values[] = {name.c_str(), m_conninfo.c_str(), nullptr};
    m_conn = PQconnectdbParams(keys, values, 1);
    if (!m_conn)
        throw PqError(m_display + ": connecting failed: out of memory", {}, true);
    if (PQstatus(m_conn) != CONNECTION_OK) {
        const std::string reason = trimmed(PQerrorMessage(m_conn));
        // Freed here: a constructor that throws runs no destructor. A later exec() finds no connection and
        // reconnects.
        PQfinish(m_conn);
        m_conn = nullptr;
        throw PqError(m_display + ": connecting to the PostgreSQL server failed: " + reason, {}, true);
    }
    PQsetNoticeProcessor(m_conn, ignoreNotice, nullptr);
}

void PqConnection::throwFailure(pg_result* result, std::string_view what)
{
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    std::string reason = trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(m_conn));
    if (reason.empty())
        reason = trimmed(PQerrorMessage(m_conn));
    if (startsWith(reason, "ERROR:  "))
        reason = reason.substr(8);
    const bool lost = !m_conn || PQstatus(m_conn) != CONNECTION_OK;
    if (result)
        PQclear(result);
    const std::string doing = what.empty() ? std::string("a query") : std::string(what);
    throw PqError(m_display + ": " + doing + " failed: " + reason, state ? state : "", lost);
}

PqResult PqConnection::exec(std::string_view sql, const std::vector<PqParam>& params, std::string_view what)
{
    const std::lock_guard<std::recursive_mutex> alone(m_mutex);
    if (!m_conn || PQstatus(m_conn) != CONNECTION_OK)
        throw PqError(m_display + ": the connection to the PostgreSQL server was lost", {}, true);
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const PqParam& param : params)
        values.push_back(param.text() ? param.text()->c_str() : nullptr);
    const std::string text(sql);
    // Without parameters, the simple protocol: it runs several statements at once (a schema).
    pg_result* result = values.empty() ? PQexec(m_conn, text.c_str())
                                       : PQexecParams(m_conn, text.c_str(), static_cast<int>(values.size()), nullptr,
                                                      values.data(), nullptr, nullptr, 0);
    const auto status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
        throwFailure(result, what);
    return PqResult(result);
}

void PqConnection::copyIn(std::string_view sql, const std::string& rows, std::string_view what)
{
    const std::lock_guard<std::recursive_mutex> alone(m_mutex);
    if (!m_conn || PQstatus(m_conn) != CONNECTION_OK)
        throw PqError(m_display + ": the connection to the PostgreSQL server was lost", {}, true);
    const std::string text(sql);
    pg_result* started = PQexec(m_conn, text.c_str());
    if (!started || PQresultStatus(started) != PGRES_COPY_IN)
        throwFailure(started, what);
    PQclear(started);
    const bool sent =
        PQputCopyData(m_conn, rows.data(), static_cast<int>(rows.size())) == 1 && PQputCopyEnd(m_conn, nullptr) == 1;
    // The server's answer (or the reason the data did not go through) comes as the result of the COPY.
    pg_result* failed = nullptr;
    while (pg_result* result = PQgetResult(m_conn)) {
        if (PQresultStatus(result) != PGRES_COMMAND_OK && !failed)
            failed = result;
        else
            PQclear(result);
    }
    if (failed || !sent)
        throwFailure(failed, what);
}

std::shared_ptr<PqConnection> sharedPqConnection(const std::string& conninfo, const std::string& display)
{
    static std::mutex registryMutex;
    static std::map<std::string, std::weak_ptr<PqConnection>> registry;
    const std::lock_guard<std::mutex> lock(registryMutex);
    if (auto alive = registry[conninfo].lock())
        return alive;
    auto connection = std::make_shared<PqConnection>(conninfo, display);
    registry[conninfo] = connection;
    return connection;
}

void PqConnection::rollbackQuietly() noexcept
{
    if (m_conn && PQstatus(m_conn) == CONNECTION_OK)
        PQclear(PQexec(m_conn, "ROLLBACK"));
}

void PqConnection::commit(const std::optional<std::string>& xid, double start)
{
    try {
        exec("COMMIT", {}, "committing");
        if (std::exchange(m_loseCommitAnswer, false) && xid) {
            PQfinish(m_conn);
            m_conn = nullptr;
            throw PqError(m_display + ": committing failed: the connection was closed (a test)", {}, true);
        }
    } catch (const PqError& error) {
        if (!error.connectionLost() || !xid)
            throw;
        // Committed or not? Only the server knows: ask it, on a new connection, until it has decided.
        for (;;) {
            bool asked = false;
            std::optional<std::string> status;
            try {
                connect();
                status = exec("SELECT txid_status($1)", {*xid}, "asking whether the lost commit went through")
                             .optionalText(0, 0);
                asked = true;
            } catch (const PqError& again) {
                if (!again.retryable())
                    throw;
            }
            if (asked && status == "committed")
                return;
            if (asked && status != "in progress")
                throw; // aborted: the caller runs the transaction again
            if ((secondsNow() - start) * 1000 > kGiveUpMs)
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    }
}

void PqConnection::runAttempts(Attempt& attempt)
{
    const double start = secondsNow();
    for (int tries = 1;; ++tries) {
        try {
            if (!m_conn || PQstatus(m_conn) != CONNECTION_OK)
                connect();
            exec("BEGIN");
            try {
                attempt.run();
                // The transaction's id when it wrote (NULL for a read, which needs no id and must not take one).
                const auto xid = exec("SELECT txid_current_if_assigned()", {}, "committing").optionalText(0, 0);
                commit(xid, start);
                return;
            } catch (...) {
                rollbackQuietly();
                throw;
            }
        } catch (const PqError& error) {
            if (!error.retryable())
                throw;
            const double waited = secondsNow() - start;
            if (waited * 1000 > kGiveUpMs)
                throw RuntimeError(m_display + ": gave up after " + std::to_string(tries) + " attempts in " +
                                   std::to_string(static_cast<int>(waited)) + " s; the last: " + error.what());
            // 50 ms, doubling to 2 s, with a jitter so that many workers do not retry in step.
            const double pause = std::min(2.0, 0.05 * std::pow(2.0, std::min(tries, 6))) *
                                 (0.75 + 0.5 * (std::rand() / static_cast<double>(RAND_MAX)));
            std::this_thread::sleep_for(std::chrono::duration<double>(pause));
        }
    }
}

} // namespace pitwall::store_internal
