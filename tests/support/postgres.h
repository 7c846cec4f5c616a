#pragma once
// A real PostgreSQL server for a test: initdb in a temporary folder, a free port on 127.0.0.1, the socket in that
// folder, started with pg_ctl and stopped (immediately) when the object goes away. As root the server runs as the
// `postgres` user (it refuses root), through runuser. TCP logins need the password kPassword
// (scram-sha-256), so a test can try a wrong one; database() makes a fresh database per test function.
// packaging/install-deps.sh installs the server (package postgresql); without it start() says what is missing.

#include <libpq-fe.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace pitwall::test {

class PostgresServer {
public:
    static constexpr const char* kPassword = "pitwall-test-secret";

    PostgresServer() = default;
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;
    ~PostgresServer() { stop(); }

    // Empty when the server runs; otherwise why it does not (a missing package, a failed initdb with its log).
    QString start()
    {
        m_bin = binDir();
        if (m_bin.isEmpty())
            return "no /usr/lib/postgresql/*/bin/initdb (package postgresql)";
        if (!m_dir.isValid())
            return "no temporary folder";
        QFile::setPermissions(m_dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                                QFileDevice::ReadOther | QFileDevice::WriteOther |
                                                QFileDevice::ExeOther);
        QFile passwordFile(m_dir.filePath("pw"));
        if (!passwordFile.open(QIODevice::WriteOnly) || passwordFile.write(kPassword) < 0)
            return "cannot write the password file";
        passwordFile.close();
        passwordFile.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadOther);
        m_port = freePort();
        QString output;
        if (!runAsServerUser(m_bin + "/initdb",
                             {"-D", dataDir(), "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                              "--pwfile=" + m_dir.filePath("pw"), "-E", "UTF8", "--locale=C.UTF-8"},
                             output))
            return "initdb failed: " + output;
        const QString options = QString("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c max_connections=100 -c fsync=off")
                                    .arg(m_port)
                                    .arg(m_dir.path());
        if (!runAsServerUser(m_bin + "/pg_ctl",
                             {"-D", dataDir(), "-l", m_dir.filePath("log"), "-w", "-o", options, "start"}, output))
            return "pg_ctl start failed: " + output + " " + log();
        m_running = true;
        return {};
    }

    void stop()
    {
        if (!m_running)
            return;
        QString output;
        runAsServerUser(m_bin + "/pg_ctl", {"-D", dataDir(), "-m", "immediate", "-w", "stop"}, output);
        m_running = false;
    }

    // Starts it again after stop() (a restart in the middle of a test): the same port, folder and databases.
    QString restart()
    {
        stop();
        QString output;
        const QString options = QString("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c max_connections=100 -c fsync=off")
                                    .arg(m_port)
                                    .arg(m_dir.path());
        if (!runAsServerUser(m_bin + "/pg_ctl",
                             {"-D", dataDir(), "-l", m_dir.filePath("log"), "-w", "-o", options, "start"}, output))
            return "pg_ctl start failed: " + output;
        m_running = true;
        return {};
    }

    int port() const { return m_port; }
    QString log() const
    {
        QFile file(m_dir.filePath("log"));
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }

    // A location for `database` with the right password (Optuna's form when `sqlalchemy`).
    std::string location(const std::string& database, bool sqlalchemy = false) const
    {
        return std::string(sqlalchemy ? "postgresql+psycopg2" : "postgresql") + "://postgres:" + kPassword +
               "@127.0.0.1:" + std::to_string(m_port) + "/" + database;
    }

    // Creates an empty database named `name` and returns its location.
    std::string database(const std::string& name)
    {
        query("postgres", "CREATE DATABASE \"" + name + "\"");
        return location(name);
    }

    // Runs `sql` on `database` over its own connection; rows as text, NULL as "<null>". Throws std::runtime_error.
    std::vector<std::vector<std::string>> query(const std::string& database, const std::string& sql) const
    {
        const std::string conninfo = location(database);
        PGconn* conn = PQconnectdb(conninfo.c_str());
        if (PQstatus(conn) != CONNECTION_OK) {
            const std::string message = PQerrorMessage(conn);
            PQfinish(conn);
            throw std::runtime_error("cannot connect to " + database + ": " + message);
        }
        PGresult* result = PQexec(conn, sql.c_str());
        const auto status = PQresultStatus(result);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            const std::string message = PQresultErrorMessage(result);
            PQclear(result);
            PQfinish(conn);
            throw std::runtime_error(message + " in: " + sql);
        }
        std::vector<std::vector<std::string>> rows;
        for (int row = 0; row < PQntuples(result); ++row) {
            std::vector<std::string> values;
            for (int column = 0; column < PQnfields(result); ++column)
                values.push_back(PQgetisnull(result, row, column) ? "<null>" : PQgetvalue(result, row, column));
            rows.push_back(values);
        }
        PQclear(result);
        PQfinish(conn);
        return rows;
    }

    std::string scalar(const std::string& database, const std::string& sql) const
    {
        const auto rows = query(database, sql);
        return rows.empty() || rows.front().empty() ? std::string("<none>") : rows.front().front();
    }

private:
    QString dataDir() const { return m_dir.filePath("data"); }

    static QString binDir()
    {
        const QStringList versions =
            QDir("/usr/lib/postgresql").entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
        for (const QString& version : versions)
            if (QFile::exists("/usr/lib/postgresql/" + version + "/bin/initdb"))
                return "/usr/lib/postgresql/" + version + "/bin";
        return {};
    }

    static int freePort()
    {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        socklen_t length = sizeof address;
        ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        const int port = ntohs(address.sin_port);
        ::close(fd);
        return port;
    }

    // Runs a server program, as `postgres` when this process is root; its output in `output`.
    static bool runAsServerUser(const QString& program, const QStringList& arguments, QString& output)
    {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.setWorkingDirectory("/tmp");
        if (::geteuid() == 0)
            process.start("runuser", QStringList{"-u", "postgres", "--", program} + arguments);
        else
            process.start(program, arguments);
        const bool finished = process.waitForFinished(120000);
        output = QString::fromUtf8(process.readAll()).trimmed();
        return finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }

    QTemporaryDir m_dir;
    QString m_bin;
    int m_port = 0;
    bool m_running = false;
};

} // namespace pitwall::test
