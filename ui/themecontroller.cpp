#include "ui/themecontroller.h"

#include <QApplication>
#include <QDBusArgument>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QSettings>

namespace pitwall::ui {

namespace {
const QString kPortalService = QStringLiteral("org.freedesktop.portal.Desktop");
const QString kPortalPath = QStringLiteral("/org/freedesktop/portal/desktop");
const QString kSettingsInterface = QStringLiteral("org.freedesktop.portal.Settings");
const QString kAppearance = QStringLiteral("org.freedesktop.appearance");
const QString kColorScheme = QStringLiteral("color-scheme");

// Settings.Read answers a variant inside a variant (ReadOne and SettingChanged: one); unwraps all.
std::optional<uint> colorSchemeValue(QVariant value)
{
    while (value.userType() == qMetaTypeId<QDBusVariant>())
        value = value.value<QDBusVariant>().variant();
    if (value.userType() == qMetaTypeId<QDBusArgument>()) {
        QDBusVariant inner;
        value.value<QDBusArgument>() >> inner;
        value = inner.variant();
    }
    bool ok = false;
    const uint number = value.toUInt(&ok);
    return ok ? std::optional<uint>(number) : std::nullopt;
}
} // namespace

ThemeController::ThemeController(const QDBusConnection& bus, QObject* parent) : QObject(parent), m_bus(bus) {}

ThemeController* ThemeController::instance()
{
    static ThemeController* controller = nullptr;
    if (!controller)
        controller = new ThemeController(QDBusConnection::sessionBus(), qApp);
    return controller;
}

void ThemeController::start(std::optional<ThemeChoice> choice)
{
    if (!m_started) {
        // The platform's palette, as the first controller found it (before any Pitwall palette was set).
        static const QPalette platform = QApplication::palette();
        m_platform = platform;
        m_started = true;
        if (m_bus.isConnected()) {
            m_bus.connect(QString(), kPortalPath, kSettingsInterface, QStringLiteral("SettingChanged"), this,
                          SLOT(portalSettingChanged(QDBusMessage)));
            readPortal();
        }
    }
    if (!choice)
        choice = parseThemeChoice(QSettings().value(kSettingsKey).toString());
    setChoice(choice.value_or(ThemeChoice::System), false);
}

void ThemeController::setChoice(ThemeChoice choice, bool save)
{
    const bool changed = choice != m_choice;
    m_choice = choice;
    if (save)
        QSettings().setValue(kSettingsKey, themeChoiceName(choice));
    apply();
    if (changed)
        Q_EMIT choiceChanged(choice);
}

void ThemeController::apply()
{
    const ColorScheme scheme = resolveColorScheme(m_choice, m_desktop, m_platform);
    const bool changed = scheme != m_scheme || !m_applied;
    m_scheme = scheme;
    m_applied = true;
    QApplication::setPalette(pitwallPalette(scheme));
    if (changed)
        Q_EMIT schemeChanged(scheme);
}

void ThemeController::readPortal()
{
    QDBusMessage call = QDBusMessage::createMethodCall(kPortalService, kPortalPath, kSettingsInterface,
                                                       QStringLiteral("Read"));
    call << kAppearance << kColorScheme;
    // Asynchronous: a desktop without the portal (or one slow to start) never holds up the window.
    auto* watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, 5000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher* w) {
        w->deleteLater();
        const QDBusMessage reply = w->reply();
        if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
            return; // no portal, or no such setting: the platform palette decides
        if (const auto value = colorSchemeValue(reply.arguments().constFirst())) {
            m_desktop = portalColorScheme(*value);
            apply();
        }
    });
}

void ThemeController::portalSettingChanged(const QDBusMessage& message)
{
    const QVariantList arguments = message.arguments();
    if (arguments.size() != 3 || arguments[0].toString() != kAppearance || arguments[1].toString() != kColorScheme)
        return;
    if (const auto number = colorSchemeValue(arguments[2])) {
        m_desktop = portalColorScheme(*number);
        apply();
    }
}

} // namespace pitwall::ui
