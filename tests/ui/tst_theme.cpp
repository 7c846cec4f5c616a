// Pitwall's light and dark palettes (ui/theme.h) and the controller that follows the desktop (ui/themecontroller.h):
// text stays readable in both palettes; "system" takes the desktop's stated preference, else the platform palette;
// the controller follows the XDG desktop portal's color-scheme setting as it changes (on a private D-Bus daemon,
// with a stand-in for the portal's Settings interface: xdg-desktop-portal itself needs a desktop session), and a
// user's choice wins over it; View > Theme > Dark, clicked in the real menus, turns the window and its charts dark
// and is remembered for the next start.
#include "ui/mainwindow.h"
#include "ui/theme.h"
#include "ui/themecontroller.h"

#include <QtTest>

#include <QChart>
#include <QChartView>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>

#include <cmath>

using namespace pitwall::ui;

namespace {

// WCAG 2 relative luminance and contrast ratio.
double luminance(const QColor& c)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

const QString kPortalPath = QStringLiteral("/org/freedesktop/portal/desktop");
const QString kSettings = QStringLiteral("org.freedesktop.portal.Settings");

} // namespace

// Answers Settings.Read as xdg-desktop-portal does (a variant inside a variant) for the appearance color-scheme.
class PortalSettings : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.portal.Settings")
public:
    uint colorScheme = 1;
public Q_SLOTS:
    QDBusVariant Read(const QString& group, const QString& key)
    {
        const uint value = group == QLatin1String("org.freedesktop.appearance") && key == QLatin1String("color-scheme")
                               ? colorScheme
                               : 0u;
        return QDBusVariant(QVariant::fromValue(QDBusVariant(value)));
    }
};

class TestTheme : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void palettesKeepTextReadable();
    void systemTakesTheDesktopsPreference();
    void followsThePortalUnlessTheUserChose();
    void menuTurnsTheWindowDarkAndRemembers();

private:
    bool startBus();
    void announce(uint colorScheme);

    QTemporaryDir m_settings;
    QProcess m_daemon;
    QString m_address;
};

