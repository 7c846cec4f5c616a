// What to run (ui/configure/runoptions): each kind's fields are its job spec (core/jobs) both ways, and a problem of
// the CLI's `--check --json` lands under the field its `field` names, whatever its message says. If this fails, Start
// runs another command line than the fields show, Edit spec loads a job into the wrong fields, or a refused check
// shows its problem away from the field to fix.
#include "core/config/schema.h"
#include "core/jobs/jobproblems.h"
#include "ui/configure/runoptions.h"

#include "tests/support/testpaths.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace pitwall;
using pitwall::test::sourcePath;

class TestRunOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aProblemLandsUnderItsField_data();
    void aProblemLandsUnderItsField();
    void aProblemOfNoFieldIsNotShownAtOne();
    void wordsGoBackIntoTheFields_data();
    void wordsGoBackIntoTheFields();
    void checkRefusesWhatTheSpecRefuses();
    void aResumedSearchIsNotLoaded();

private:
    Schema m_schema;
    QTemporaryDir m_dir;
};

namespace {

template <typename T> T* child(QWidget* root, const QString& name)
{
    T* found = root->findChild<T*>(name);
    if (!found)
        qFatal("no widget named %s", qPrintable(name));
    return found;
}

// Sets a field as a user does: a combo box by the arrow keys to its item (an editable one and any other field by
// selecting all and typing), then Tab.
void setField(QWidget* field, const QString& text)
{
    field->setFocus();
    if (auto* check = qobject_cast<QCheckBox*>(field)) { // "on" or "off", by the space bar as a user would
        if (check->isChecked() != (text == "on"))
            QTest::keyClick(check, Qt::Key_Space);
        QCOMPARE(check->isChecked(), text == "on");
        return;
    }
    auto* box = qobject_cast<QComboBox*>(field);
    if (box && !box->isEditable()) {
        const int target = box->findText(text);
        QVERIFY2(target >= 0, qPrintable(text));
        for (int step = 0; step < box->count() && box->currentIndex() != target; ++step)
            QTest::keyClick(box, box->currentIndex() < target ? Qt::Key_Down : Qt::Key_Up);
        QCOMPARE(box->currentIndex(), target);
        return;
    }
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Tab);
}

const char* kindLabel(ui::RunKind kind)
{
    switch (kind) {
    case ui::RunKind::Train:
        return "Training run";
    case ui::RunKind::Search:
        return "Hyperparameter search";
    case ui::RunKind::Variants:
        return "Variant benchmark";
    case ui::RunKind::Partitions:
        return "Partition benchmark";
    case ui::RunKind::Driving:
        return "Closed-loop driving evaluation";
    case ui::RunKind::Loader:
        break;
    }
    return "Data-loader benchmark";
}

} // namespace

Q_DECLARE_METATYPE(ui::RunKind)

void TestRunOptions::initTestCase()
{
    m_schema = loadSchema();
    QVERIFY(m_dir.isValid());
}

// kind, the problem's field, the widget it must land under; every message names other options on purpose.
void TestRunOptions::aProblemLandsUnderItsField_data()
{
    QTest::addColumn<ui::RunKind>("kind");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("widget");
    QTest::newRow("trials") << ui::RunKind::Search << "trials"
                            << "searchTrials";
    QTest::newRow("study") << ui::RunKind::Search << "study"
                           << "searchStudy";
    QTest::newRow("objective") << ui::RunKind::Search << "objective"
                               << "searchObjective";
    QTest::newRow("final epochs") << ui::RunKind::Search << "final_epochs"
                                  << "searchFinalEpochs";
    QTest::newRow("space") << ui::RunKind::Search << "space"
                           << "searchSpaceFile";
    QTest::newRow("bench file") << ui::RunKind::Variants << "file"
                                << "variantsFile";
    QTest::newRow("seeds") << ui::RunKind::Variants << "seeds"
                           << "variantsSeeds";
    QTest::newRow("batch sizes") << ui::RunKind::Partitions << "batch_sizes"
                                 << "partitionBatchSizes";
    QTest::newRow("modes") << ui::RunKind::Partitions << "modes"
                           << "partitionModes";
    QTest::newRow("policy") << ui::RunKind::Driving << "policy"
                            << "drivingPolicy";
    QTest::newRow("routes") << ui::RunKind::Driving << "routes"
                            << "drivingRoutes";
    QTest::newRow("images") << ui::RunKind::Loader << "images"
                            << "loaderImages";
}

