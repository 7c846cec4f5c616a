// The configure view's form, generated from a schema: one editor per key of the right kind, grouped, with the
// doc as tooltip; ranges and choices enforced while typing; text fields that fail the schema check flagged
// in place without corrupting the config. If these fail, the window lets a user build a config that
// `pitwall train` would reject, or silently changes values the user did not touch.
#include "ui/configure/configform.h"
#include "ui/configure/configureview.h"
#include "ui/configure/devicepanel.h"

#include "core/config/workload.h"
#include "core/devices/devices.h"
#include "core/util/process.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace pitwall;

namespace {
const char* const kSchemaYaml = R"(owner: core
keys:
  run.name:
    type: string
    default: demo
    group: Run
    doc: Name of the run.
  run.batch_size:
    type: int
    default: 64
    min: 1
    max: 512
    group: Run / Optimisation
    speed: true
    doc: Global batch size.
  run.lr:
    type: float
    default: 0.0003
    min: 0
    min_exclusive: true
    max: 1
    group: Run / Optimisation
    doc: Peak learning rate.
  run.mode:
    type: choice
    choices: [bilinear, nearest]
    default: bilinear
    group: Run / Optimisation
    speed: true
    doc: Up-sampling mode.
  run.compile:
    type: bool
    default: true
    group: Run
    speed: true
    doc: Capture the step.
  run.seeds:
    type: int_list
    default: [0]
    min: 0
    group: Run
    doc: Training seeds.
)";

Schema testSchema()
{
    Schema schema;
    schema.addFromYaml(kSchemaYaml, "test.schema.yaml");
    return schema;
}

QLineEdit* lineOf(QAbstractSpinBox* spin)
{
    return spin->findChild<QLineEdit*>();
}
} // namespace

class TestConfigForm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void buildsOneEditorPerKeyInGroups();
    void refusesAnOutOfRangeNumber();
    void refusesAFloatAtAnExclusiveMinimum();
    void offersOnlyTheChoices();
    void flagsABadListInPlace();
    void keepsExtraEditorsInStep();
    void coversTheRealSchemaWithSpeedPanel();
    void speedPanelShowsTheModelsOptionsOnly();
    void filterHidesGroupsWithoutAMatch();
    void showsResolvedYamlLiveAndSavesChangedKeys();
    void devicePanelShowsLogicalDevicesAndWhyAModeIsUnavailable();
    void devicePanelShowsWhatEachModeGivesAndMeasured();
    void devicePanelRecommendsTheMeasuredMode();
};

void TestConfigForm::buildsOneEditorPerKeyInGroups()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    QCOMPARE(form.groups(), QStringList({"Run", "Run / Optimisation"}));
    QVERIFY(form.findChild<QGroupBox*>("group:Run / Optimisation"));
    QVERIFY(qobject_cast<QLineEdit*>(form.editor("run.name")));
    QVERIFY(qobject_cast<QSpinBox*>(form.editor("run.batch_size")));
    QVERIFY(qobject_cast<QDoubleSpinBox*>(form.editor("run.lr")));
    QVERIFY(qobject_cast<QComboBox*>(form.editor("run.mode")));
    QVERIFY(qobject_cast<QCheckBox*>(form.editor("run.compile")));
    QVERIFY(qobject_cast<QLineEdit*>(form.editor("run.seeds")));
    QVERIFY2(form.editor("run.batch_size")->toolTip().contains("Global batch size."), "the doc string is the tooltip");
    QVERIFY(form.editor("run.batch_size")->toolTip().contains("[1, 512]"));
    auto* batch = qobject_cast<QSpinBox*>(form.editor("run.batch_size"));
    QCOMPARE(batch->minimum(), 1);
    QCOMPARE(batch->maximum(), 512);
    QCOMPARE(batch->value(), 64);
    QCOMPARE(qobject_cast<QLineEdit*>(form.editor("run.seeds"))->text(), QString("[0]"));
}