void TestTheme::initTestCase()
{
    QVERIFY(m_settings.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    QCoreApplication::setOrganizationName("PitwallTest");
    QCoreApplication::setApplicationName("tst_theme");
}

void TestTheme::cleanupTestCase()
{
    if (m_daemon.state() != QProcess::NotRunning) {
        m_daemon.kill();
        m_daemon.waitForFinished();
    }
}

// A session bus of the test's own: dbus-daemon prints its address on stdout.
bool TestTheme::startBus()
{
    if (!m_address.isEmpty())
        return true;
    m_daemon.start(QStringLiteral("dbus-daemon"),
                   {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--print-address")});
    if (!m_daemon.waitForStarted(10000) || !m_daemon.waitForReadyRead(10000))
        return false;
    m_address = QString::fromUtf8(m_daemon.readLine()).trimmed();
    return !m_address.isEmpty();
}

void TestTheme::announce(uint colorScheme)
{
    QDBusConnection portal = QDBusConnection::connectToBus(m_address, QStringLiteral("portal"));
    QDBusMessage signal = QDBusMessage::createSignal(kPortalPath, kSettings, QStringLiteral("SettingChanged"));
    signal << QStringLiteral("org.freedesktop.appearance") << QStringLiteral("color-scheme")
           << QVariant::fromValue(QDBusVariant(colorScheme));
    QVERIFY(portal.send(signal));
}

void TestTheme::palettesKeepTextReadable()
{
    for (const ColorScheme scheme : {ColorScheme::Light, ColorScheme::Dark}) {
        const QPalette p = pitwallPalette(scheme);
        const QString name = scheme == ColorScheme::Dark ? "dark" : "light";
        const std::pair<QPalette::ColorRole, QPalette::ColorRole> pairs[] = {
            {QPalette::Text, QPalette::Base},           {QPalette::Text, QPalette::AlternateBase},
            {QPalette::WindowText, QPalette::Window},   {QPalette::ButtonText, QPalette::Button},
            {QPalette::HighlightedText, QPalette::Highlight}, {QPalette::ToolTipText, QPalette::ToolTipBase},
            {QPalette::PlaceholderText, QPalette::Base}, {QPalette::Link, QPalette::Base}};
        for (const auto& [fore, back] : pairs) {
            const double ratio = contrast(p.color(QPalette::Active, fore), p.color(QPalette::Active, back));
            QVERIFY2(ratio >= 4.5, qPrintable(QString("%1: role %2 on %3 has contrast %4 < 4.5")
                                                  .arg(name)
                                                  .arg(int(fore))
                                                  .arg(int(back))
                                                  .arg(ratio, 0, 'f', 2)));
        }
        // Disabled text is dimmer than enabled text, and still tells from its background.
        QVERIFY(contrast(p.color(QPalette::Disabled, QPalette::Text), p.color(QPalette::Base)) <
                contrast(p.color(QPalette::Active, QPalette::Text), p.color(QPalette::Base)));
        QVERIFY(contrast(p.color(QPalette::Disabled, QPalette::Text), p.color(QPalette::Base)) >= 2.0);
        QCOMPARE(isDark(p), scheme == ColorScheme::Dark);
    }
    QVERIFY(pitwallPalette(ColorScheme::Dark).color(QPalette::Base).lightnessF() < 0.15);
    QVERIFY(pitwallPalette(ColorScheme::Light).color(QPalette::Base).lightnessF() > 0.95);
}

void TestTheme::systemTakesTheDesktopsPreference()
{
    const QPalette light = pitwallPalette(ColorScheme::Light), dark = pitwallPalette(ColorScheme::Dark);
    QCOMPARE(resolveColorScheme(ThemeChoice::System, ColorScheme::Dark, light), ColorScheme::Dark);
    QCOMPARE(resolveColorScheme(ThemeChoice::System, ColorScheme::Light, dark), ColorScheme::Light);
    QCOMPARE(resolveColorScheme(ThemeChoice::System, std::nullopt, dark), ColorScheme::Dark);
    QCOMPARE(resolveColorScheme(ThemeChoice::System, std::nullopt, light), ColorScheme::Light);
    QCOMPARE(resolveColorScheme(ThemeChoice::Light, ColorScheme::Dark, dark), ColorScheme::Light);
    QCOMPARE(resolveColorScheme(ThemeChoice::Dark, ColorScheme::Light, light), ColorScheme::Dark);
    QCOMPARE(portalColorScheme(1), std::optional<ColorScheme>(ColorScheme::Dark));
    QCOMPARE(portalColorScheme(2), std::optional<ColorScheme>(ColorScheme::Light));
    QVERIFY(!portalColorScheme(0));
    QVERIFY(!portalColorScheme(7));
    QCOMPARE(parseThemeChoice(" Dark "), std::optional<ThemeChoice>(ThemeChoice::Dark));
    QCOMPARE(parseThemeChoice("system"), std::optional<ThemeChoice>(ThemeChoice::System));
    QVERIFY(!parseThemeChoice("blue"));
    QVERIFY(!parseThemeChoice(""));
    for (ThemeChoice c : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark})
        QCOMPARE(parseThemeChoice(themeChoiceName(c)), std::optional<ThemeChoice>(c));
}

void TestTheme::followsThePortalUnlessTheUserChose()
{
    QVERIFY2(startBus(), "dbus-daemon did not start (package dbus-daemon; packaging/install-deps.sh installs it)");
    QDBusConnection portalBus = QDBusConnection::connectToBus(m_address, QStringLiteral("portal"));
    QVERIFY(portalBus.isConnected());
    PortalSettings portal;
    portal.colorScheme = 1; // the desktop prefers dark
    QVERIFY(portalBus.registerObject(kPortalPath, &portal, QDBusConnection::ExportAllSlots));
    QVERIFY(portalBus.registerService(QStringLiteral("org.freedesktop.portal.Desktop")));

    QDBusConnection bus = QDBusConnection::connectToBus(m_address, QStringLiteral("window"));
    QVERIFY(bus.isConnected());
    ThemeController controller(bus);
    QSignalSpy schemes(&controller, &ThemeController::schemeChanged);
    controller.start(ThemeChoice::System);
    // At start the platform's palette decides (the offscreen platform's is light); the portal's answer follows.
    QTRY_COMPARE(controller.desktopPreference(), std::optional<ColorScheme>(ColorScheme::Dark));
    QCOMPARE(controller.scheme(), ColorScheme::Dark);
    QCOMPARE(QApplication::palette().color(QPalette::Window), pitwallPalette(ColorScheme::Dark).color(QPalette::Window));

    announce(2); // the desktop switches to light while the window is open
    QTRY_COMPARE(controller.scheme(), ColorScheme::Light);
    QCOMPARE(QApplication::palette().color(QPalette::Base), pitwallPalette(ColorScheme::Light).color(QPalette::Base));
    announce(0); // "no preference": the platform palette (light here)
    QTRY_VERIFY(!controller.desktopPreference());
    QCOMPARE(controller.scheme(), ColorScheme::Light);

    // The user's choice wins over the desktop's changes; it is not saved when asked not to.
    controller.setChoice(ThemeChoice::Dark, false);
    QCOMPARE(controller.scheme(), ColorScheme::Dark);
    announce(2);
    QTRY_COMPARE(controller.desktopPreference(), std::optional<ColorScheme>(ColorScheme::Light));
    QCOMPARE(controller.scheme(), ColorScheme::Dark);
    QVERIFY(!QSettings().contains(ThemeController::kSettingsKey));
    controller.setChoice(ThemeChoice::System, false);
    QCOMPARE(controller.scheme(), ColorScheme::Light);
    QVERIFY(schemes.count() >= 4); // dark, light, dark, light
}

void TestTheme::menuTurnsTheWindowDarkAndRemembers()
{
    ThemeController::instance()->start(ThemeChoice::System); // no session bus in the test: the platform's light
    QCOMPARE(ThemeController::instance()->scheme(), ColorScheme::Light);
    MainWindow window;
    window.resize(1200, 760);
    window.showView(View::Study);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QList<QChartView*> charts = window.findChildren<QChartView*>();
    QVERIFY(!charts.isEmpty());
    QVERIFY(charts.front()->chart()->backgroundBrush().color().lightnessF() > 0.9);

    // View > Theme > Dark, by mouse.
    QMenuBar* bar = window.menuBar();
    QMenu* view = nullptr;
    for (QAction* a : bar->actions())
        if (a->menu() && a->text() == QLatin1String("&View"))
            view = a->menu();
    QVERIFY(view);
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(view->menuAction()).center());
    QTRY_VERIFY(view->isVisible());
    auto* theme = window.findChild<QMenu*>(QStringLiteral("themeMenu"));
    QVERIFY(theme);
    QTest::mouseClick(view, Qt::LeftButton, {}, view->actionGeometry(theme->menuAction()).center());
    QTRY_VERIFY(theme->isVisible());
    auto* dark = window.findChild<QAction*>(QStringLiteral("theme-dark"));
    auto* system = window.findChild<QAction*>(QStringLiteral("theme-system"));
    QVERIFY(dark && system);
    QVERIFY(system->isChecked());
    QTest::mouseClick(theme, Qt::LeftButton, {}, theme->actionGeometry(dark).center());
    QTRY_COMPARE(ThemeController::instance()->scheme(), ColorScheme::Dark);
    QVERIFY(dark->isChecked());
    QVERIFY(!system->isChecked());
    // Qt delivers the palette to the widgets in posted events.
    QTRY_COMPARE(window.palette().color(QPalette::Window), pitwallPalette(ColorScheme::Dark).color(QPalette::Window));
    for (QChartView* chart : charts) // every chart re-coloured itself on the palette change
        QTRY_COMPARE(chart->chart()->backgroundBrush().color(), pitwallPalette(ColorScheme::Dark).color(QPalette::Base));
    QCOMPARE(QSettings().value(ThemeController::kSettingsKey).toString(), QStringLiteral("dark"));

    // The next start takes the saved choice; --theme (an explicit choice) overrides it for one run.
    ThemeController next(QDBusConnection(QStringLiteral("none")));
    next.start();
    QCOMPARE(next.choice(), ThemeChoice::Dark);
    next.start(ThemeChoice::Light);
    QCOMPARE(next.scheme(), ColorScheme::Light);
    QCOMPARE(QSettings().value(ThemeController::kSettingsKey).toString(), QStringLiteral("dark"));
}

int main(int argc, char** argv)
{
    // The test's own bus only: a session bus of the machine running it (with a real portal) must not decide.
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    QApplication app(argc, argv);
    TestTheme test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_theme.moc"