void TestRunOptions::aProblemLandsUnderItsField()
{
    QFETCH(ui::RunKind, kind);
    QFETCH(QString, field);
    QFETCH(QString, widget);
    ui::RunOptions run(&m_schema);
    run.show();
    QVERIFY(QTest::qWaitForWindowExposed(&run));
    setField(run.kindBox(), kindLabel(kind));
    QCOMPARE(run.kind(), kind);
    const std::string message = "--study, --trials, --seeds, --policy, --images and run 7 all named here; " +
                                field.toStdString() + " is what counts";
    const QStringList placed = run.showProblems({{field.toStdString(), "--whatever", message}});
    QCOMPARE(placed, QStringList{widget});
    QCOMPARE(run.problemAt(widget), QString::fromStdString(message));
    QVERIFY(child<QLabel>(&run, widget + "Problem")->isVisible());
    // Nowhere else, although the message names other fields' options.
    for (const QString& other : {"searchTrials", "searchStudy", "variantsSeeds", "drivingPolicy", "loaderImages"})
        if (other != widget)
            QCOMPARE(run.problemAt(other), QString());
}

void TestRunOptions::aProblemOfNoFieldIsNotShownAtOne()
{
    ui::RunOptions run(&m_schema);
    run.show();
    QVERIFY(QTest::qWaitForWindowExposed(&run));
    setField(run.kindBox(), kindLabel(ui::RunKind::Search));
    QVERIFY(run.showProblems({{"", "", "the results database is damaged (--study --trials)"},
                              {"partition", "--partition", "--partition 'HPX' is not one of SPX, DPX, QPX, CPX"}})
                .isEmpty());
    for (const QString& name : {"searchTrials", "searchStudy", "searchSpaceFile", "searchObjective"})
        QCOMPARE(run.problemAt(name), QString());
    // Two problems of one field: both, one under the other.
    QCOMPARE(run.showProblems({{"study", "--study", "first"}, {"study", "--study", "second"}}),
             QStringList{"searchStudy"});
    QCOMPARE(run.problemAt("searchStudy"), QString("first\nsecond"));
}

// The fields typed for a kind give a command line; Edit spec loads it into a fresh panel, which gives the same one.
void TestRunOptions::wordsGoBackIntoTheFields_data()
{
    QTest::addColumn<ui::RunKind>("kind");
    QTest::addColumn<QStringList>("typed"); // widget, text, widget, text, ...
    QTest::newRow("train") << ui::RunKind::Train << QStringList{};
    QTest::newRow("search") << ui::RunKind::Search
                            << QStringList{"searchTrials",      "7",         "searchEpochs",    "2",
                                           "searchStudy",       "mine",      "searchSpaceFile", "/s/space.yaml",
                                           "searchFinalEpochs", "3",         "searchSampler",   "random",
                                           "searchPruner",      "hyperband", "searchDirection", "maximize",
                                           "searchObjective",   "val/loss"};
    QTest::newRow("search, defaults") << ui::RunKind::Search << QStringList{"searchSpaceFile", "/s/space.yaml"};
    QTest::newRow("search, two objectives and labels")
        << ui::RunKind::Search
        << QStringList{"searchSpaceFile",  "/s/space.yaml",  "searchObjective",  "val/waypoint_l1",
                       "searchDirection",  "minimize",       "searchObjective2", "driving_score",
                       "searchDirection2", "maximize",       "searchSampler",    "nsga2",
                       "searchLabelsFile", "/s/labels.yaml"};
    QTest::newRow("search, partition auto")
        << ui::RunKind::Search << QStringList{"searchSpaceFile", "/s/space.yaml", "searchPartitionAuto", "on"};
    QTest::newRow("variants") << ui::RunKind::Variants
                              << QStringList{"variantsFile", "/b/speed.yaml", "variantsSeeds", "0,2"};
    QTest::newRow("partitions") << ui::RunKind::Partitions
                                << QStringList{"partitionBatchSizes", "4, 8", "partitionEpochs", "3"};
    QTest::newRow("partitions, recommend") << ui::RunKind::Partitions << QStringList{"partitionRecommend", "on"};
    QTest::newRow("driving") << ui::RunKind::Driving
                             << QStringList{"drivingPolicy", "12,13", "drivingRoutes", "5", "drivingSeed", "4"};
    QTest::newRow("loader") << ui::RunKind::Loader << QStringList{"loaderImages", "/i", "loaderBatches", "40"};
}

