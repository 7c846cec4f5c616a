// What `pitwall hpo --resume` runs and where it writes, with real searches over the trial script:
// - a results file whose stored command was changed (an edited or shared file) is not run: the resume stops with
//   exit 2, shows the command and the folders and asks for --yes; with --yes it runs, and is confirmed from then on;
// - a study started by another user (another state folder: no confirmation there) asks too, though unchanged;
// - best_params.yaml goes where the search was started to write it, also when resumed from another folder.
// If this fails, a results file can run any command on resume without the user seeing it, or a resume writes its
// best parameters under whatever folder it was started from.
#include "../pool/schedtestutil.h"

#include "core/pool/hposettings.h"
#include "core/store/store.h"

#include <QtTest>

#include "tests/support/components.h"

using namespace pitwall;
using namespace schedtest;

namespace {

QProcessEnvironment withStateHome(const QString& folder)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_STATE_HOME", folder);
    return env;
}

QStringList newSearch(const QTemporaryDir& dir, const QString& db, const QStringList& extra = {})
{
    const QString space = writeFile(dir, "space.yaml", "mode: ok\nx: {type: uniform, min: 0.0, max: 1.0}\n");
    return QStringList{"hpo",       "--db",     db,       "--command", trialCommand(), "--space", space,
                       "--sampler", "random",   "--seed", "1",         "--pruner",     "none",    "--study",
                       "s",         "--trials", "1"} +
           extra;
}

// The study's stored trial command replaced, as an edited results file would have it.
void replaceStoredCommand(const QString& db, const std::string& command)
{
    auto store = openStore(db.toStdString());
    const StudyRecord study = store->requireStudy("s");
    HpoSettings settings = *readHpoSettings(study);
    settings.command = command;
    writeHpoSettings(*store, study.id, settings);
}

} // namespace

class TestSearchResume : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists("/usr/bin/python3"))
            PITWALL_FAIL_MISSING("python3", "the trial script needs /usr/bin/python3");
    }
    void changedCommandNeedsConfirmation();
    void anotherUsersStudyNeedsConfirmation();
    void bestParamsGoWhereTheSearchStarted();
};

void TestSearchResume::changedCommandNeedsConfirmation()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db"), state = dir.filePath("state");
    const auto env = withStateHome(state);
    CliResult started = runCli(newSearch(dir, db), dir.path(), env);
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));

    // Unchanged, by the user who started it: goes on without a question, and says what it runs.
    CliResult resumed = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "2"}, dir.path(), env);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY2(resumed.err.contains("as you started or confirmed it") && resumed.err.contains(kTrialScript),
             qPrintable(resumed.err));

    const QString marker = dir.filePath("ran");
    replaceStoredCommand(db, "/usr/bin/touch " + marker.toStdString());
    CliResult refused = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "3"}, dir.path(), env);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("command: /usr/bin/touch " + marker), qPrintable(refused.err));
    QVERIFY2(refused.err.contains("logs in: ") && refused.err.contains("best parameters to: "),
             qPrintable(refused.err));
    QVERIFY2(refused.err.contains("--yes"), qPrintable(refused.err));
    QVERIFY2(!QFile::exists(marker), "the unconfirmed command ran");
    QCOMPARE(trials(db, "s").size(), std::size_t(2)); // no trial was started

    // --check is refused the same way: it says what a resume would do.
    CliResult checked = runCli({"hpo", "--resume", "s", "--db", db, "--check"}, dir.path(), env);
    QCOMPARE(checked.exitCode, 2);
    QVERIFY2(checked.err.contains("/usr/bin/touch"), qPrintable(checked.err));

    CliResult confirmed = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "3", "--yes"}, dir.path(), env);
    QVERIFY2(confirmed.err.contains("confirmed with --yes"), qPrintable(confirmed.err));
    QVERIFY2(QFile::exists(marker), qPrintable("the confirmed command did not run:\n" + confirmed.err));
    QCOMPARE(trials(db, "s").size(), std::size_t(3));

    // Confirmed once: the next resume of the same goes on by itself.
    CliResult again = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "4"}, dir.path(), env);
    QVERIFY2(again.err.contains("as you started or confirmed it"), qPrintable(again.err));
    QCOMPARE(trials(db, "s").size(), std::size_t(4));

    // --yes belongs to --resume.
    CliResult misplaced = runCli(newSearch(dir, dir.filePath("other.db"), {"--yes"}), dir.path(), env);
    QCOMPARE(misplaced.exitCode, 2);
    QVERIFY2(misplaced.err.contains("--yes confirms what a --resume runs"), qPrintable(misplaced.err));
}

void TestSearchResume::anotherUsersStudyNeedsConfirmation()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db");
    CliResult started = runCli(newSearch(dir, db), dir.path(), withStateHome(dir.filePath("alice")));
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    const auto bob = withStateHome(dir.filePath("bob"));
    CliResult refused = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "2"}, dir.path(), bob);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("command: /usr/bin/python3 " + kTrialScript), qPrintable(refused.err));
    QCOMPARE(trials(db, "s").size(), std::size_t(1));
    CliResult confirmed = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "2", "--yes"}, dir.path(), bob);
    QVERIFY2(confirmed.exitCode == 0, qPrintable(confirmed.err));
    QCOMPARE(trials(db, "s").size(), std::size_t(2));
    // Bob's confirmation is his: the file holding it is his alone.
    const QFile::Permissions mode = QFile(dir.filePath("bob/pitwall/confirmed-resumes.jsonl")).permissions();
    QVERIFY(mode.testFlag(QFile::ReadOwner) && mode.testFlag(QFile::WriteOwner));
    QVERIFY(!mode.testFlag(QFile::ReadGroup) && !mode.testFlag(QFile::ReadOther));
}

void TestSearchResume::bestParamsGoWhereTheSearchStarted()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("a") && QDir(dir.path()).mkpath("b"));
    const QString db = dir.filePath("r.db"), state = dir.filePath("state");
    const auto env = withStateHome(state);
    // Started in a/ with the default path: a/runs/s/best_params.yaml.
    CliResult started = runCli(newSearch(dir, db), dir.filePath("a"), env);
    QVERIFY2(started.exitCode == 0, qPrintable(started.err));
    const QString best = dir.filePath("a/runs/s/best_params.yaml");
    QVERIFY2(QFile::exists(best), qPrintable(started.err));
    QVERIFY(QFile::remove(best));

    CliResult resumed = runCli({"hpo", "--resume", "s", "--db", db, "--trials", "2"}, dir.filePath("b"), env);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY2(QFile::exists(best), qPrintable("the resume did not write " + best + ":\n" + resumed.err));
    QVERIFY2(!QFileInfo::exists(dir.filePath("b/runs")), "the resume wrote under the folder it was started from");
    QVERIFY2(resumed.err.contains("best parameters to: " + best), qPrintable(resumed.err));
}

QTEST_GUILESS_MAIN(TestSearchResume)
#include "tst_search_resume.moc"