void TestConfigForm::refusesAnOutOfRangeNumber()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    form.show();
    auto* batch = qobject_cast<QSpinBox*>(form.editor("run.batch_size"));
    lineOf(batch)->selectAll();
    QTest::keyClicks(batch, "999");
    QVERIFY2(batch->value() != 999 && lineOf(batch)->text() != "999",
             "999 is above the maximum 512: the keystroke is refused");
    QVERIFY(form.config().getInt("run.batch_size") <= 512);
    // Below the minimum, the text can still become valid: it stays, is flagged, and never reaches the config.
    lineOf(batch)->selectAll();
    QTest::keyClicks(batch, "0");
    QCOMPARE(lineOf(batch)->text(), QString("0"));
    QVERIFY2(!form.problem("run.batch_size").isEmpty(), "the refused text is flagged while it is there");
    QVERIFY(form.config().getInt("run.batch_size") >= 1);
    QTest::keyClick(batch, Qt::Key_Return);
    batch->clearFocus();
    QVERIFY(batch->value() >= 1 && batch->value() <= 512);
    QCOMPARE(form.problem("run.batch_size"), QString());
    // An accepted value reaches the config.
    lineOf(batch)->selectAll();
    QTest::keyClicks(batch, "96");
    QCOMPARE(form.config().getInt("run.batch_size"), 96LL);
}

void TestConfigForm::refusesAFloatAtAnExclusiveMinimum()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    form.show();
    auto* lr = qobject_cast<QDoubleSpinBox*>(form.editor("run.lr"));
    QCOMPARE(lineOf(lr)->text(), QString("0.0003"));
    lineOf(lr)->selectAll();
    QTest::keyClicks(lr, "0");
    QVERIFY2(!form.problem("run.lr").isEmpty(), "0 is not above the exclusive minimum");
    QCOMPARE(form.config().getDouble("run.lr"), 0.0003);
    lineOf(lr)->selectAll();
    QTest::keyClicks(lr, "3e-6");
    QCOMPARE(form.config().getDouble("run.lr"), 3e-6);
    QCOMPARE(form.problem("run.lr"), QString());
    lineOf(lr)->selectAll();
    QTest::keyClicks(lr, "x"); // not a number at all: not even accepted as text
    QVERIFY(!lineOf(lr)->text().contains('x'));
}

void TestConfigForm::offersOnlyTheChoices()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    auto* mode = qobject_cast<QComboBox*>(form.editor("run.mode"));
    QVERIFY(!mode->isEditable());
    QStringList items;
    for (int i = 0; i < mode->count(); ++i)
        items << mode->itemText(i);
    QCOMPARE(items, QStringList({"bilinear", "nearest"}));
    mode->setCurrentText("nearest");
    QCOMPARE(form.config().getString("run.mode"), std::string("nearest"));
    QVERIFY(!form.setText("run.mode", "linear").isEmpty()); // through text too
    QCOMPARE(form.config().getString("run.mode"), std::string("nearest"));
}

void TestConfigForm::flagsABadListInPlace()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    form.show();
    auto* seeds = qobject_cast<QLineEdit*>(form.editor("run.seeds"));
    seeds->selectAll();
    QTest::keyClicks(seeds, "[0, -1]");
    const QString problem = form.problem("run.seeds");
    QVERIFY2(problem.contains("below the minimum"), qPrintable(problem));
    auto* label = form.findChild<QLabel*>("problem:run.seeds");
    QVERIFY(label && label->isVisible());
    QCOMPARE(label->text(), problem);
    QCOMPARE(form.config().value("run.seeds").toText(), std::string("[0]")); // the last good value is kept
    QVERIFY(form.hasProblems());
    seeds->selectAll();
    QTest::keyClicks(seeds, "[0, 1, 2]");
    QCOMPARE(form.problem("run.seeds"), QString());
    QVERIFY(!label->isVisible());
    QCOMPARE(form.config().value("run.seeds").toText(), std::string("[0, 1, 2]"));
    QVERIFY(!form.hasProblems());
}

