// studyFolder(): the folder a study or experiment name becomes under an output folder (hpo's best_params.yaml
// and logs, train's and the trials' checkpoints). If this fails, a name such as "/abs" or "../x" writes outside
// the output folder, or two different names share one folder.
#include "core/util/paths.h"

#include <QtTest>

#include <set>

using pitwall::studyFolder;

class TestStudyFolder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plainNamesAreKept_data();
    void plainNamesAreKept();
    void staysInside_data();
    void staysInside();
    void changedNamesDoNotCollide();
};

void TestStudyFolder::plainNamesAreKept_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("hpo") << "transfuser-smoke-hpo";
    QTest::newRow("dots and underscores") << "run_1.v2";
    QTest::newRow("leading dots") << "..hidden";                              // a name, not a parent folder
    QTest::newRow("final comparison") << "autospeed-smoke-hpo/final-default"; // a sub-folder, as before
}

void TestStudyFolder::plainNamesAreKept()
{
    QFETCH(QString, name);
    QCOMPARE(QString::fromStdString(studyFolder(name.toStdString()).string()), name);
}

void TestStudyFolder::staysInside_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name :
         {"/abs", "/", "", ".", "..", "../../escaped", "a/../../b", "a//b/", "x y:z\\*", "caf\xc3\xa9"})
        QTest::newRow(name[0] ? name : "empty") << QString::fromUtf8(name);
    QTest::newRow("long") << QString(300, 'n');
}

void TestStudyFolder::staysInside()
{
    QFETCH(QString, name);
    const std::filesystem::path folder = studyFolder(name.toStdString());
    QVERIFY(folder.is_relative());
    QVERIFY(!folder.empty());
    for (const auto& part : folder) {
        const std::string text = part.string();
        QVERIFY2(text != "." && text != ".." && !text.empty(), text.c_str());
        QVERIFY2(text.size() <= 110, text.c_str());
        for (char c : text)
            QVERIFY2(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-', text.c_str());
    }
    // A changed name carries a hash: "-" and 8 hex digits.
    QVERIFY(QRegularExpression("-[0-9a-f]{8}$").match(QString::fromStdString(folder.string())).hasMatch());
}

void TestStudyFolder::changedNamesDoNotCollide()
{
    std::set<std::string> folders;
    for (const char* name : {"a b", "a:b", "a_b", "a*b", "/a_b", "a_b/", ".", "..", "_", "__"})
        QVERIFY2(folders.insert(studyFolder(name).string()).second, name);
}

QTEST_GUILESS_MAIN(TestStudyFolder)
#include "tst_studyfolder.moc"
