#pragma once
// A one-node Slurm cluster for a test (tests/support/slurm_cluster.sh: munged, slurmctld, slurmd on free ports, a
// slurm.conf written into the test's folder), stopped when the object goes. PITWALL_START_SLURM(cluster, dir) in
// initTestCase starts it, skips where slurmd cannot start tasks (not root) and fails where the packages are missing.

#include "tests/support/components.h"
#include "tests/support/testpaths.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>

#include <cstring>

namespace pitwall::test {

class SlurmCluster {
public:
    enum class Started { Ready, NotRoot, Missing, Failed };

    ~SlurmCluster()
    {
        if (!m_dir.isEmpty())
            QProcess::execute("bash", {sourcePath("/tests/support/slurm_cluster.sh"), "stop", m_dir});
    }

    // Starts the daemons with their files in `dir`; `why` says what went wrong otherwise.
    Started start(const QString& dir, QString& why)
    {
        QProcess start;
        start.start("bash", {sourcePath("/tests/support/slurm_cluster.sh"), "start", dir});
        if (!start.waitForFinished(120000)) {
            why = "slurm_cluster.sh start did not finish within 120 s";
            return Started::Failed;
        }
        const QString out = QString::fromUtf8(start.readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(start.readAllStandardError()).trimmed();
        why = out + "\n" + err;
        if (start.exitCode() == 3)
            return err.contains("needs root") ? Started::NotRoot : Started::Missing;
        if (start.exitCode() != 0 || !out.startsWith("SLURM_CONF="))
            return Started::Failed;
        m_dir = dir;
        m_conf = out.mid(int(std::strlen("SLURM_CONF=")));
        return Started::Ready;
    }

    QString conf() const { return m_conf; }
    // This process's environment with SLURM_CONF pointing at the cluster, for srun and sbatch.
    QProcessEnvironment environment() const
    {
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert("SLURM_CONF", m_conf);
        return environment;
    }

private:
    QString m_dir;
    QString m_conf;
};

} // namespace pitwall::test

#define PITWALL_START_SLURM(cluster, dir)                                                                              \
    do {                                                                                                               \
        QString why_;                                                                                                  \
        switch ((cluster).start((dir), why_)) {                                                                        \
        case pitwall::test::SlurmCluster::Started::Ready:                                                              \
            break;                                                                                                     \
        case pitwall::test::SlurmCluster::Started::NotRoot:                                                            \
            PITWALL_SKIP_OPTIONAL("slurmd starts tasks as their user, which needs root; this test runs as another "    \
                                  "user");                                                                             \
        case pitwall::test::SlurmCluster::Started::Missing:                                                            \
            PITWALL_FAIL_MISSING("slurmctld slurmd slurm-client munge", why_);                                         \
        case pitwall::test::SlurmCluster::Started::Failed:                                                             \
            QFAIL(qPrintable(why_));                                                                                   \
        }                                                                                                              \
    } while (false)