void TestRunOptions::wordsGoBackIntoTheFields()
{
    QFETCH(ui::RunKind, kind);
    QFETCH(QStringList, typed);
    ui::RunOptions run(&m_schema);
    run.show();
    QVERIFY(QTest::qWaitForWindowExposed(&run));
    setField(run.kindBox(), kindLabel(kind));
    for (int i = 0; i + 1 < typed.size(); i += 2)
        setField(child<QWidget>(&run, typed[i]), typed[i + 1]);
    const ui::RunContext context{m_dir.filePath("config.yaml"), m_dir.filePath("space.yaml"), m_dir.filePath("r.db")};
    const QStringList words = run.words(context);
    QVERIFY(!words.isEmpty());
    // A ticked box is its option: partition auto, or a recommendation run that leaves batch sizes and epochs to it.
    QCOMPARE(words.join(' ').contains("--partition auto"), typed.contains("searchPartitionAuto"));
    QCOMPARE(words.contains("--recommend"), typed.contains("partitionRecommend"));
    // A second objective is a second --objective/--direction pair, after the first.
    if (typed.contains("searchObjective2")) {
        const QString line = words.join(' ');
        QVERIFY2(line.contains("--objective val/waypoint_l1") && line.contains("--objective driving_score") &&
                     line.indexOf("--objective val/waypoint_l1") < line.indexOf("--objective driving_score") &&
                     line.contains("--direction minimize") && line.contains("--direction maximize") &&
                     line.contains("--labels /s/labels.yaml") && line.contains("--sampler nsga2"),
                 qPrintable(line));
    }
    if (typed.contains("partitionRecommend"))
        QVERIFY2(!words.contains("--batch-sizes") && !words.contains("--epochs"), qPrintable(words.join(' ')));

    ui::RunOptions loaded(&m_schema);
    QStringList configs, overrides;
    QString error;
    QVERIFY2(loaded.loadWords(words, configs, overrides, error), qPrintable(error));
    QCOMPARE(loaded.kind(), kind);
    QCOMPARE(loaded.words(context), words);
    if (kind == ui::RunKind::Train || kind == ui::RunKind::Search || kind == ui::RunKind::Partitions)
        QCOMPARE(configs, QStringList{m_dir.filePath("config.yaml")});
    QVERIFY(overrides.isEmpty());
}

// Start's own check refuses what the job's spec refuses of a field, with the spec's words, under that field.
void TestRunOptions::checkRefusesWhatTheSpecRefuses()
{
    ui::RunOptions run(&m_schema);
    run.show();
    QVERIFY(QTest::qWaitForWindowExposed(&run));
    setField(run.kindBox(), kindLabel(ui::RunKind::Variants));
    setField(child<QWidget>(&run, "variantsFile"), sourcePath("/configs/transfuser/speed.yaml"));
    setField(child<QWidget>(&run, "variantsSeeds"), "0,x");
    const QStringList problems = run.check({});
    QCOMPARE(problems, QStringList{"--seeds '0,x': 'x' is not a seed"});
    QCOMPARE(run.problemAt("variantsSeeds"), problems.front());
    QCOMPARE(run.problemAt("variantsFile"), QString());

    setField(run.kindBox(), kindLabel(ui::RunKind::Partitions));
    setField(child<QWidget>(&run, "partitionBatchSizes"), "8,0");
    QCOMPARE(run.check({}), QStringList{"--batch-sizes '8,0': '0' is not a batch size >= 1"});
    QVERIFY(!run.problemAt("partitionBatchSizes").isEmpty());
}

void TestRunOptions::aResumedSearchIsNotLoaded()
{
    ui::RunOptions run(&m_schema);
    QStringList configs, overrides;
    QString error;
    QVERIFY(!run.loadWords({"hpo", "--resume", "S", "--trials", "9"}, configs, overrides, error));
    QVERIFY2(error.contains("--resume"), qPrintable(error));
    QVERIFY(!run.loadWords({"hpo", "c.yaml", "--trails", "9"}, configs, overrides, error));
    QVERIFY2(error.contains("did you mean '--trials'"), qPrintable(error));
    QVERIFY(!run.loadWords({"db", "info"}, configs, overrides, error));
}

QTEST_MAIN(TestRunOptions)
#include "tst_runoptions.moc"
