// What a test does when a component it needs is missing (tests/README.md, "Missing components").
// - A component that packaging/install-deps.sh installs (/usr/bin/python3, Optuna, ...): PITWALL_FAIL_MISSING,
//   a failure that names the component and the script. Never a skip: CTest would count it as passed.
// - A truly optional one, which no script can install (a CPU feature, a second core, setpriv when run as root):
//   PITWALL_SKIP_OPTIONAL in a test function. The executable then ends with kSkipReturnCode, which CTest counts
//   as skipped ("Not Run"). Its main must be PITWALL_TEST_MAIN (without it the skip does not link) and its
//   pitwall_add_test must say MAY_SKIP (without it exit 77 reads as a failure).
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QtTest>

namespace pitwall::test {

// CTest's SKIP_RETURN_CODE for the tests registered with MAY_SKIP (cmake/PitwallHelpers.cmake).
inline constexpr int kSkipReturnCode = 77;

// Optional skips taken so far in this process; defined by PITWALL_TEST_MAIN.
extern int optionalSkips;

inline QString missingInstalledMessage(const QString& component, const QString& why,
                                       const QString& installer = QStringLiteral("packaging/install-deps.sh"))
{
    return component + " is missing (" + why + "); " + installer +
           " installs it, so this is a failure and not a skip: run `bash " + installer + "`";
}

// Qt Test on `test`: its failure count when anything failed (never kSkipReturnCode), else kSkipReturnCode when a
// function took an optional skip, else 0.
inline int execWithOptionalSkips(QObject* test, int argc, char** argv)
{
    const int failures = QTest::qExec(test, argc, argv);
    if (failures != 0)
        return failures == kSkipReturnCode ? kSkipReturnCode + 1 : failures;
    return optionalSkips > 0 ? kSkipReturnCode : 0;
}

} // namespace pitwall::test

// Fails the current test function: `component` (what to install, e.g. "python3-optuna") is missing because `why`.
#define PITWALL_FAIL_MISSING(component, why)                                                                           \
    QFAIL(qPrintable(pitwall::test::missingInstalledMessage(QStringLiteral(component), why)))

// Skips the rest of the current test function because an optional component is missing; `why` names it.
#define PITWALL_SKIP_OPTIONAL(why)                                                                                     \
    do {                                                                                                               \
        ++pitwall::test::optionalSkips;                                                                                \
        QSKIP(why);                                                                                                    \
    } while (false)

// QTEST_GUILESS_MAIN that ends with kSkipReturnCode after an optional skip.
#define PITWALL_TEST_MAIN(TestObject)                                                                                  \
    int pitwall::test::optionalSkips = 0;                                                                              \
    int main(int argc, char** argv)                                                                                    \
    {                                                                                                                  \
        QCoreApplication app(argc, argv);                                                                              \
        TestObject test;                                                                                               \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return pitwall::test::execWithOptionalSkips(&test, argc, argv);                                                \
    }