void TestConfigForm::keepsExtraEditorsInStep()
{
    const Schema schema = testSchema();
    ui::ConfigForm form(schema);
    QWidget panel;
    QWidget* extra = form.createEditor("run.compile", &panel);
    auto* check = extra->findChild<QCheckBox*>("run.compile");
    QVERIFY(check && check->isChecked());
    qobject_cast<QCheckBox*>(form.editor("run.compile"))->setChecked(false);
    QVERIFY2(!check->isChecked(), "a speed-panel toggle follows the form");
    check->setChecked(true);
    QVERIFY(qobject_cast<QCheckBox*>(form.editor("run.compile"))->isChecked());
    QCOMPARE(form.config().getBool("run.compile"), true);
}

void TestConfigForm::coversTheRealSchemaWithSpeedPanel()
{
    ui::ConfigureView view;
    const Schema& schema = view.form()->schema();
    QVERIFY(schema.keys().size() > 30);
    QWidget* speed = view.panels()->findChild<QWidget*>("speedPanel");
    QVERIFY(speed);
    for (const KeySpec& spec : schema.keys()) {
        const QString key = QString::fromStdString(spec.key);
        QVERIFY2(view.form()->editor(key), qPrintable(key));
        if (spec.speed)
            QVERIFY2(speed->findChild<QWidget*>(key), qPrintable("speed panel lacks " + key));
    }
    QVERIFY(schema.find("policy.transfuser.upsample_mode")); // plugin keys come from the plugin's schema file
}

// The Speed options panel lists the core's options and the config's model's: a TransFuser config shows LEAD's
// options, not AutoSpeed's; switching experiment.model to autospeed swaps them.
void TestConfigForm::speedPanelShowsTheModelsOptionsOnly()
{
    ui::ConfigureView view;
    QWidget* speed = view.panels()->findChild<QWidget*>("speedPanel");
    QVERIFY(speed);
    auto* form = qobject_cast<QFormLayout*>(speed->layout());
    QVERIFY(form);
    const auto shown = [&](const char* key) { // the row whose label is the key
        for (QLabel* label : speed->findChildren<QLabel*>())
            if (label->text() == QLatin1String(key))
                return form->isRowVisible(label);
        return false;
    };
    QCOMPARE(QString::fromStdString(view.form()->config().getString("experiment.model")), QString("transfuser"));
    QVERIFY(shown("policy.transfuser.upsample_perspective_logits"));
    QVERIFY(!shown("autospeed.disable_vectorized_loss"));
    QVERIFY(shown("training.optimization.batch_size")); // the core's, for every model
    QCOMPARE(view.form()->setText("experiment.model", "autospeed"), QString());
    QVERIFY(!shown("policy.transfuser.upsample_perspective_logits"));
    QVERIFY(shown("autospeed.disable_vectorized_loss"));
    QVERIFY(shown("training.optimization.batch_size"));

    // "Compare these" compares speed options, not partition modes: the partition benchmark does that.
    QTemporaryDir dir;
    view.setDatabase(dir.filePath("speed.db"));
    QCOMPARE(view.form()->setText("device.partition_mode", "DPX"), QString());
    auto* compare = speed->findChild<QPushButton*>("compareSpeedOptions");
    QVERIFY(compare);
    QTest::mouseClick(compare, Qt::LeftButton);
    QVERIFY2(view.launchOutput()->toPlainText().contains("compared by a partition benchmark"),
             qPrintable(view.launchOutput()->toPlainText()));
}

// Typing in the form's filter hides the keys that do not match, and a group with none left is hidden whole (no empty
// boxes); clearing the filter shows every group again.
void TestConfigForm::filterHidesGroupsWithoutAMatch()
{
    ui::ConfigureView view;
    auto* filter = view.findChild<QLineEdit*>("configFilter");
    QVERIFY(filter);
    const QList<QGroupBox*> groups = view.form()->findChildren<QGroupBox*>();
    QVERIFY(groups.size() > 3);
    QTest::keyClicks(filter, "upsample_mode");
    int shown = 0;
    for (QGroupBox* group : groups) {
        if (group->isHidden())
            continue;
        ++shown;
        // A group still shown has a matching key showing.
        QVERIFY2(!group->findChildren<QWidget*>("policy.transfuser.upsample_mode").isEmpty(),
                 qPrintable(group->title()));
    }
    QCOMPARE(shown, 1);
    filter->clear();
    for (QGroupBox* group : groups)
        QVERIFY2(!group->isHidden(), qPrintable(group->title()));
}

void TestConfigForm::showsResolvedYamlLiveAndSavesChangedKeys()
{
    ui::ConfigureView view;
    QVERIFY(view.resolvedYaml()->toPlainText().contains("batch_size: 64"));
    QCOMPARE(view.form()->setText("training.optimization.batch_size", "96"), QString());
    QVERIFY(view.resolvedYaml()->toPlainText().contains("batch_size: 96  # form"));
    QTemporaryDir dir;
    const QString path = dir.filePath("saved.yaml");
    QCOMPARE(view.saveConfig(path), QString());
    ui::ConfigureView other;
    QCOMPARE(other.loadConfig(path), QString());
    QCOMPARE(other.form()->config().getInt("training.optimization.batch_size"), 96LL);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY2(!text.contains("weight_decay"), "only changed keys are saved");
    // A file the schema rejects is reported, and the form keeps its values.
    QFile bad(dir.filePath("bad.yaml"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("training:\n  optimization:\n    batch_sise: 3\n");
    bad.close();
    QVERIFY(!other.loadConfig(bad.fileName()).isEmpty());
    QCOMPARE(other.form()->config().getInt("training.optimization.batch_size"), 96LL);
}

void TestConfigForm::devicePanelShowsLogicalDevicesAndWhyAModeIsUnavailable()
{
    ui::ConfigureView view;
    ui::DevicePanel* panel = view.devices();
    QCOMPARE(view.form()->setText("device.backend", "cpu"), QString());
    QCOMPARE(view.form()->setText("device.partition_mode", "SPX"), QString());
    QCOMPARE(panel->logicalDevices()->topLevelItemCount(), 1);
    QVERIFY(panel->logicalDevices()->topLevelItem(0)->text(0).startsWith("cpu:0"));
    // CPX needs 8 cores; on a machine with fewer the panel says why instead of listing devices.
    const auto cores = processCores().size();
    QCOMPARE(view.form()->setText("device.partition_mode", "CPX"), QString());
    if (cores < 8) {
        QVERIFY2(panel->unavailableReason().contains("unavailable"), qPrintable(panel->unavailableReason()));
        QCOMPARE(panel->logicalDevices()->topLevelItemCount(), 0);
    } else {
        QCOMPARE(panel->logicalDevices()->topLevelItemCount(), 8);
    }
    auto* spx = panel->findChild<QRadioButton*>("mode:SPX");
    spx->click();
    QCOMPARE(view.form()->config().getString("device.partition_mode"), std::string("SPX"));
}

void TestConfigForm::devicePanelShowsWhatEachModeGivesAndMeasured()
{
    ui::ConfigureView view;
    ui::DevicePanel* panel = view.devices();
    QCOMPARE(view.form()->setText("device.backend", "cpu"), QString());
    QCOMPARE(view.form()->setText("experiment.model", "transfuser"), QString());
    auto* spx = panel->findChild<QRadioButton*>("mode:SPX");
    auto* dpx = panel->findChild<QRadioButton*>("mode:DPX");
    // Cores and memory of each logical device, as the backend splits them.
    const auto cores = processCores().size();
    QVERIFY2(spx->text().contains(QString(", %1 core(s) and ").arg(cores)), qPrintable(spx->text()));
    QVERIFY2(!spx->text().contains("measured"), qPrintable(spx->text()));
    // Partition benchmarks of this model on this backend: the best compute FPS per mode, with its batch size.
    auto record = [](const char* mode, const char* model, long long batch, double fps) {
        BenchmarkRecord r;
        r.suite = "partitions";
        r.name = std::string(mode) + "/bs" + std::to_string(batch);
        r.parameters = {{"mode", mode}, {"model", model}, {"batch_size", batch}, {"backend", "cpu"}};
        r.results = {{"compute_fps", fps}, {"full_fps", fps / 2}};
        return r;
    };
    BenchmarkRecord other = record("SPX", "transfuser", 8, 999.0);
    other.suite = "variants";
    panel->setMeasurements({record("SPX", "transfuser", 8, 101.25), record("SPX", "transfuser", 16, 150.5),
                            record("SPX", "autospeed", 32, 800.0), record("DPX", "transfuser", 8, 180.0), other});
    QVERIFY2(spx->text().endsWith(" · measured 150.5 compute FPS (batch 16)"), qPrintable(spx->text()));
    if (cores >= 2)
        QVERIFY2(dpx->text().endsWith(" · measured 180.0 compute FPS (batch 8)"), qPrintable(dpx->text()));
    // Another model's figures are not this model's.
    QCOMPARE(view.form()->setText("experiment.model", "autospeed"), QString());
    QVERIFY2(spx->text().endsWith(" · measured 800.0 compute FPS (batch 32)"), qPrintable(spx->text()));
    if (cores >= 2)
        QVERIFY2(!dpx->text().contains("measured"), qPrintable(dpx->text()));
}

// A stored measurement of the form's workload on this machine names the mode to use; a link chooses it; another
// workload (a changed learning rate) has none.
void TestConfigForm::devicePanelRecommendsTheMeasuredMode()
{
    ui::ConfigureView view;
    ui::DevicePanel* panel = view.devices();
    QCOMPARE(view.form()->setText("device.backend", "cpu"), QString());
    QCOMPARE(view.form()->setText("device.partition_mode", "DPX"), QString());
    auto* label = panel->findChild<QLabel*>("partitionRecommendation");
    QVERIFY(label);
    QVERIFY2(label->text().startsWith("No partition measurement of this configuration"), qPrintable(label->text()));
    const std::string workload = workloadKey(view.form()->config());
    auto record = [&](const char* mode, int devices, double fullFps) {
        BenchmarkRecord r;
        r.suite = "partitions";
        r.host = hostName();
        r.time = 1000;
        r.parameters = {{"mode", mode},        {"batch_size", 8},          {"backend", "cpu"},
                        {"workload", workload}, {"logical_devices", devices}};
        r.results = {{"compute_fps", fullFps}, {"full_fps", fullFps}};
        return r;
    };
    // SPX measured faster; DPX counts only where this machine has the two cores it needs.
    panel->setMeasurements({record("SPX", 1, 150.0), record("DPX", 2, 60.0)});
    QVERIFY2(label->text().contains("<b>Recommended: SPX</b>"), qPrintable(label->text()));
    const QString reason = processCores().size() >= 2 ? "150.0 samples/s full FPS, 2.50x the next best, DPX (60.0)"
                                                      : "150.0 samples/s full FPS, the only mode that ran";
    QVERIFY2(label->text().contains(reason), qPrintable(label->text()));
    auto* spx = panel->findChild<QRadioButton*>("mode:SPX");
    QVERIFY2(spx->text().startsWith("SPX (recommended) — 1 logical device(s)"), qPrintable(spx->text()));
    QVERIFY(!panel->findChild<QRadioButton*>("mode:DPX")->text().contains("recommended"));
    QVERIFY2(label->text().contains("<a href=\"SPX\">use SPX</a>"), qPrintable(label->text()));
    Q_EMIT label->linkActivated("SPX"); // what a click on the link sends
    QCOMPARE(view.form()->config().getString("device.partition_mode"), std::string("SPX"));
    QVERIFY(spx->isChecked());
    QVERIFY2(!label->text().contains("use SPX"), qPrintable(label->text()));
    // Another workload: nothing measured for it.
    QCOMPARE(view.form()->setText("training.optimization.lr", "0.123"), QString());
    QVERIFY2(label->text().startsWith("No partition measurement"), qPrintable(label->text()));
    QVERIFY(!spx->text().contains("recommended"));
}

QTEST_MAIN(TestConfigForm)
#include "tst_configform.moc"
